/**
 * Admission: mutations upstream's default admission plugins make on create.
 * - DefaultTolerationSeconds: not-ready/unreachable NoExecute tolerations of 300 s.
 * - ServiceAccount: spec.serviceAccountName defaults to "default".
 * - Priority: spec.priority 0 and preemptionPolicy PreemptLowerPriority without a class.
 */
import type { ResourceInfo } from '../../api/resources.js';

const defaultTolerationSeconds = 300;
const notReadyTaint = 'node.kubernetes.io/not-ready';
const unreachableTaint = 'node.kubernetes.io/unreachable';

export function admit(op: 'create' | 'update', info: ResourceInfo, obj: any): void {
  if (op !== 'create' || info.group !== '' || info.plural !== 'pods') return;
  const spec = obj.spec ?? (obj.spec = {});
  addDefaultTolerations(spec);
  if (!spec.serviceAccountName) spec.serviceAccountName = spec.serviceAccount || 'default';
  spec.serviceAccount = spec.serviceAccountName;
  if (spec.priority === undefined && !spec.priorityClassName) spec.priority = 0;
  if (!spec.preemptionPolicy) spec.preemptionPolicy = 'PreemptLowerPriority';
}

/** Adds each toleration unless one already tolerates the taint's NoExecute effect (upstream's check). */
function addDefaultTolerations(spec: any): void {
  const tolerations: any[] = spec.tolerations ?? [];
  const tolerates = (key: string) => tolerations.some((t) =>
    (t.effect === 'NoExecute' || !t.effect) && (t.key === key || (!t.key && t.operator === 'Exists')));
  for (const key of [notReadyTaint, unreachableTaint]) {
    if (!tolerates(key)) tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: defaultTolerationSeconds });
  }
  spec.tolerations = tolerations;
}
