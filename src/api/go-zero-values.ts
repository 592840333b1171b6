/**
 * Fields Go serializes even when zero, for the kinds clients look at most
 * (every write upstream round-trips through the Go types, so stored and
 * served objects carry them):
 *  - a pod template's metadata.creationTimestamp: ObjectMeta's metav1.Time is
 *    a struct, which omitempty never omits, and its zero encodes as null
 *    (`kubectl get deploy -o yaml` shows `creationTimestamp: null`);
 *  - `status` of workloads: a value struct, `{}` before any controller wrote
 *    it, with the counters that have no omitempty at 0 (DaemonSetStatus'
 *    currentNumberScheduled, numberMisscheduled, desiredNumberScheduled,
 *    numberReady; StatefulSetStatus' replicas and availableReplicas);
 *  - a Node's `spec` and its status' daemonEndpoints.kubeletEndpoint.Port and
 *    nodeInfo strings;
 *  - a Role's and ClusterRole's `rules` (no omitempty): `null` when it has none,
 *    e.g. an aggregated ClusterRole that no role matches.
 * Events have their own (events.ts); Services' status.loadBalancer is their
 * strategy's.
 */
type Obj = Record<string, any>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Sets the fields of `zero` that `obj` lacks (nested objects merged), in place. */
function fill(obj: Obj, zero: Obj): void {
  for (const [k, z] of Object.entries(zero)) {
    if (obj[k] === undefined) obj[k] = structuredClone(z);
    else if (isObject(obj[k]) && isObject(z)) fill(obj[k], z);
  }
}

const template = { metadata: { creationTimestamp: null } };
const nodeInfoFields = ['machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion', 'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture'];

/** By `<group>/<kind>`: the zero-valued fields Go always writes. */
const zeroFields: Record<string, Obj> = {
  'apps/Deployment': { spec: { template }, status: {} },
  'apps/ReplicaSet': { spec: { template }, status: {} },
  'apps/DaemonSet': { spec: { template }, status: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 } },
  'apps/StatefulSet': { spec: { template }, status: { replicas: 0, availableReplicas: 0 } },
  'batch/Job': { spec: { template }, status: {} },
  'batch/CronJob': { spec: { jobTemplate: { metadata: { creationTimestamp: null }, spec: { template } } }, status: {} },
  '/PodTemplate': { template },
  'rbac.authorization.k8s.io/ClusterRole': { rules: null },
  'rbac.authorization.k8s.io/Role': { rules: null },
  '/ReplicationController': { status: { replicas: 0 } },
  '/Node': {
    spec: {},
    status: { daemonEndpoints: { kubeletEndpoint: { Port: 0 } }, nodeInfo: Object.fromEntries(nodeInfoFields.map((f) => [f, ''])) },
  },
};

/** Fills the object's Go zero values in place (its apiVersion and kind say which). */
export function fillGoZeroValues(obj: Obj): void {
  const apiVersion = String(obj?.apiVersion ?? '');
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const zero = zeroFields[`${group}/${obj?.kind}`];
  if (zero) fill(obj, zero);
}
