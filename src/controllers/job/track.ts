/**
 * Tracking finished pods with the job-tracking finalizer (upstream
 * trackJobStatusAndRemoveFinalizers), in three steps the controller runs in
 * order, so no pod is counted twice or lost:
 *   1. trackFinished: pods that finished while still holding the finalizer
 *      go into status.uncountedTerminatedPods (with their completed or
 *      failed index, and a FailJob match's FailureTarget);
 *   2. the controller removes their finalizers (and those of ignored
 *      failures, and of every pod once the Job is finished);
 *   3. countUncounted: uids whose pod is gone or has lost the finalizer move
 *      into the succeeded and failed counters.
 */
import type { Job, JobStatus } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { matchPodFailurePolicy } from './failure-policy.js';
import { formatIndexes, parseIndexes, podIndex, podIndexFailureCount } from './indexes.js';
import { finishTime, hasTrackingFinalizer, isPodFailed, isSucceeded } from './pods.js';
import { isFinished } from './conditions.js';

export interface FinishedPod { pod: Pod; failed: boolean; at: number }

export interface TrackResult {
  status: JobStatus;
  /** Pods newly recorded, for the back-off record. */
  finished: FinishedPod[];
  /** FailJob matched (or an index failure) to report: reason and message of FailureTarget. */
  failureTarget?: { reason: string; message: string };
  /** Pods whose finalizer can go now. */
  finalizersToRemove: Pod[];
}

const isIndexed = (job: Job) => job.spec?.completionMode === 'Indexed';

/** Whether a failed pod fails its index (FailIndex, or backoffLimitPerIndex exhausted). */
export function failsIndex(job: Job, pod: Pod, action: string | undefined): boolean {
  if (action === 'FailIndex') return true;
  const limit = job.spec?.backoffLimitPerIndex;
  return limit != null && action !== 'Ignore' && podIndexFailureCount(pod) + 1 > limit;
}

/** Step 1: the new status with newly finished pods recorded as uncounted. */
export function trackFinished(job: Job, pods: Pod[], now: number): TrackResult {
  const status: JobStatus = structuredClone(job.status ?? {});
  const uncounted = { succeeded: [...(status.uncountedTerminatedPods?.succeeded ?? [])], failed: [...(status.uncountedTerminatedPods?.failed ?? [])] };
  const known = new Set([...uncounted.succeeded, ...uncounted.failed]);
  const completions = job.spec?.completions ?? 0;
  const completed = parseIndexes(status.completedIndexes, completions);
  const failedIdx = parseIndexes(status.failedIndexes, completions);
  const result: TrackResult = { status, finished: [], finalizersToRemove: [] };
  const finished = isFinished(status.conditions);
  for (const pod of pods) {
    if (!hasTrackingFinalizer(pod)) continue;
    const uid = pod.metadata!.uid!;
    if (known.has(uid)) { result.finalizersToRemove.push(pod); continue; }
    const succeeded = isSucceeded(pod);
    const failed = !succeeded && isPodFailed(pod, job);
    if (!succeeded && !failed) { if (finished) result.finalizersToRemove.push(pod); continue; }
    result.finalizersToRemove.push(pod);
    const index = isIndexed(job) ? podIndex(pod, completions) : undefined;
    if (succeeded) {
      // A success of an index that already failed (or a duplicate) is not counted again.
      if (isIndexed(job) && (index === undefined || failedIdx.has(index) || completed.has(index))) continue;
      uncounted.succeeded.push(uid);
      if (index !== undefined) completed.add(index);
      result.finished.push({ pod, failed: false, at: finishTime(pod, now) });
      continue;
    }
    const match = pod.status?.phase === 'Failed' ? matchPodFailurePolicy(job.spec, pod) : undefined;
    if (match?.action === 'Ignore') continue;
    uncounted.failed.push(uid);
    result.finished.push({ pod, failed: true, at: finishTime(pod, now) });
    if (match?.action === 'FailJob' && !result.failureTarget) result.failureTarget = { reason: 'PodFailurePolicy', message: match.message ?? '' };
    if (index !== undefined && !completed.has(index) && failsIndex(job, pod, match?.action)) failedIdx.add(index);
  }
  status.uncountedTerminatedPods = { ...(uncounted.succeeded.length ? { succeeded: uncounted.succeeded } : {}), ...(uncounted.failed.length ? { failed: uncounted.failed } : {}) };
  if (isIndexed(job)) {
    status.completedIndexes = formatIndexes(completed);
    if (job.spec?.backoffLimitPerIndex != null) status.failedIndexes = formatIndexes(failedIdx);
  }
  return result;
}

/** Step 3: uncounted uids whose pods no longer hold the finalizer (or are gone) become counts. */
export function countUncounted(status: JobStatus, pods: Pod[]): JobStatus {
  const holding = new Set(pods.filter(hasTrackingFinalizer).map((p) => p.metadata!.uid!));
  const next: JobStatus = structuredClone(status);
  const u = status.uncountedTerminatedPods ?? {};
  const doneS = (u.succeeded ?? []).filter((uid) => !holding.has(uid));
  const doneF = (u.failed ?? []).filter((uid) => !holding.has(uid));
  next.succeeded = (status.succeeded ?? 0) + doneS.length;
  next.failed = (status.failed ?? 0) + doneF.length;
  const restS = (u.succeeded ?? []).filter((uid) => holding.has(uid));
  const restF = (u.failed ?? []).filter((uid) => holding.has(uid));
  next.uncountedTerminatedPods = { ...(restS.length ? { succeeded: restS } : {}), ...(restF.length ? { failed: restF } : {}) };
  return next;
}
