/**
 * Which kinds keep metadata.generation. Upstream's generic registry never sets
 * it; each strategy that wants it sets 1 on create and bumps it when the spec
 * changes (apps and batch workloads, policy, networking, admission, CRDs, CSIDrivers
 * and the flowcontrol kinds).
 * ConfigMaps, Secrets, Namespaces, Nodes, Services, Pods, Endpoints, Events,
 * ServiceAccounts, Leases and the rest carry none in 1.32: a client-sent one is
 * kept on create and an update cannot change it (rest.BeforeUpdate).
 */
import type { ResourceInfo } from '../../api/resources.js';

const generationKinds = new Set([
  'apps/deployments', 'apps/replicasets', 'apps/statefulsets', 'apps/daemonsets', '/replicationcontrollers',
  'batch/jobs', 'batch/cronjobs',
  'networking.k8s.io/ingresses', 'networking.k8s.io/networkpolicies',
  'policy/poddisruptionbudgets',
  'apiextensions.k8s.io/customresourcedefinitions',
  'admissionregistration.k8s.io/validatingwebhookconfigurations', 'admissionregistration.k8s.io/mutatingwebhookconfigurations',
  'admissionregistration.k8s.io/validatingadmissionpolicies', 'admissionregistration.k8s.io/validatingadmissionpolicybindings',
  'storage.k8s.io/csidrivers',
  'flowcontrol.apiserver.k8s.io/flowschemas', 'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations',
]);

export const tracksGeneration = (info: Pick<ResourceInfo, 'group' | 'plural'>): boolean => generationKinds.has(`${info.group}/${info.plural}`);
