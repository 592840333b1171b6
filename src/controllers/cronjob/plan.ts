/**
 * One CronJob sync as pure planning (upstream cronjob_controllerv2.go syncCronJob):
 *   1. status.active keeps the Jobs that exist and run; a finished one leaves
 *      it ("SawCompletedJob"), a listed one that is gone leaves it too
 *      ("MissingJob"), and any Complete Job advances lastSuccessfulTime. A
 *      running Job it owns but does not list (kubectl create job --from=cronjob/x)
 *      is not adopted: upstream only warns "UnexpectedJob" (adoption is left
 *      open in its code), so the Job counts for no concurrency policy.
 *      The caller reads the Jobs listed but not cached, and a fresh CronJob when
 *      one runs unlisted, from the API server first, as upstream does.
 *   2. Finished Jobs beyond successfulJobsHistoryLimit / failedJobsHistoryLimit
 *      are deleted, the oldest first.
 *   3. Being deleted, suspended, an unknown time zone or an unparseable
 *      schedule: nothing is started.
 *   4. The most recent missed schedule time (if any; "too many missed start
 *      times" past 100) is started unless it is past startingDeadlineSeconds,
 *      already started, or — with Forbid — a Job still runs; with Replace the
 *      running Jobs are deleted first.
 *   5. The next sync is due at the next schedule time.
 */
import type { CronJob, CronJobStatus, Job } from 'kubernetes-types/batch/v1.js';
import type { ObjectReference } from 'kubernetes-types/core/v1.js';
import { knownTimeZone, parseSchedule } from '../../api/cron.js';
import { jobNameFor, mostRecentScheduleTime, rfc3339In, tooManyMissed } from './schedule.js';

export const scheduledTimestampAnnotation = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

export interface PlanEvent { type: 'Normal' | 'Warning'; reason: string; message: string }

export interface CronJobPlan {
  status: CronJobStatus;
  /** Jobs to delete (background propagation): history beyond the limits, or replaced ones. */
  deleteJobs: Job[];
  create?: Job;
  events: PlanEvent[];
  requeueAfterMs?: number;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
/** The Complete or Failed condition a finished Job has (upstream jobutil.FinishedCondition). */
export const finishedType = (job: Job) => (job.status?.conditions ?? []).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')?.type;

export const jobRef = (job: Job): ObjectReference => ({
  apiVersion: 'batch/v1', kind: 'Job', name: job.metadata!.name, namespace: job.metadata!.namespace, uid: job.metadata!.uid, resourceVersion: job.metadata!.resourceVersion,
});

/** A Job that runs but that status.active does not list (the caller re-reads the CronJob when there is one). */
export const runsUnlisted = (job: Job, status: CronJobStatus | undefined): boolean =>
  !finishedType(job) && !(status?.active ?? []).some((r) => r.uid === job.metadata?.uid);

/** Step 1 (syncCronJob's loop over the Jobs, then over status.active). */
function syncActive(jobs: Job[], status: CronJobStatus, events: PlanEvent[]): void {
  const byUid = new Map(jobs.map((j) => [j.metadata!.uid!, j]));
  for (const job of jobs) {
    const done = finishedType(job);
    if (runsUnlisted(job, status)) {
      events.push({ type: 'Warning', reason: 'UnexpectedJob', message: `Saw a job that the controller did not create or forgot: ${job.metadata!.name}` });
    }
    const completed = Date.parse(job.status?.completionTime ?? '');
    if (done === 'Complete' && !Number.isNaN(completed) && completed > (Date.parse(status.lastSuccessfulTime ?? '') || 0)) status.lastSuccessfulTime = iso(completed);
  }
  const active: ObjectReference[] = [];
  for (const ref of status.active ?? []) {
    const job = byUid.get(ref.uid!);
    const done = job && finishedType(job);
    if (!job) events.push({ type: 'Normal', reason: 'MissingJob', message: `Active job went missing: ${ref.name}` });
    else if (done) events.push({ type: 'Normal', reason: 'SawCompletedJob', message: `Saw completed job: ${job.metadata!.name}, condition: ${done}` });
    else active.push(ref);
  }
  if (active.length) status.active = active; else delete status.active;
}

/** Step 2: finished Jobs past a limit, oldest (by start, else creation) first. */
function historyToDelete(cj: CronJob, jobs: Job[]): Job[] {
  const startOf = (j: Job) => Date.parse(j.status?.startTime ?? j.metadata?.creationTimestamp ?? '') || 0;
  const out: Job[] = [];
  for (const [type, limit] of [['Complete', cj.spec?.successfulJobsHistoryLimit], ['Failed', cj.spec?.failedJobsHistoryLimit]] as const) {
    if (limit == null) continue;
    const done = jobs.filter((j) => finishedType(j) === type && !j.metadata?.deletionTimestamp).sort((a, b) => startOf(a) - startOf(b));
    if (done.length > limit) out.push(...done.slice(0, done.length - limit));
  }
  return out;
}

/** getJobFromTemplate2: the template's labels, annotations and spec, owned by the CronJob. */
export function jobFromTemplate(cj: CronJob, scheduledTime: number): Job {
  const t = cj.spec!.jobTemplate;
  return {
    apiVersion: 'batch/v1', kind: 'Job',
    metadata: {
      name: jobNameFor(cj, scheduledTime), namespace: cj.metadata!.namespace,
      labels: { ...(t.metadata?.labels ?? {}) },
      annotations: { ...(t.metadata?.annotations ?? {}), [scheduledTimestampAnnotation]: rfc3339In(scheduledTime, cj.spec?.timeZone) },
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: cj.metadata!.name!, uid: cj.metadata!.uid!, controller: true, blockOwnerDeletion: true }],
    },
    spec: structuredClone(t.spec!),
  };
}

export function planCronJob(cj: CronJob, jobs: Job[], now: number): CronJobPlan {
  const status: CronJobStatus = structuredClone(cj.status ?? {});
  const plan: CronJobPlan = { status, deleteJobs: [], events: [] };
  syncActive(jobs, status, plan.events);
  plan.deleteJobs.push(...historyToDelete(cj, jobs));
  const tz = cj.spec?.timeZone;
  if (cj.metadata?.deletionTimestamp || cj.spec?.suspend) return plan; // 3
  if (tz != null && !knownTimeZone(tz)) {
    plan.events.push({ type: 'Warning', reason: 'UnknownTimeZone', message: `invalid timeZone: "${tz}": unknown time zone ${tz}` });
    return plan;
  }
  const parsed = parseSchedule(cj.spec?.schedule ?? '', tz);
  if (!parsed.ok) {
    plan.events.push({ type: 'Warning', reason: 'UnparseableSchedule', message: `unparseable schedule: "${cj.spec?.schedule}" : ${parsed.error}` });
    return plan;
  }
  const schedule = parsed.schedule;
  const next = schedule.next(now);
  if (Number.isFinite(next)) plan.requeueAfterMs = next - now + 100; // 5 (a schedule that never fires waits for an update)
  const recent = mostRecentScheduleTime(cj, schedule, now); // 4
  if (recent.missed > tooManyMissed) {
    plan.events.push({ type: 'Warning', reason: 'TooManyMissedTimes', message: `too many missed start times: ${recent.missed}. Set or decrease .spec.startingDeadlineSeconds or check clock skew` });
  }
  const scheduled = recent.scheduledTime;
  if (scheduled === undefined) return plan;
  const sds = cj.spec?.startingDeadlineSeconds;
  if (sds != null && scheduled + sds * 1000 < now) {
    plan.events.push({ type: 'Warning', reason: 'MissSchedule', message: `Missed scheduled time to start a job: ${rfc3339In(scheduled, tz)}` });
    return plan;
  }
  const name = jobNameFor(cj, scheduled);
  if (jobs.some((j) => j.metadata?.name === name) || (status.active ?? []).some((r) => r.name === name)) return plan;
  const running = (status.active ?? []).map((r) => jobs.find((j) => j.metadata?.uid === r.uid)).filter((j): j is Job => !!j);
  if (cj.spec?.concurrencyPolicy === 'Forbid' && running.length > 0) {
    plan.events.push({ type: 'Normal', reason: 'JobAlreadyActive', message: 'Not starting job because prior execution is running and concurrency policy is Forbid' });
    return plan;
  }
  if (cj.spec?.concurrencyPolicy === 'Replace') {
    plan.deleteJobs.push(...running);
    const gone = new Set(running.map((j) => j.metadata!.uid));
    status.active = (status.active ?? []).filter((r) => !gone.has(r.uid));
    if (!status.active.length) delete status.active;
  }
  plan.create = jobFromTemplate(cj, scheduled);
  status.lastScheduleTime = iso(scheduled);
  return plan;
}
