/**
 * Validation entry points, keyed like resources.ts's `kindKey` ('v1/Pod',
 * 'apps/v1/DaemonSet'). Each returns upstream's field errors for the object as the
 * strategy would see it: defaults applied, generated name filled, namespace set
 * from the request. They never throw; kinds without rules yield no errors.
 */
import { FieldError } from '../field-errors.js';
import { validateBindingCreate as validateVAPBindingCreate, validateBindingUpdate as validateVAPBindingUpdate, validatePolicyCreate, validatePolicyUpdate } from '../admissionregistration/validation.js';
import { validateCSRCreate, validateCSRUpdate } from './csr.js';
import { validateBindingCreate, validateControllerRevisionCreate, validateControllerRevisionUpdate } from './controllerrevision.js';
import {
  validateConfigMapCreate, validateConfigMapUpdate, validateSecretCreate, validateSecretUpdate,
  validateServiceAccountCreate, validateServiceAccountUpdate,
} from './configdata.js';
import { validateCronJobCreate, validateCronJobUpdate } from './cronjob.js';
import { validateDaemonSetCreate, validateDaemonSetUpdate } from './daemonset.js';
import { validateReplicationControllerCreate, validateReplicationControllerUpdate } from './replicationcontroller.js';
import { validateDeploymentCreate, validateDeploymentUpdate, validateReplicaSetCreate, validateReplicaSetUpdate } from './deployment.js';
import { validateEndpointsCreate, validateEndpointsUpdate } from './endpoints.js';
import { validateCoreEventCreate, validateCoreEventUpdate, validateEventsV1Create, validateEventsV1Update } from './event.js';
import { validateJobCreate, validateJobUpdate } from './job.js';
import { validateLeaseCreate, validateLeaseUpdate } from './lease.js';
import { validateNamespaceCreate, validateNamespaceUpdate } from './namespace.js';
import { validateNodeCreate, validateNodeUpdate } from './node.js';
import { validatePVCCreate, validatePVCUpdate, validatePVCreate, validatePVUpdate } from './persistentvolume.js';
import { validatePodCreate, validatePodUpdate } from './pod.js';
import { validatePodStatusUpdate } from './pod-status.js';
import { validatePodEphemeralContainersUpdate } from './pod-ephemeral.js';
import { validateServiceCreate, validateServiceUpdate } from './service.js';
import { validateStatefulSetCreate, validateStatefulSetUpdate } from './statefulset.js';
import { validateStorageClassCreate, validateStorageClassUpdate } from './storageclass.js';
import { validateCSIDriverCreate, validateCSIDriverUpdate } from './csidriver.js';
import { validateCSINodeCreate, validateCSINodeUpdate } from './csinode.js';
import { validateVolumeAttachmentCreate, validateVolumeAttachmentUpdate } from './volumeattachment.js';
import { validateCSIStorageCapacityCreate, validateCSIStorageCapacityUpdate } from './csistoragecapacity.js';
import { validateFlowSchemaCreate, validateFlowSchemaUpdate, validatePriorityLevelCreate, validatePriorityLevelUpdate } from '../flowcontrol/validation.js';
import { clusterRoleBindingValidation, clusterRoleValidation, roleBindingValidation, roleValidation } from './rbac.js';
import { limitRangeValidation, resourceQuotaValidation } from './quota.js';
import { ingressClassValidation, ingressValidation, networkPolicyValidation, runtimeClassValidation } from './networking.js';
import { hpaValidation, podTemplateValidation } from './autoscaling.js';
import { validatePodDisruptionBudgetCreate, validatePodDisruptionBudgetUpdate } from './poddisruptionbudget.js';
import { validatePriorityClassCreate, validatePriorityClassUpdate } from './priorityclass.js';
import { validateEndpointSliceCreate, validateEndpointSliceUpdate } from './endpointslice.js';
import { validateAPIServiceCreate, validateAPIServiceUpdate } from './apiservice.js';
import {
  validateMutatingWebhookConfigurationCreate, validateMutatingWebhookConfigurationUpdate,
  validateValidatingWebhookConfigurationCreate, validateValidatingWebhookConfigurationUpdate,
} from './webhookconfiguration.js';
import { Obj, obj } from './util.js';
import { guarded } from './guarded.js';

interface KindValidator {
  create(obj: Obj): FieldError[];
  update?(obj: Obj, old: Obj, subresource?: string): FieldError[];
}

/** Upstream's pod strategies: status and ephemeralcontainers writes have rules of their own. */
function validatePodUpdateFor(n: Obj, o: Obj, subresource?: string): FieldError[] {
  if (subresource === 'status') return validatePodStatusUpdate(n, o);
  if (subresource === 'ephemeralcontainers') return validatePodEphemeralContainersUpdate(n, o);
  return validatePodUpdate(n, o);
}

const validators: Record<string, KindValidator> = {
  // Upstream's podStatusStrategy validates a status write with ValidatePodStatusUpdate, not ValidatePodUpdate.
  'v1/Pod': { create: validatePodCreate, update: validatePodUpdateFor },
  'v1/Binding': { create: validateBindingCreate },
  'v1/Service': { create: validateServiceCreate, update: validateServiceUpdate },
  'v1/Endpoints': { create: validateEndpointsCreate, update: validateEndpointsUpdate },
  'v1/Node': { create: validateNodeCreate, update: validateNodeUpdate },
  'v1/Namespace': { create: validateNamespaceCreate, update: validateNamespaceUpdate },
  'v1/Event': { create: validateCoreEventCreate, update: validateCoreEventUpdate },
  'v1/ConfigMap': { create: validateConfigMapCreate, update: validateConfigMapUpdate },
  'v1/Secret': { create: validateSecretCreate, update: validateSecretUpdate },
  'v1/ServiceAccount': { create: validateServiceAccountCreate, update: validateServiceAccountUpdate },
  'v1/PersistentVolume': { create: validatePVCreate, update: validatePVUpdate },
  'v1/PersistentVolumeClaim': { create: validatePVCCreate, update: validatePVCUpdate },
  'v1/ReplicationController': { create: validateReplicationControllerCreate, update: validateReplicationControllerUpdate },
  'apps/v1/DaemonSet': { create: validateDaemonSetCreate, update: validateDaemonSetUpdate },
  'apps/v1/StatefulSet': { create: validateStatefulSetCreate, update: validateStatefulSetUpdate },
  'apps/v1/Deployment': { create: validateDeploymentCreate, update: validateDeploymentUpdate },
  'apps/v1/ReplicaSet': { create: validateReplicaSetCreate, update: validateReplicaSetUpdate },
  'apps/v1/ControllerRevision': { create: validateControllerRevisionCreate, update: validateControllerRevisionUpdate },
  'batch/v1/Job': { create: validateJobCreate, update: validateJobUpdate },
  'batch/v1/CronJob': { create: validateCronJobCreate, update: validateCronJobUpdate },
  'coordination.k8s.io/v1/Lease': { create: validateLeaseCreate, update: validateLeaseUpdate },
  'certificates.k8s.io/v1/CertificateSigningRequest': { create: validateCSRCreate, update: validateCSRUpdate },
  'events.k8s.io/v1/Event': { create: validateEventsV1Create, update: validateEventsV1Update },
  'storage.k8s.io/v1/StorageClass': { create: validateStorageClassCreate, update: validateStorageClassUpdate },
  'storage.k8s.io/v1/CSIDriver': { create: validateCSIDriverCreate, update: validateCSIDriverUpdate },
  'storage.k8s.io/v1/CSINode': { create: validateCSINodeCreate, update: validateCSINodeUpdate },
  'storage.k8s.io/v1/VolumeAttachment': { create: validateVolumeAttachmentCreate, update: validateVolumeAttachmentUpdate },
  'storage.k8s.io/v1/CSIStorageCapacity': { create: validateCSIStorageCapacityCreate, update: validateCSIStorageCapacityUpdate },
  'flowcontrol.apiserver.k8s.io/v1/FlowSchema': { create: validateFlowSchemaCreate, update: validateFlowSchemaUpdate },
  'flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfiguration': { create: validatePriorityLevelCreate, update: validatePriorityLevelUpdate },
  'v1/PodTemplate': podTemplateValidation,
  'v1/ResourceQuota': resourceQuotaValidation,
  'v1/LimitRange': limitRangeValidation,
  'networking.k8s.io/v1/Ingress': ingressValidation,
  'networking.k8s.io/v1/IngressClass': ingressClassValidation,
  'networking.k8s.io/v1/NetworkPolicy': networkPolicyValidation,
  'node.k8s.io/v1/RuntimeClass': runtimeClassValidation,
  'autoscaling/v2/HorizontalPodAutoscaler': hpaValidation,
  'rbac.authorization.k8s.io/v1/Role': roleValidation,
  'rbac.authorization.k8s.io/v1/ClusterRole': clusterRoleValidation,
  'rbac.authorization.k8s.io/v1/RoleBinding': roleBindingValidation,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': clusterRoleBindingValidation,
  'policy/v1/PodDisruptionBudget': { create: validatePodDisruptionBudgetCreate, update: validatePodDisruptionBudgetUpdate },
  'scheduling.k8s.io/v1/PriorityClass': { create: validatePriorityClassCreate, update: validatePriorityClassUpdate },
  'discovery.k8s.io/v1/EndpointSlice': { create: validateEndpointSliceCreate, update: validateEndpointSliceUpdate },
  'apiregistration.k8s.io/v1/APIService': { create: validateAPIServiceCreate, update: validateAPIServiceUpdate },
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy': { create: validatePolicyCreate, update: validatePolicyUpdate },
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding': { create: validateVAPBindingCreate, update: validateVAPBindingUpdate },
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration': { create: validateMutatingWebhookConfigurationCreate, update: validateMutatingWebhookConfigurationUpdate },
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration': { create: validateValidatingWebhookConfigurationCreate, update: validateValidatingWebhookConfigurationUpdate },
};

/** Field errors for a new object (after defaulting). */
export function validateCreate(key: string, object: any): FieldError[] {
  const v = validators[key];
  return v ? guarded(() => v.create(obj(object))) : [];
}

/**
 * Field errors for an update of `old` to `object` (after defaulting). `subresource`
 * ('status', 'approval') selects a subresource's rules where they differ (CSRs).
 */
export function validateUpdate(key: string, object: any, old: any, subresource?: string): FieldError[] {
  const v = validators[key];
  if (!v) return [];
  return guarded(() => (v.update ? v.update(obj(object), obj(old), subresource) : v.create(obj(object))));
}

/** Whether validation rules exist for the kind. */
export const hasValidation = (key: string) => key in validators;
