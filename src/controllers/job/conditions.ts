/**
 * Job conditions (upstream 1.32 job_controller.go): a Job that met its
 * success criteria gets SuccessCriteriaMet, then Complete once no pod is
 * left terminating; a failing Job gets FailureTarget, then Failed the same
 * way; both carry the same reason and message. Suspended is True while the
 * Job is suspended and False (JobResumed) after.
 */
import type { JobCondition } from 'kubernetes-types/batch/v1.js';

export const hasCondition = (conds: JobCondition[] | undefined, type: string) => (conds ?? []).some((c) => c.type === type && c.status === 'True');

export const conditionOf = (conds: JobCondition[] | undefined, type: string) => (conds ?? []).find((c) => c.type === type && c.status === 'True');

export const isFinished = (conds: JobCondition[] | undefined) => hasCondition(conds, 'Complete') || hasCondition(conds, 'Failed');

/**
 * ensureJobConditionStatus: adds the condition (at the end) or changes an
 * existing one of the type; returns whether anything changed. Reason and
 * message of an unchanged status are kept, as upstream does.
 */
export function setCondition(conds: JobCondition[], type: string, status: string, reason: string, message: string, now: string): boolean {
  const cur = conds.find((c) => c.type === type);
  if (!cur) {
    if (status !== 'True') return false;
    conds.push({ type, status, reason, message, lastProbeTime: now, lastTransitionTime: now });
    return true;
  }
  if (cur.status === status) return false;
  Object.assign(cur, { status, reason, message, lastProbeTime: now, lastTransitionTime: now });
  return true;
}
