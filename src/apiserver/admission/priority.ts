/**
 * Priority admission (upstream plugin/pkg/admission/priority):
 * - a pod gets spec.priority and spec.preemptionPolicy from its
 *   priorityClassName; without one, from the globalDefault class (the lowest
 *   value when several claim it), else priority 0 and PreemptLowerPriority;
 *   a class that does not exist is refused (`no PriorityClass with name x
 *   was found`), and so is a pod spelling out a priority or policy that
 *   differs from its class's;
 * - an update that leaves spec.priority or spec.preemptionPolicy out keeps
 *   the values set at creation (so `kubectl replace` of the original
 *   manifest is not refused as a spec change);
 * - a PriorityClass may be marked globalDefault only when no other one is.
 * Classes are read from the watch-fed cache, as upstream's plugin reads its
 * PriorityClass lister: a pod create lists nothing.
 */
import type { ResourceInfo } from '../../api/resources.js';
import { forbiddenStatus, type GroupResource } from '../../api/status.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import type { Lister } from '../../registry/lister.js';

const preemptLowerPriority = 'PreemptLowerPriority';

interface Computed { className: string; priority: number; preemptionPolicy: string }

/** getDefaultPriorityClass: the globalDefault class with the lowest value, if any. */
export function defaultPriorityClass(classes: readonly any[]): any | undefined {
  let best: any;
  for (const pc of classes) if (pc.globalDefault && (!best || pc.value < best.value)) best = pc;
  return best;
}

export function priorityAdmission(priorityClasses: Lister<PriorityClass>) {
  const classes = () => priorityClasses.list() as any[];
  return (op: 'create' | 'update', info: ResourceInfo, obj: any, old?: any): void => {
    if (info.group === 'scheduling.k8s.io' && info.plural === 'priorityclasses') {
      checkSingleDefault(obj, old, classes(), { group: info.group, resource: info.plural });
      return;
    }
    if (info.group !== '' || info.plural !== 'pods') return;
    if (op === 'update') {
      preserveOnUpdate(obj, old);
      return;
    }
    const gr = { group: '', resource: 'pods' };
    const spec = obj.spec ?? (obj.spec = {});
    const computed = computePriority(spec.priorityClassName, classes());
    const name = obj.metadata?.name;
    if (!computed) throw forbiddenStatus(`no PriorityClass with name ${spec.priorityClassName} was found`, gr, name);
    if (spec.priority !== undefined && spec.priority !== null && spec.priority !== computed.priority) {
      throw forbiddenStatus(`the integer value of priority (${spec.priority}) must not be provided in pod spec; `
        + `priority admission controller computed ${computed.priority} from the given PriorityClass name`, gr, name);
    }
    if (spec.preemptionPolicy && spec.preemptionPolicy !== computed.preemptionPolicy) {
      throw forbiddenStatus(`the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; `
        + `priority admission controller computed ${computed.preemptionPolicy} from the given PriorityClass name`, gr, name);
    }
    if (computed.className) spec.priorityClassName = computed.className;
    spec.priority = computed.priority;
    spec.preemptionPolicy = computed.preemptionPolicy;
  };
}

/** Upstream keeps what this plugin set on create; validation refuses any other change of these fields. */
function preserveOnUpdate(pod: any, old: any): void {
  const spec = pod.spec ?? (pod.spec = {});
  if ((spec.priority === undefined || spec.priority === null) && old?.spec?.priority !== undefined) spec.priority = old.spec.priority;
  if (!spec.preemptionPolicy && old?.spec?.preemptionPolicy) spec.preemptionPolicy = old.spec.preemptionPolicy;
}

/** The pod's priority from its class, the default class, or 0; undefined when the named class does not exist. */
export function computePriority(className: string | undefined, classes: readonly any[]): Computed | undefined {
  const pc = className ? classes.find((c) => c.metadata?.name === className) : defaultPriorityClass(classes);
  if (className && !pc) return undefined;
  if (!pc) return { className: '', priority: 0, preemptionPolicy: preemptLowerPriority };
  return { className: pc.metadata.name, priority: pc.value ?? 0, preemptionPolicy: pc.preemptionPolicy ?? preemptLowerPriority };
}

function checkSingleDefault(pc: any, old: any, classes: readonly any[], gr: GroupResource): void {
  if (!pc.globalDefault || old?.globalDefault) return;
  const other = classes.find((c) => c.globalDefault && c.metadata?.name !== pc.metadata?.name);
  if (other) throw forbiddenStatus(`PriorityClass ${other.metadata.name} is already marked as default. Only one default can exist`, gr, pc.metadata?.name);
}
