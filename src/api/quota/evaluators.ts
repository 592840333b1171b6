/**
 * What an object counts against a ResourceQuota (upstream
 * pkg/quota/v1/evaluator/core and the generic object-count evaluator): for
 * each kind, the quota resource names it can use, its usage, and whether it
 * falls in a quota's scopes. Pods, Services and PersistentVolumeClaims have
 * their own evaluators; every other namespaced kind is counted by name
 * (`count/<resource>.<group>`, plus the legacy `configmaps`, `secrets` ...).
 */
import type { PersistentVolumeClaim, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { Unstructured } from '../unstructured.js';
import { quantityFromInt } from '../quantity.js';
import { ResourceList, addLists, parseResourceList } from './arithmetic.js';
import { podMatchesScope, type ScopeRequirement } from './scopes.js';
import { podLimits, podRequests } from './pod-resources.js';

export interface QuotaEvaluator<T = Unstructured> {
  /** Whether the evaluator accounts for this quota resource name. */
  handles(resourceName: string): boolean;
  /** The object's usage; `now` decides whether a pod being deleted still counts. */
  usage(obj: T, now: Date): ResourceList;
  /** Whether the object falls in one scope requirement (only pods do; other kinds match no scope). */
  matchesScope(req: ScopeRequirement, obj: T): boolean;
  /** Upstream's "must specify" rule: an error text when the object cannot be charged for these resources. */
  constraints?(required: string[], obj: T): string | undefined;
}

/** An evaluator of one kind, for callers that hold objects of any kind: evaluatorFor picks it by resource, so the objects it gets are of its kind. */
const forKind = <T>(ev: QuotaEvaluator<T>) => ev as unknown as QuotaEvaluator;

const one = () => quantityFromInt(1);
const legacyCountNames = new Set(['configmaps', 'secrets', 'replicationcontrollers', 'resourcequotas']);

/** `count/<resource>` for the core group, `count/<resource>.<group>` otherwise. */
export const objectCountName = (group: string, plural: string) => (group ? `count/${plural}.${group}` : `count/${plural}`);

function objectCountEvaluator(group: string, plural: string): QuotaEvaluator {
  const names = new Set([objectCountName(group, plural)]);
  if (!group && legacyCountNames.has(plural)) names.add(plural);
  return {
    handles: (n) => names.has(n),
    usage: () => new Map([...names].map((n) => [n, one()])),
    matchesScope: () => false,
  };
}

const podComputeNames = new Set(['pods', 'count/pods', 'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory',
  'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage']);
const isExtendedRequest = (n: string) => n.startsWith('requests.') && n.includes('/');

/** QuotaV1Pod: terminal pods, and pods past their deletion grace period, no longer count compute resources. */
export function podCountsCompute(pod: Pod, now: Date): boolean {
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return false;
  const ts = pod.metadata?.deletionTimestamp;
  if (ts && pod.metadata?.deletionGracePeriodSeconds != null) {
    return now.getTime() <= new Date(ts).getTime() + pod.metadata.deletionGracePeriodSeconds * 1000;
  }
  return true;
}

/** podComputeUsageHelper: requests count as `<r>` and `requests.<r>`, limits as `limits.<r>`; hugepages and extended resources as requests. */
function podComputeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = new Map([['pods', one()]]);
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    const req = requests.get(r);
    if (req) { out.set(r, req); out.set(`requests.${r}`, req); }
    const lim = limits.get(r);
    if (lim) out.set(`limits.${r}`, lim);
  }
  for (const [r, q] of requests) {
    if (r.startsWith('hugepages-')) { out.set(r, q); out.set(`requests.${r}`, q); }
    if (r.includes('/') && !r.includes('kubernetes.io/')) out.set(`requests.${r}`, q);
  }
  return out;
}

/** validationSet: the resources every container must name once a quota limits them. */
const constrained = ['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'];

/** podEvaluator.Constraints: `must specify limits.cpu for: a,b; requests.memory for: a`. */
function podConstraints(required: string[], pod: Pod): string | undefined {
  const wanted = required.filter((r) => constrained.includes(r));
  const missing = new Map<string, string[]>();
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    const has = podComputeUsage(parseResourceList(c.resources?.requests), parseResourceList(c.resources?.limits));
    for (const r of wanted) if (!has.has(r)) missing.set(r, [...(missing.get(r) ?? []), c.name]);
  }
  if (missing.size === 0) return undefined;
  const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...new Set(missing.get(r))].sort().join(',')}`);
  return `must specify ${parts.join('; ')}`;
}

const podEvaluator = forKind<Pod>({
  handles: (n) => podComputeNames.has(n) || n.startsWith('hugepages-') || n.startsWith('requests.hugepages-') || isExtendedRequest(n),
  usage(pod: Pod, now) {
    // count/pods counts every pod in storage; the rest only live ones.
    const base: ResourceList = new Map([['count/pods', one()]]);
    if (!podCountsCompute(pod, now)) return base;
    return addLists(base, podComputeUsage(podRequests(pod.spec), podLimits(pod.spec)));
  },
  matchesScope: podMatchesScope,
  constraints: podConstraints,
});

const serviceNames = new Set(['services', 'count/services', 'services.loadbalancers', 'services.nodeports']);
const serviceEvaluator = forKind<Service>({
  handles: (n) => serviceNames.has(n),
  usage(svc) {
    const out: ResourceList = new Map([['services', one()], ['count/services', one()]]);
    const ports = (svc.spec?.ports ?? []).length;
    const type = svc.spec?.type ?? 'ClusterIP';
    if (type === 'NodePort') out.set('services.nodeports', quantityFromInt(ports));
    if (type === 'LoadBalancer') {
      out.set('services.loadbalancers', one());
      if (svc.spec?.allocateLoadBalancerNodePorts !== false) out.set('services.nodeports', quantityFromInt(ports));
    }
    return out;
  },
  matchesScope: () => false,
});

const storageClassSuffix = '.storageclass.storage.k8s.io/';
const pvcNames = new Set(['persistentvolumeclaims', 'count/persistentvolumeclaims', 'requests.storage']);
const pvcEvaluator = forKind<PersistentVolumeClaim>({
  handles: (n) => pvcNames.has(n) || n.endsWith(`${storageClassSuffix}requests.storage`) || n.endsWith(`${storageClassSuffix}persistentvolumeclaims`),
  usage(pvc) {
    const out: ResourceList = new Map([['persistentvolumeclaims', one()], ['count/persistentvolumeclaims', one()]]);
    const cls: string | undefined = pvc.spec?.storageClassName;
    if (cls) out.set(`${cls}${storageClassSuffix}persistentvolumeclaims`, one());
    const storage = parseResourceList(pvc.spec?.resources?.requests).get('storage');
    if (storage) {
      out.set('requests.storage', storage);
      if (cls) out.set(`${cls}${storageClassSuffix}requests.storage`, storage);
    }
    return out;
  },
  matchesScope: () => false,
});

/** The evaluator of a namespaced resource. */
export function evaluatorFor(group: string, plural: string): QuotaEvaluator {
  if (!group && plural === 'pods') return podEvaluator;
  if (!group && plural === 'services') return serviceEvaluator;
  if (!group && plural === 'persistentvolumeclaims') return pvcEvaluator;
  return objectCountEvaluator(group, plural);
}
