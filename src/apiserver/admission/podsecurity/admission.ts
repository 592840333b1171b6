/**
 * The PodSecurity admission plugin (upstream's built-in pod-security-admission
 * with its default configuration: every level privileged unless a namespace's
 * labels say otherwise, no exemptions):
 * - pods (create, and updates that change an image or add an ephemeral
 *   container) are refused with 403 when they violate the namespace's enforce
 *   level, and warned about (a Warning header, which kubectl prints) when they
 *   violate its warn level;
 * - workloads with a pod template (Deployments, StatefulSets, DaemonSets, Jobs,
 *   CronJobs, ReplicaSets, ReplicationControllers, PodTemplates) are only
 *   warned about, as upstream: their pods are what enforce refuses;
 * - namespaces with invalid pod-security labels are refused (422), and a
 *   namespace whose enforce level becomes stricter answers with warnings
 *   naming the existing pods that would now be refused.
 * It reads namespaces from the watch-fed cache, so a pod create in a namespace
 * without labels costs one map lookup. Audit annotations are not kept (k8ts
 * writes no audit log).
 */
import type { Namespace, Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { ResourceInfo } from '../../../api/resources.js';
import { forbiddenStatus, invalidObject, internalError, StatusError } from '../../../api/status.js';
import type { Lister } from '../../../registry/lister.js';
import { addWarning } from '../../request-warnings.js';
import type { RequestContext } from '../../request-context.js';
import { evaluatePod } from './checks.js';
import { compareLevels, fullyPrivileged, levelVersionString, maxKnownVersion, policyToEvaluate, sameLevelVersion, type LevelVersion } from './levels.js';

type Obj = { metadata?: ObjectMeta; spec?: Record<string, unknown> } & Record<string, unknown>;
type Template = { metadata?: ObjectMeta; spec?: PodSpec };

/** Where each workload kind keeps its pod template (upstream's DefaultPodSpecExtractor). */
function podTemplateOf(info: ResourceInfo, obj: Obj): Template | undefined {
  const spec = obj.spec as { template?: Template; jobTemplate?: { spec?: { template?: Template } } } | undefined;
  switch (`${info.group}/${info.plural}`) {
    case '/podtemplates': return (obj as { template?: Template }).template;
    case '/replicationcontrollers': case 'apps/replicasets': case 'apps/deployments':
    case 'apps/statefulsets': case 'apps/daemonsets': case 'batch/jobs':
      return spec?.template;
    case 'batch/cronjobs': return spec?.jobTemplate?.spec?.template;
    default: return undefined;
  }
}

const withTemplates = new Set(['/podtemplates', '/replicationcontrollers', 'apps/replicasets', 'apps/deployments', 'apps/statefulsets', 'apps/daemonsets', 'batch/jobs', 'batch/cronjobs']);
const ignoredPodSubresources = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status']);

/** An update worth checking again: a container added, removed or given another image; an ephemeral container added or changed. */
function isSignificantPodUpdate(pod: Pod, old: Pod): boolean {
  const [s, o] = [pod.spec ?? { containers: [] }, old.spec ?? { containers: [] }];
  if ((s.containers ?? []).length !== (o.containers ?? []).length) return true;
  if ((s.initContainers ?? []).length !== (o.initContainers ?? []).length) return true;
  if ((s.containers ?? []).some((c, i) => c.image !== o.containers[i].image)) return true;
  if ((s.initContainers ?? []).some((c, i) => c.image !== o.initContainers![i].image)) return true;
  for (const c of s.ephemeralContainers ?? []) {
    const before = (o.ephemeralContainers ?? []).find((e) => e.name === c.name);
    if (!before || before.image !== c.image) return true;
  }
  return false;
}

export interface PodSecurityDeps {
  namespaces: Lister<Namespace>;
  /** A namespace the cache has not seen yet (created just now): read from storage, as upstream's live lookup (a 404 StatusError when absent). */
  getNamespace(name: string): Promise<Namespace>;
  /** The pods of a namespace, for the warnings of a stricter enforce level (served from the watch cache). */
  listPods(namespace: string): Promise<Pod[]>;
}

/**
 * The policy of a namespace from the watch-fed cache, parsed once per object: every pod create
 * asks for its namespace's, and a cached Namespace is never mutated (a change is a new object).
 * A namespace read from storage is parsed each time. The answer is only read.
 */
const policies = new WeakMap<Namespace, ReturnType<typeof policyToEvaluate>>();

function namespacePolicy(ns: Namespace): ReturnType<typeof policyToEvaluate> {
  let p = policies.get(ns);
  if (!p) policies.set(ns, (p = policyToEvaluate(ns.metadata?.labels)));
  return p;
}

/** At most this many existing pods are checked when a namespace's enforce level changes (upstream's default). */
const namespaceMaxPodsToCheck = 3000;

export function podSecurityAdmission(deps: PodSecurityDeps) {
  const resultFor = (lv: LevelVersion, meta: ObjectMeta, spec: PodSpec) => evaluatePod(lv.level, lv.version, maxKnownVersion, meta, spec);

  async function validateNamespace(op: 'create' | 'update', ns: Namespace, old: Namespace | undefined, ctx: RequestContext | undefined): Promise<void> {
    const next = policyToEvaluate(ns.metadata?.labels);
    if (op === 'create') {
      if (next.errors.length) throw invalidObject('Namespace', '', ns.metadata?.name ?? '', next.errors);
      return;
    }
    const before = policyToEvaluate(old?.metadata?.labels);
    if (next.errors.length && (!before.errors.length || JSON.stringify(next.errors) !== JSON.stringify(before.errors))) {
      throw invalidObject('Namespace', '', ns.metadata?.name ?? '', next.errors);
    }
    const [e, was] = [next.policy.enforce, before.policy.enforce];
    if (sameLevelVersion(e, was) || e.level === 'privileged') return;
    if (e.version === was.version && compareLevels(e.level, was.level) < 1) return;
    for (const w of await podWarnings(ns.metadata!.name!, e)) addWarning(ctx, w);
  }

  /** Upstream's EvaluatePodsInNamespace: one warning per distinct set of reasons, naming the first pod and counting the others. */
  async function podWarnings(namespace: string, enforce: LevelVersion): Promise<string[]> {
    let pods: Pod[];
    try {
      pods = await deps.listPods(namespace);
    } catch {
      return ['failed to list pods while checking new PodSecurity enforce level'];
    }
    // One pod per controller first, so the checked pods cover as many workloads as possible.
    const seen = new Set<string>();
    const first: Pod[] = [];
    const rest: Pod[] = [];
    for (const p of pods) {
      const owner = p.metadata?.ownerReferences?.find((r) => r.controller);
      if (!owner) first.push(p);
      else if (seen.has(owner.uid)) rest.push(p);
      else { seen.add(owner.uid); first.push(p); }
    }
    const ordered = [...first, ...rest];
    const checked = ordered.slice(0, namespaceMaxPodsToCheck);
    const byReason = new Map<string, { pod: string; count: number }>();
    for (const p of checked) {
      const r = resultFor(enforce, p.metadata ?? {}, p.spec ?? { containers: [] });
      if (r.allowed) continue;
      const reason = r.reasons.join(', ');
      const name = p.metadata?.name ?? '';
      const c = byReason.get(reason);
      if (!c) byReason.set(reason, { pod: name, count: 1 });
      else { c.count++; if (name < c.pod) c.pod = name; }
    }
    const warnings: string[] = [];
    if (checked.length < ordered.length) warnings.push(`new PodSecurity enforce level only checked against the first ${checked.length} of ${ordered.length} existing pods`);
    if (byReason.size) warnings.push(`existing pods in namespace "${namespace}" violate the new PodSecurity enforce level "${levelVersionString(enforce)}"`);
    const podLines = [...byReason].map(([reason, c]) => {
      if (c.count === 1) return `${c.pod}: ${reason}`;
      if (c.count === 2) return `${c.pod} (and 1 other pod): ${reason}`;
      return `${c.pod} (and ${c.count - 1} other pods): ${reason}`;
    }).sort();
    return [...warnings, ...podLines];
  }

  /** Checks at once when the namespace is cached (no promise to wait for), else after a live read. */
  function evaluate(info: ResourceInfo, namespace: string, name: string, meta: ObjectMeta, spec: PodSpec, enforce: boolean, ctx: RequestContext | undefined): Promise<void> | void {
    const cached = deps.namespaces.get(undefined, namespace);
    if (cached) return evaluateIn(cached, info, namespace, name, meta, spec, enforce, ctx);
    return deps.getNamespace(namespace).catch((e: unknown) => {
      if (e instanceof StatusError && e.code === 404) return undefined;
      throw e;
    }).then((ns) => evaluateIn(ns, info, namespace, name, meta, spec, enforce, ctx));
  }

  function evaluateIn(
    ns: Namespace | undefined, info: ResourceInfo, namespace: string, name: string, meta: ObjectMeta, spec: PodSpec, enforce: boolean, ctx: RequestContext | undefined,
  ): void {
    // Upstream's lookup failure is a 500 for pods and nothing for workloads.
    if (!ns) {
      if (enforce) throw internalError(`failed to lookup namespace "${namespace}"`);
      return;
    }
    const { policy, errors } = namespacePolicy(ns);
    if (!errors.length && fullyPrivileged(policy)) return;
    if (enforce) {
      const r = resultFor(policy.enforce, meta, spec);
      if (!r.allowed) {
        throw forbiddenStatus(`violates PodSecurity "${levelVersionString(policy.enforce)}": ${r.detail}`, { group: info.group, resource: info.plural }, name);
      }
    }
    if (policy.warn.level === 'privileged') return;
    if (enforce && sameLevelVersion(policy.warn, policy.enforce)) return; // already allowed at that level
    const w = resultFor(policy.warn, meta, spec);
    if (!w.allowed) addWarning(ctx, `would violate PodSecurity "${levelVersionString(policy.warn)}": ${w.detail}`);
  }

  return {
    /** A promise only when there is something to wait for (a namespace read or an update's pod list). */
    validate(op: 'create' | 'update', info: ResourceInfo, obj: Obj, old: Obj | undefined, opts: { subresource?: string }, ctx?: RequestContext): Promise<void> | void {
      const gr = `${info.group}/${info.plural}`;
      if (gr === '/namespaces') {
        if (!opts.subresource) return validateNamespace(op, obj as Namespace, old as Namespace | undefined, ctx);
        return;
      }
      const namespace = obj.metadata?.namespace;
      if (!namespace) return;
      const name = obj.metadata?.name ?? '';
      if (gr === '/pods') {
        if (opts.subresource && ignoredPodSubresources.has(opts.subresource)) return;
        if (op === 'update' && old && !isSignificantPodUpdate(obj as Pod, old as Pod)) return;
        const pod = obj as Pod;
        return evaluate(info, namespace, name, pod.metadata ?? {}, pod.spec ?? { containers: [] }, true, ctx);
      }
      if (!withTemplates.has(gr) || opts.subresource) return;
      const template = podTemplateOf(info, obj);
      if (!template) return;
      return evaluate(info, namespace, name, template.metadata ?? {}, template.spec ?? { containers: [] }, false, ctx);
    },
  };
}
