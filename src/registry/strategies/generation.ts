/**
 * Which kinds keep metadata.generation. Upstream's generic registry never sets
 * it; each strategy that wants it sets 1 on create and bumps it when the spec
 * changes (apps and batch workloads, policy, networking, admission and CRDs).
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
]);

export const tracksGeneration = (info: Pick<ResourceInfo, 'group' | 'plural'>): boolean => generationKinds.has(`${info.group}/${info.plural}`);
