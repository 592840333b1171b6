/** The Job controller and the pure rules it is built from. */
export { jobController, JobController } from './controller.js';
export { planJob, maxPodCreateDeletePerSync } from './plan.js';
export type { JobPlan, PlanInput, PlanEvent } from './plan.js';
export { trackFinished, countUncounted, failsIndex } from './track.js';
export { matchPodFailurePolicy } from './failure-policy.js';
export { backoffDelayMs, nextBackoffRecord, remainingBackoffMs, emptyBackoff } from './backoff.js';
export type { BackoffRecord } from './backoff.js';
export { parseIndexes, formatIndexes, podIndex, completionIndexAnnotation } from './indexes.js';
export { newJobPod, jobTrackingFinalizer, isPodFailed } from './pods.js';
