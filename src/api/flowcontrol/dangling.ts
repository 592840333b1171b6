/**
 * A FlowSchema's `Dangling` condition, as kube-apiserver's APF configuration
 * consumer writes it: False (reason Found) while the priority level it names
 * exists, True (reason NotFound) otherwise. `kubectl get flowschemas` shows its
 * status as MISSINGPL.
 */
import type { FlowSchema, FlowSchemaCondition } from 'kubernetes-types/flowcontrol/v1.js';

export function danglingCondition(fs: FlowSchema, levelExists: boolean, now: string): FlowSchemaCondition {
  const level = JSON.stringify(fs.spec?.priorityLevelConfiguration?.name ?? '');
  return levelExists
    ? { type: 'Dangling', status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named ${level} and it exists`, lastTransitionTime: now }
    : { type: 'Dangling', status: 'True', reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named ${level} but there is no such object`, lastTransitionTime: now };
}

/** Whether the schema's condition already says what `wanted` says (its time aside): then nothing is written. */
export function danglingUpToDate(fs: FlowSchema, wanted: FlowSchemaCondition): boolean {
  const cur = fs.status?.conditions?.find((c) => c.type === 'Dangling');
  return !!cur && cur.status === wanted.status && cur.reason === wanted.reason && cur.message === wanted.message;
}
