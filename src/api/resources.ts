import { appendAll } from './append.js';
/**
 * The catalogue of served resources: names, scope, verbs, short names and
 * categories as kube-apiserver 1.32 advertises them in discovery.
 */

export interface SubresourceInfo {
  name: string;
  /** The kind the subresource speaks (Scale, Binding, Eviction ...), with its group/version. */
  group: string;
  version: string;
  kind: string;
  verbs: string[];
  /**
   * Served by the node's kubelet through the API server (pods/log,
   * nodes/proxy): a stream, not an object, so no OpenAPI schema of its own.
   */
  streamed?: boolean;
}

export interface ResourceInfo {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  subresources: SubresourceInfo[];
}

const crud = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
/** A proxy's CONNECT methods as discovery verbs (HEAD and OPTIONS have none: upstream's toDiscoveryKubeVerb). */
const proxyVerbs = ['create', 'delete', 'get', 'patch', 'update'];
const statusSub = (group: string, version: string, kind: string): SubresourceInfo =>
  ({ name: 'status', group, version, kind, verbs: ['get', 'patch', 'update'] });
const scaleSub: SubresourceInfo = { name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] };

interface Def {
  group: string; version: string; kind: string; plural: string; namespaced: boolean;
  shortNames?: string[]; categories?: string[]; verbs?: string[]; status?: boolean; extra?: SubresourceInfo[];
}

function define(d: Def): ResourceInfo {
  const subs: SubresourceInfo[] = [];
  if (d.status) subs.push(statusSub(d.group, d.version, d.kind));
  appendAll(subs, (d.extra ?? []));
  return {
    group: d.group, version: d.version, kind: d.kind, listKind: `${d.kind}List`,
    plural: d.plural, singular: d.kind.toLowerCase(), namespaced: d.namespaced,
    shortNames: d.shortNames ?? [], categories: d.categories ?? [], verbs: d.verbs ?? crud, subresources: subs,
  };
}

export const resources: ResourceInfo[] = [
  define({ group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false, shortNames: ['ns'], status: true,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    extra: [{ name: 'finalize', group: '', version: 'v1', kind: 'Namespace', verbs: ['update'] }] }),
  define({ group: '', version: 'v1', kind: 'Node', plural: 'nodes', namespaced: false, shortNames: ['no'], status: true,
    extra: [{ name: 'proxy', group: '', version: 'v1', kind: 'NodeProxyOptions', verbs: proxyVerbs, streamed: true }] }),
  define({ group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true, shortNames: ['po'], categories: ['all'], status: true,
    extra: [
      { name: 'attach', group: '', version: 'v1', kind: 'PodAttachOptions', verbs: ['create', 'get'], streamed: true },
      { name: 'binding', group: '', version: 'v1', kind: 'Binding', verbs: ['create'] },
      { name: 'ephemeralcontainers', group: '', version: 'v1', kind: 'Pod', verbs: ['get', 'patch', 'update'] },
      { name: 'eviction', group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] },
      { name: 'exec', group: '', version: 'v1', kind: 'PodExecOptions', verbs: ['create', 'get'], streamed: true },
      { name: 'log', group: '', version: 'v1', kind: 'Pod', verbs: ['get'], streamed: true },
      { name: 'portforward', group: '', version: 'v1', kind: 'PodPortForwardOptions', verbs: ['create', 'get'], streamed: true },
      { name: 'proxy', group: '', version: 'v1', kind: 'PodProxyOptions', verbs: proxyVerbs, streamed: true },
    ] }),
  define({ group: '', version: 'v1', kind: 'Binding', plural: 'bindings', namespaced: true, verbs: ['create'] }),
  define({ group: '', version: 'v1', kind: 'Service', plural: 'services', namespaced: true, shortNames: ['svc'], categories: ['all'], status: true,
    extra: [{ name: 'proxy', group: '', version: 'v1', kind: 'ServiceProxyOptions', verbs: proxyVerbs, streamed: true }] }),
  define({ group: '', version: 'v1', kind: 'Endpoints', plural: 'endpoints', namespaced: true, shortNames: ['ep'] }),
  define({ group: '', version: 'v1', kind: 'Event', plural: 'events', namespaced: true, shortNames: ['ev'] }),
  define({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true, shortNames: ['cm'] }),
  define({ group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true }),
  define({ group: '', version: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', namespaced: true, shortNames: ['sa'],
    extra: [{ name: 'token', group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] }] }),
  define({ group: '', version: 'v1', kind: 'PersistentVolume', plural: 'persistentvolumes', namespaced: false, shortNames: ['pv'], status: true }),
  define({ group: '', version: 'v1', kind: 'PersistentVolumeClaim', plural: 'persistentvolumeclaims', namespaced: true, shortNames: ['pvc'], status: true }),
  define({ group: '', version: 'v1', kind: 'ReplicationController', plural: 'replicationcontrollers', namespaced: true, shortNames: ['rc'], categories: ['all'], status: true, extra: [scaleSub] }),
  define({ group: 'apps', version: 'v1', kind: 'DaemonSet', plural: 'daemonsets', namespaced: true, shortNames: ['ds'], categories: ['all'], status: true }),
  define({ group: 'apps', version: 'v1', kind: 'StatefulSet', plural: 'statefulsets', namespaced: true, shortNames: ['sts'], categories: ['all'], status: true, extra: [scaleSub] }),
  define({ group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true, shortNames: ['deploy'], categories: ['all'], status: true, extra: [scaleSub] }),
  define({ group: 'apps', version: 'v1', kind: 'ReplicaSet', plural: 'replicasets', namespaced: true, shortNames: ['rs'], categories: ['all'], status: true, extra: [scaleSub] }),
  define({ group: 'apps', version: 'v1', kind: 'ControllerRevision', plural: 'controllerrevisions', namespaced: true }),
  define({ group: 'batch', version: 'v1', kind: 'Job', plural: 'jobs', namespaced: true, categories: ['all'], status: true }),
  define({ group: 'batch', version: 'v1', kind: 'CronJob', plural: 'cronjobs', namespaced: true, shortNames: ['cj'], categories: ['all'], status: true }),
  define({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', namespaced: true }),
  define({ group: 'certificates.k8s.io', version: 'v1', kind: 'CertificateSigningRequest', plural: 'certificatesigningrequests', namespaced: false, shortNames: ['csr'], status: true,
    extra: [{ name: 'approval', group: 'certificates.k8s.io', version: 'v1', kind: 'CertificateSigningRequest', verbs: ['get', 'patch', 'update'] }] }),
  define({ group: 'events.k8s.io', version: 'v1', kind: 'Event', plural: 'events', namespaced: true, shortNames: ['ev'] }),
  define({ group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass', plural: 'storageclasses', namespaced: false, shortNames: ['sc'] }),
  // The CSI objects: served and validated; k8ts runs no CSI driver, but each kubelet registers its CSINode.
  define({ group: 'storage.k8s.io', version: 'v1', kind: 'CSIDriver', plural: 'csidrivers', namespaced: false }),
  define({ group: 'storage.k8s.io', version: 'v1', kind: 'CSINode', plural: 'csinodes', namespaced: false }),
  define({ group: 'storage.k8s.io', version: 'v1', kind: 'CSIStorageCapacity', plural: 'csistoragecapacities', namespaced: true }),
  define({ group: 'storage.k8s.io', version: 'v1', kind: 'VolumeAttachment', plural: 'volumeattachments', namespaced: false, status: true }),
  // Policy, networking, RBAC and autoscaling groups (issue #10). autoscaling/v2 comes before v1:
  // discovery prefers the first version of a group, and upstream prefers v2 (it also stores v2).
  define({ group: '', version: 'v1', kind: 'PodTemplate', plural: 'podtemplates', namespaced: true }),
  define({ group: '', version: 'v1', kind: 'LimitRange', plural: 'limitranges', namespaced: true, shortNames: ['limits'] }),
  define({ group: '', version: 'v1', kind: 'ResourceQuota', plural: 'resourcequotas', namespaced: true, shortNames: ['quota'], status: true }),
  define({ group: 'networking.k8s.io', version: 'v1', kind: 'Ingress', plural: 'ingresses', namespaced: true, shortNames: ['ing'], status: true }),
  define({ group: 'networking.k8s.io', version: 'v1', kind: 'IngressClass', plural: 'ingressclasses', namespaced: false }),
  define({ group: 'networking.k8s.io', version: 'v1', kind: 'NetworkPolicy', plural: 'networkpolicies', namespaced: true, shortNames: ['netpol'] }),
  define({ group: 'node.k8s.io', version: 'v1', kind: 'RuntimeClass', plural: 'runtimeclasses', namespaced: false }),
  define({ group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler', plural: 'horizontalpodautoscalers', namespaced: true, shortNames: ['hpa'], categories: ['all'], status: true }),
  define({ group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler', plural: 'horizontalpodautoscalers', namespaced: true, shortNames: ['hpa'], categories: ['all'], status: true }),
  define({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role', plural: 'roles', namespaced: true }),
  define({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', plural: 'clusterroles', namespaced: false }),
  define({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding', plural: 'rolebindings', namespaced: true }),
  define({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRoleBinding', plural: 'clusterrolebindings', namespaced: false }),
  define({ group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', namespaced: false,
    shortNames: ['crd', 'crds'], categories: ['api-extensions'], status: true }),
  define({ group: 'apiregistration.k8s.io', version: 'v1', kind: 'APIService', plural: 'apiservices', namespaced: false, categories: ['api-extensions'], status: true }),
  define({ group: 'policy', version: 'v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets', namespaced: true, shortNames: ['pdb'], status: true }),
  define({ group: 'scheduling.k8s.io', version: 'v1', kind: 'PriorityClass', plural: 'priorityclasses', namespaced: false, shortNames: ['pc'] }),
  define({ group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice', plural: 'endpointslices', namespaced: true }),
  // ValidatingAdmissionPolicy (GA in 1.30): CEL admission policies and their bindings (issue #23).
  define({ group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicy', plural: 'validatingadmissionpolicies', namespaced: false,
    categories: ['api-extensions'], status: true }),
  define({ group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicyBinding', plural: 'validatingadmissionpolicybindings', namespaced: false,
    categories: ['api-extensions'] }),
  // Admission webhooks (issue #23): cluster-scoped, no status.
  define({ group: 'admissionregistration.k8s.io', version: 'v1', kind: 'MutatingWebhookConfiguration', plural: 'mutatingwebhookconfigurations', namespaced: false, categories: ['api-extensions'] }),
  define({ group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingWebhookConfiguration', plural: 'validatingwebhookconfigurations', namespaced: false, categories: ['api-extensions'] }),
  // API Priority and Fairness configuration: stored, bootstrapped and printed as upstream; k8ts' own fairness does not read it (docs/api.md).
  define({ group: 'flowcontrol.apiserver.k8s.io', version: 'v1', kind: 'FlowSchema', plural: 'flowschemas', namespaced: false, status: true }),
  define({ group: 'flowcontrol.apiserver.k8s.io', version: 'v1', kind: 'PriorityLevelConfiguration', plural: 'prioritylevelconfigurations', namespaced: false, status: true }),
  // Access and identity reviews (issue #8): create-only, answered at once, never stored.
  define({ group: 'authentication.k8s.io', version: 'v1', kind: 'SelfSubjectReview', plural: 'selfsubjectreviews', namespaced: false, verbs: ['create'] }),
  define({ group: 'authentication.k8s.io', version: 'v1', kind: 'TokenReview', plural: 'tokenreviews', namespaced: false, verbs: ['create'] }),
  define({ group: 'authorization.k8s.io', version: 'v1', kind: 'LocalSubjectAccessReview', plural: 'localsubjectaccessreviews', namespaced: true, verbs: ['create'] }),
  define({ group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview', plural: 'selfsubjectaccessreviews', namespaced: false, verbs: ['create'] }),
  define({ group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectRulesReview', plural: 'selfsubjectrulesreviews', namespaced: false, verbs: ['create'] }),
  define({ group: 'authorization.k8s.io', version: 'v1', kind: 'SubjectAccessReview', plural: 'subjectaccessreviews', namespaced: false, verbs: ['create'] }),
];

/**
 * Create-only resources (bindings, the access and token reviews) have no
 * storage: a handler answers them, as upstream's rest.Creater without a store.
 */
export const hasStorage = (r: Pick<ResourceInfo, 'verbs'>) => r.verbs.some((v) => v !== 'create');

/** `apps/v1` or `v1`. */
export const apiVersionOf = (r: { group: string; version: string }) => (r.group ? `${r.group}/${r.version}` : r.version);

/** The key validation, defaulting and printing are registered under: `apps/v1/DaemonSet`, `v1/Pod`. */
export const kindKey = (r: { group: string; version: string; kind: string }) => `${apiVersionOf(r)}/${r.kind}`;

export function findResource(group: string, version: string, plural: string): ResourceInfo | undefined {
  return resources.find((r) => r.group === group && r.version === version && r.plural === plural);
}

export function findByKind(apiVersion: string, kind: string): ResourceInfo | undefined {
  return resources.find((r) => apiVersionOf(r) === apiVersion && r.kind === kind);
}

/** Group versions in the order discovery lists them (core first). */
export function groupVersions(): { group: string; version: string }[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const r of resources) seen.set(apiVersionOf(r), { group: r.group, version: r.version });
  return [...seen.values()];
}
