/**
 * The patch metadata strategic merge patch needs: which Go type sits at which
 * JSON path, and the `patchStrategy` / `patchMergeKey` struct tags of upstream
 * v1.32 (`k8s.io/api/{core,apps,batch,policy,...}/v1/types.go`,
 * `k8s.io/apimachinery/pkg/apis/meta/v1/types.go`).
 *
 * The graph is compact on purpose: a type lists only the fields that carry a
 * tag or lead to one. A field absent from the graph is "untyped": its maps are
 * merged key by key and its lists replaced whole, which is exactly what the
 * tags would say for any field whose subtree has no tags.
 *
 * Facts worth knowing (all from the v1.32 tags):
 *  - tolerations, taints, Endpoints subsets, containerStatuses, node selector
 *    terms, volumeClaimTemplates have no merge key: a patch replaces them;
 *  - ports merge by containerPort alone (upstream's known wart: TCP and UDP on
 *    one port number collapse), Service ports by port;
 *  - finalizers and Node podCIDRs are primitive lists with strategy merge;
 *  - volumes, resourceClaims (and their statuses) add `retainKeys`; Deployment
 *    `.spec.strategy` is `retainKeys` only; PodDisruptionBudget `.spec.selector`
 *    is `replace`.
 */

/** One struct field's tags. For a list field `type` names the element type. */
export interface FieldPatchMeta {
  /** A key of the graph; absent means untyped (merge maps, replace lists). */
  readonly type?: string;
  /** The `patchStrategy` tag split on ',', e.g. ['merge', 'retainKeys']. */
  readonly strategies?: readonly string[];
  /** The `patchMergeKey` tag. */
  readonly patchMergeKey?: string;
}

/** Go type name → JSON field name → tags. */
export type PatchTypeGraph = Readonly<Record<string, Readonly<Record<string, FieldPatchMeta>>>>;

/** Where a strategic merge starts: a graph and the Go type of the document root. */
export interface PatchSchema {
  readonly graph: PatchTypeGraph;
  readonly root: string;
}

const t = (type: string): FieldPatchMeta => ({ type });
/** `patchStrategy:"merge"`, with a merge key for lists of structs. */
const merge = (patchMergeKey?: string, type?: string): FieldPatchMeta => ({ type, strategies: ['merge'], patchMergeKey });
/** `patchStrategy:"merge,retainKeys"`. */
const mergeRetain = (patchMergeKey: string, type?: string): FieldPatchMeta => ({ type, strategies: ['merge', 'retainKeys'], patchMergeKey });

const meta = { metadata: t('ObjectMeta') };
const conditions = { conditions: merge('type') };

/** The Kubernetes v1.32 built-in types, as far as strategic merge patch cares. */
export const builtinTypes: PatchTypeGraph = {
  // meta/v1
  ObjectMeta: { ownerReferences: merge('uid'), finalizers: merge() },
  Object: meta,

  // core/v1 pods
  Pod: { ...meta, spec: t('PodSpec'), status: t('PodStatus') },
  PodTemplateSpec: { ...meta, spec: t('PodSpec') },
  PodTemplate: { ...meta, template: t('PodTemplateSpec') },
  PodSpec: {
    volumes: mergeRetain('name'),
    initContainers: merge('name', 'Container'),
    containers: merge('name', 'Container'),
    ephemeralContainers: merge('name', 'Container'),
    imagePullSecrets: merge('name'),
    hostAliases: merge('ip'),
    topologySpreadConstraints: merge('topologyKey'),
    schedulingGates: merge('name'),
    resourceClaims: mergeRetain('name'),
  },
  // EphemeralContainer inlines EphemeralContainerCommon, which carries the same tags.
  Container: {
    ports: merge('containerPort'),
    env: merge('name'),
    volumeMounts: merge('mountPath'),
    volumeDevices: merge('devicePath'),
  },
  PodStatus: {
    ...conditions,
    hostIPs: merge('ip'),
    podIPs: merge('ip'),
    resourceClaimStatuses: mergeRetain('name'),
    // No tag on the lists themselves: a patch replaces them, so ContainerStatus's
    // own tags (volumeMounts by mountPath, allocatedResourcesStatus by name)
    // never come into play. Listed to document that.
    containerStatuses: t('ContainerStatus'),
    initContainerStatuses: t('ContainerStatus'),
    ephemeralContainerStatuses: t('ContainerStatus'),
  },
  ContainerStatus: { volumeMounts: merge('mountPath'), allocatedResourcesStatus: merge('name') },

  // core/v1 others
  Node: { ...meta, spec: t('NodeSpec'), status: t('NodeStatus') },
  NodeSpec: { podCIDRs: merge() },
  NodeStatus: { ...conditions, addresses: merge('type') },
  Service: { ...meta, spec: t('ServiceSpec'), status: t('ServiceStatus') },
  ServiceSpec: { ports: merge('port') },
  ServiceStatus: conditions,
  Namespace: { ...meta, status: t('NamespaceStatus') },
  NamespaceStatus: conditions,
  PersistentVolumeClaim: { ...meta, status: t('PersistentVolumeClaimStatus') },
  PersistentVolumeClaimStatus: conditions,
  ServiceAccount: { ...meta, secrets: merge('name') },
  ReplicationController: { ...meta, spec: t('ReplicationControllerSpec'), status: t('Conditions') },
  ReplicationControllerSpec: { template: t('PodTemplateSpec') },
  ComponentStatus: { ...meta, ...conditions },
  Conditions: conditions,

  // apps/v1
  DaemonSet: { ...meta, spec: t('WorkloadSpec'), status: t('Conditions') },
  ReplicaSet: { ...meta, spec: t('WorkloadSpec'), status: t('Conditions') },
  StatefulSet: { ...meta, spec: t('StatefulSetSpec'), status: t('Conditions') },
  Deployment: { ...meta, spec: t('DeploymentSpec'), status: t('Conditions') },
  WorkloadSpec: { template: t('PodTemplateSpec') },
  // volumeClaimTemplates has no tag: replaced whole.
  StatefulSetSpec: { template: t('PodTemplateSpec'), volumeClaimTemplates: t('PersistentVolumeClaim') },
  DeploymentSpec: { template: t('PodTemplateSpec'), strategy: { strategies: ['retainKeys'] } },

  // batch/v1
  Job: { ...meta, spec: t('WorkloadSpec'), status: t('Conditions') },
  CronJob: { ...meta, spec: t('CronJobSpec') },
  CronJobSpec: { jobTemplate: t('JobTemplateSpec') },
  JobTemplateSpec: { ...meta, spec: t('WorkloadSpec') },

  // policy/v1, autoscaling/v2, storage.k8s.io/v1
  PodDisruptionBudget: { ...meta, spec: t('PodDisruptionBudgetSpec'), status: t('Conditions') },
  PodDisruptionBudgetSpec: { selector: { strategies: ['replace'] } },
  HorizontalPodAutoscaler: { ...meta, status: t('Conditions') },
  CSINode: { ...meta, spec: t('CSINodeSpec') },
  CSINodeSpec: { drivers: merge('name') },

  // admissionregistration.k8s.io/v1: webhooks merge by name.
  MutatingWebhookConfiguration: { ...meta, webhooks: merge('name') },
  ValidatingWebhookConfiguration: { ...meta, webhooks: merge('name') },
};

/** Served and well-known kinds (kindKey → root Go type). Other built-in kinds are `Object`. */
const kindRoots: Readonly<Record<string, string>> = {
  'v1/Pod': 'Pod',
  'v1/PodTemplate': 'PodTemplate',
  'v1/Node': 'Node',
  'v1/Service': 'Service',
  'v1/Namespace': 'Namespace',
  'v1/PersistentVolumeClaim': 'PersistentVolumeClaim',
  'v1/ServiceAccount': 'ServiceAccount',
  'v1/ReplicationController': 'ReplicationController',
  'v1/ComponentStatus': 'ComponentStatus',
  'apps/v1/DaemonSet': 'DaemonSet',
  'apps/v1/StatefulSet': 'StatefulSet',
  'apps/v1/Deployment': 'Deployment',
  'apps/v1/ReplicaSet': 'ReplicaSet',
  'batch/v1/Job': 'Job',
  'batch/v1/CronJob': 'CronJob',
  'policy/v1/PodDisruptionBudget': 'PodDisruptionBudget',
  'autoscaling/v2/HorizontalPodAutoscaler': 'HorizontalPodAutoscaler',
  'storage.k8s.io/v1/CSINode': 'CSINode',
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration': 'MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration': 'ValidatingWebhookConfiguration',
};

/**
 * API groups compiled into kube-apiserver. Their kinds are Go types, so
 * upstream accepts strategic merge patches for them; custom resources (any
 * other group) are Unstructured and get 415.
 */
const builtinGroups = new Set([
  '', 'apps', 'batch', 'autoscaling', 'policy', 'rbac.authorization.k8s.io', 'networking.k8s.io',
  'storage.k8s.io', 'coordination.k8s.io', 'certificates.k8s.io', 'events.k8s.io', 'discovery.k8s.io',
  'scheduling.k8s.io', 'node.k8s.io', 'admissionregistration.k8s.io', 'apiextensions.k8s.io',
  'apiregistration.k8s.io', 'flowcontrol.apiserver.k8s.io', 'resource.k8s.io', 'authentication.k8s.io',
  'authorization.k8s.io', 'internal.apiserver.k8s.io', 'storagemigration.k8s.io',
]);

/** The group of a kindKey: `apps/v1/DaemonSet` → `apps`, `v1/Pod` → ''. */
function groupOf(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length === 2) return '';
  if (parts.length === 3) return parts[0];
  return undefined;
}

/** True when upstream would accept `application/strategic-merge-patch+json` for the kind. */
export function supportsStrategicMerge(key: string): boolean {
  if (key in kindRoots) return true;
  const group = groupOf(key);
  return group !== undefined && builtinGroups.has(group);
}

/** The schema a strategic merge patch of the given kind starts from. */
export function schemaFor(key: string): PatchSchema {
  return { graph: builtinTypes, root: kindRoots[key] ?? 'Object' };
}

/** The Go type's tags for one JSON field; untyped when the type or field is not in the graph. */
export function lookupField(graph: PatchTypeGraph, type: string | undefined, field: string): FieldPatchMeta {
  if (type === undefined) return {};
  const fields = graph[type];
  if (fields === undefined || !Object.hasOwn(fields, field)) return {};
  return fields[field];
}
