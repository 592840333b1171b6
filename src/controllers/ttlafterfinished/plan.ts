/**
 * When a finished Job expires (upstream pkg/controller/ttlafterfinished):
 * ttlSecondsAfterFinished after the Complete or Failed condition's
 * lastTransitionTime. Jobs without the field, or not finished, never expire.
 */
import type { Job } from 'kubernetes-types/batch/v1.js';

/** The finish time: when the terminal condition became True. */
export function jobFinishTime(job: Job): number | undefined {
  const c = (job.status?.conditions ?? []).find((x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True');
  if (!c) return undefined;
  const t = Date.parse(c.lastTransitionTime ?? '');
  return Number.isNaN(t) ? undefined : t;
}

/** Milliseconds until the Job may be deleted (≤ 0: now), or undefined when it never expires. */
export function timeLeft(job: Job, now: number): number | undefined {
  const ttl = job.spec?.ttlSecondsAfterFinished;
  if (ttl == null || job.metadata?.deletionTimestamp) return undefined;
  const finished = jobFinishTime(job);
  if (finished === undefined) return undefined;
  return finished + ttl * 1000 - now;
}
