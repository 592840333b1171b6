/**
 * RuntimeClass admission (upstream plugin/pkg/admission/runtimeclass), on pod
 * creation only:
 * - a pod naming a RuntimeClass that does not exist is refused
 *   (`pod rejected: RuntimeClass "x" not found`);
 * - the class's overhead.podFixed becomes spec.overhead (what the scheduler,
 *   the kubelet's admission, quota and `kubectl describe node` add to the
 *   containers' requests); a pod giving an overhead of its own that differs,
 *   or one without a class that has an overhead, is refused;
 * - the class's scheduling.nodeSelector is merged into the pod's (a key with
 *   another value is a conflict) and its tolerations into the pod's.
 * Classes come from the watch-fed cache; a miss is looked up in storage, as
 * upstream's plugin does when its informer could be lagging behind a class
 * just created (the Pod Overhead page creates the class, then the pod).
 */
import type { Pod, Toleration } from 'kubernetes-types/core/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import type { ResourceInfo } from '../../api/resources.js';
import { forbiddenStatus } from '../../api/status.js';
import { compareQuantities } from '../../api/quantity.js';
import { parseResourceList } from '../../api/quota/arithmetic.js';
import { mergeTolerations } from '../../api/tolerations.js';
import type { Lister } from '../../registry/lister.js';

const gr = { group: '', resource: 'pods' };

export interface RuntimeClassSource {
  classes: Pick<Lister<RuntimeClass>, 'get'>;
  /** A live read of one class (storage), undefined when it does not exist. */
  lookup(name: string): Promise<RuntimeClass | undefined>;
}

export function runtimeClassAdmission(source: RuntimeClassSource) {
  /** The pod's class; undefined without runtimeClassName; a pending read on a cache miss. */
  const classOf = (pod: Pod): RuntimeClass | undefined | Promise<RuntimeClass | undefined> => {
    const name = pod.spec?.runtimeClassName;
    if (!name) return undefined;
    const cached = source.classes.get(undefined, name);
    if (cached) return cached;
    return source.lookup(name).then((rc) => {
      if (!rc) throw forbiddenStatus(`pod rejected: RuntimeClass "${name}" not found`, gr, pod.metadata?.name);
      return rc;
    });
  };
  const applies = (op: string, info: ResourceInfo) => op === 'create' && info.group === '' && info.plural === 'pods';
  /** Runs `then` with the class, at once when it was in the cache. */
  const withClass = (pod: Pod, then: (rc: RuntimeClass | undefined) => void): Promise<void> | void => {
    const rc = classOf(pod);
    if (rc instanceof Promise) return rc.then(then);
    then(rc);
  };
  return {
    admit: (op: string, info: ResourceInfo, pod: Pod): Promise<void> | void => applies(op, info)
      ? withClass(pod, (rc) => { setOverhead(pod, rc); setScheduling(pod, rc); }) : undefined,
    validate: (op: string, info: ResourceInfo, pod: Pod): Promise<void> | void => applies(op, info)
      ? withClass(pod, (rc) => validateOverhead(pod, rc)) : undefined,
  };
}

/** Semantic equality of two ResourceLists: the same names, each quantity equal in value (absent and empty alike). */
function sameResources(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  const x = parseResourceList(a); const y = parseResourceList(b);
  if (x.size !== y.size) return false;
  for (const [k, q] of x) if (!y.has(k) || compareQuantities(q, y.get(k)!) !== 0) return false;
  return true;
}

const overheadMismatch = (pod: Pod) => forbiddenStatus("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead", gr, pod.metadata?.name);

function setOverhead(pod: Pod, rc: RuntimeClass | undefined): void {
  const fixed = rc?.overhead?.podFixed;
  if (!rc?.overhead) return;
  const spec = pod.spec!;
  if (spec.overhead && !sameResources(fixed, spec.overhead)) throw overheadMismatch(pod);
  if (fixed) spec.overhead = { ...fixed };
  else delete spec.overhead;
}

function setScheduling(pod: Pod, rc: RuntimeClass | undefined): void {
  const scheduling = rc?.scheduling;
  if (!scheduling) return;
  const spec = pod.spec!;
  const selector = spec.nodeSelector;
  if (!selector) {
    if (scheduling.nodeSelector) spec.nodeSelector = { ...scheduling.nodeSelector };
  } else {
    for (const [key, value] of Object.entries(scheduling.nodeSelector ?? {})) {
      const own = selector[key];
      if (own !== undefined && own !== value) {
        throw forbiddenStatus(`conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${value}; pod.spec.nodeSelector[${key}] = ${own}`, gr, pod.metadata?.name);
      }
      selector[key] = value;
    }
  }
  const merged: Toleration[] = mergeTolerations(spec.tolerations, scheduling.tolerations);
  if (merged.length) spec.tolerations = merged;
  else delete spec.tolerations;
}

/** What the validating phase checks again, after the mutating webhooks. */
function validateOverhead(pod: Pod, rc: RuntimeClass | undefined): void {
  if (rc?.overhead) {
    if (!sameResources(rc.overhead.podFixed, pod.spec?.overhead)) throw overheadMismatch(pod);
  } else if (pod.spec?.overhead) {
    throw forbiddenStatus('pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead', gr, pod.metadata?.name);
  }
}
