/**
 * Defaulting entry point, keyed like resources.ts's `kindKey`. Mutates the decoded
 * object in place with upstream's v1 defaults; idempotent; kinds without
 * defaults are left unchanged.
 */
import { defaultCronJob, defaultJob } from './batch.js';
import { defaultCSR, defaultEndpoints, defaultNamespace, defaultNode, defaultPersistentVolume, defaultPersistentVolumeClaim, defaultSecret, defaultStorageClass } from './core.js';
import { defaultPod } from './pod.js';
import {
  defaultHPAv1, defaultHPAv2, defaultLimitRange, defaultNetworkPolicy, defaultPodTemplateObject, defaultResourceQuota, defaultRoleBinding,
} from './groups.js';
import { defaultEndpointSlice, defaultPriorityClass } from './policy.js';
import { defaultService } from './service.js';
import { defaultMutatingWebhookConfiguration, defaultValidatingWebhookConfiguration } from './admissionregistration.js';
import { Obj, isObj } from './util.js';
import { defaultValidatingAdmissionPolicy, defaultValidatingAdmissionPolicyBinding } from '../admissionregistration/defaults.js';
import { defaultDaemonSet, defaultDeployment, defaultReplicaSet, defaultReplicationController, defaultStatefulSet } from './workloads.js';

import { defaultAPIService } from '../validation/apiservice.js';
import { defaultCSIDriver } from './csidriver.js';
import { defaultFlowSchema, defaultPriorityLevelConfiguration } from '../flowcontrol/defaults.js';

const defaulters: Record<string, (obj: Obj) => void> = {
  'v1/Pod': defaultPod,
  'v1/Service': defaultService,
  'v1/Namespace': defaultNamespace,
  'v1/Node': defaultNode,
  'v1/PersistentVolume': defaultPersistentVolume,
  'v1/PersistentVolumeClaim': defaultPersistentVolumeClaim,
  'v1/Secret': defaultSecret,
  'v1/Endpoints': defaultEndpoints,
  'v1/ReplicationController': defaultReplicationController,
  'apps/v1/DaemonSet': defaultDaemonSet,
  'apps/v1/StatefulSet': defaultStatefulSet,
  'apps/v1/Deployment': defaultDeployment,
  'apps/v1/ReplicaSet': defaultReplicaSet,
  'batch/v1/Job': defaultJob,
  'batch/v1/CronJob': defaultCronJob,
  'storage.k8s.io/v1/StorageClass': defaultStorageClass,
  'storage.k8s.io/v1/CSIDriver': defaultCSIDriver,
  'flowcontrol.apiserver.k8s.io/v1/FlowSchema': defaultFlowSchema,
  'flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfiguration': defaultPriorityLevelConfiguration,
  'apiregistration.k8s.io/v1/APIService': defaultAPIService,
  'certificates.k8s.io/v1/CertificateSigningRequest': defaultCSR,
  'v1/PodTemplate': defaultPodTemplateObject,
  'v1/LimitRange': defaultLimitRange,
  'v1/ResourceQuota': defaultResourceQuota,
  'networking.k8s.io/v1/NetworkPolicy': defaultNetworkPolicy,
  'rbac.authorization.k8s.io/v1/RoleBinding': defaultRoleBinding,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': defaultRoleBinding,
  'autoscaling/v1/HorizontalPodAutoscaler': defaultHPAv1,
  'autoscaling/v2/HorizontalPodAutoscaler': defaultHPAv2,
  'scheduling.k8s.io/v1/PriorityClass': defaultPriorityClass,
  'discovery.k8s.io/v1/EndpointSlice': defaultEndpointSlice,
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy': defaultValidatingAdmissionPolicy,
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding': defaultValidatingAdmissionPolicyBinding,
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration': defaultMutatingWebhookConfiguration,
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration': defaultValidatingWebhookConfiguration,
};

export function applyDefaults(key: string, obj: any): void {
  const defaulter = defaulters[key];
  if (defaulter && isObj(obj)) defaulter(obj);
}
