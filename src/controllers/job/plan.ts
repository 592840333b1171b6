/**
 * One Job sync as pure planning (upstream syncJob / manageJob): from the Job
 * (its status already holding the tracked pods) and its pods, decide the
 * conditions, the pods to create and delete, and the status counts.
 *
 * Order of the rules, as upstream applies them:
 *   1. A finished Job (Complete or Failed) does nothing more.
 *   2. A Job with FailureTarget or SuccessCriteriaMet deletes its active pods
 *      and gets Failed or Complete once none is left running or terminating.
 *   3. A suspended Job deletes its active pods and is Suspended, keeping
 *      the startTime it has (upstream clears it nowhere: the Jobs page's
 *      suspended myjob shows it; kueue clears it itself to change the
 *      template); resuming sets startTime anew and Suspended=False.
 *   4. Failure: a FailJob match, too many failures (failed > backoffLimit,
 *      restarts counted for OnFailure), too many failed indexes, all indexes
 *      done with some failed, or activeDeadlineSeconds past startTime.
 *   5. Success: completions reached (completed indexes for Indexed Jobs; any
 *      success with nothing running for a work queue), or a successPolicy rule.
 *   6. Otherwise keep `min(parallelism, remaining)` pods active, creating
 *      after the failure back-off and deleting the surplus.
 */
import type { Job, JobCondition, JobSpec, JobStatus } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { BackoffRecord } from './backoff.js';
import { backoffDelayMs, remainingBackoffMs } from './backoff.js';
import { conditionOf, hasCondition, isFinished, setCondition } from './conditions.js';
import { matchPodFailurePolicy } from './failure-policy.js';
import { parseIndexes, podIndex, podIndexFailureCount, podIndexIgnoredFailureCount } from './indexes.js';
import { finishTime, isActive, isReady, isTerminating, podRestarts } from './pods.js';
import type { PodToCreate } from './pods.js';

/** MaxPodCreateDeletePerSync. */
export const maxPodCreateDeletePerSync = 500;

export interface PlanEvent { type: 'Normal' | 'Warning'; reason: string; message: string }

export interface JobPlan {
  status: JobStatus;
  create: PodToCreate[];
  delete: Pod[];
  events: PlanEvent[];
  requeueAfterMs?: number;
}

export interface PlanInput {
  job: Job;
  pods: Pod[];
  now: number;
  backoff: BackoffRecord;
  /** A FailJob match found while tracking this sync's finished pods. */
  failureTarget?: { reason: string; message: string };
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

interface Ctx { in: PlanInput; status: JobStatus; conds: JobCondition[]; active: Pod[]; terminating: Pod[]; plan: JobPlan; now: string }

function counts(c: Ctx): void {
  c.status.active = c.active.length - c.plan.delete.length;
  c.status.ready = c.active.filter((p) => isReady(p) && !c.plan.delete.includes(p)).length;
  c.status.terminating = c.terminating.length + c.plan.delete.length;
}

const uncountedLeft = (s: JobStatus) => (s.uncountedTerminatedPods?.succeeded?.length ?? 0) + (s.uncountedTerminatedPods?.failed?.length ?? 0);

/** Rule 2: finish once nothing runs any more. */
function finishTarget(c: Ctx, target: JobCondition, terminal: 'Failed' | 'Complete'): void {
  c.plan.delete.push(...c.active.slice(0, maxPodCreateDeletePerSync));
  counts(c);
  if (c.status.active! > 0 || c.status.terminating! > 0 || uncountedLeft(c.status) > 0) return;
  setCondition(c.conds, terminal, 'True', target.reason ?? '', target.message ?? '', c.now);
  if (terminal === 'Complete') {
    c.status.completionTime = c.now;
    c.plan.events.push({ type: 'Normal', reason: 'Completed', message: 'Job completed' });
  } else {
    c.plan.events.push({ type: 'Warning', reason: target.reason ?? 'Failed', message: target.message ?? '' });
  }
}

function failedIndexCount(job: Job, s: JobStatus): number {
  return parseIndexes(s.failedIndexes, job.spec?.completions ?? 0).size;
}

/** Rule 4. */
function failureReason(c: Ctx): { reason: string; message: string } | undefined {
  const { job } = c.in;
  const spec: JobSpec = job.spec ?? ({} as JobSpec);
  if (c.in.failureTarget) return c.in.failureTarget;
  const failed = (c.status.failed ?? 0) + (c.status.uncountedTerminatedPods?.failed?.length ?? 0);
  const restarts = spec.template?.spec?.restartPolicy === 'OnFailure' ? c.active.reduce((n, p) => n + podRestarts(p), 0) : 0;
  if (spec.backoffLimitPerIndex == null && failed + restarts > (spec.backoffLimit ?? 6)) {
    return { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
  }
  if (spec.backoffLimitPerIndex != null && spec.completionMode === 'Indexed') {
    const nFailed = failedIndexCount(job, c.status);
    if (spec.maxFailedIndexes != null && nFailed > spec.maxFailedIndexes) {
      return { reason: 'MaxFailedIndexesExceeded', message: 'Job has exceeded the specified maximal number of failed indexes' };
    }
    const done = parseIndexes(c.status.completedIndexes, spec.completions ?? 0).size + nFailed;
    if (nFailed > 0 && done >= (spec.completions ?? 0) && c.active.length === 0) return { reason: 'FailedIndexes', message: 'Job has failed indexes' };
  }
  const start = Date.parse(c.status.startTime ?? '');
  if (spec.activeDeadlineSeconds != null && !Number.isNaN(start)) {
    const left = start + spec.activeDeadlineSeconds * 1000 - c.in.now;
    if (left <= 0) return { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
    requeue(c, left);
  }
  return undefined;
}

function requeue(c: Ctx, ms: number): void {
  c.plan.requeueAfterMs = c.plan.requeueAfterMs === undefined ? ms : Math.min(c.plan.requeueAfterMs, ms);
}

/** successPolicy: the index of the first rule the completed indexes satisfy. */
function successPolicyRule(job: Job, completed: Set<number>): number | undefined {
  const completions = job.spec?.completions ?? 0;
  const rules = job.spec?.successPolicy?.rules ?? [];
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i];
    const scope = r.succeededIndexes != null ? parseIndexes(r.succeededIndexes, completions) : undefined;
    const hits = scope ? [...scope].filter((x) => completed.has(x)).length : completed.size;
    if (r.succeededCount != null ? hits >= r.succeededCount : scope !== undefined && hits === scope.size) return i;
  }
  return undefined;
}

/** Rule 5. */
function successReason(c: Ctx): { reason: string; message: string } | undefined {
  const { job } = c.in;
  const spec: JobSpec = job.spec ?? ({} as JobSpec);
  const succeeded = (c.status.succeeded ?? 0) + (c.status.uncountedTerminatedPods?.succeeded?.length ?? 0);
  const reached = { reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' };
  if (spec.completionMode === 'Indexed') {
    const completed = parseIndexes(c.status.completedIndexes, spec.completions ?? 0);
    const rule = successPolicyRule(job, completed);
    if (rule !== undefined) return { reason: 'SuccessPolicy', message: `Matched rules at index ${rule}` };
    return completed.size >= (spec.completions ?? 0) ? reached : undefined;
  }
  if (spec.completions == null) return succeeded > 0 && c.active.length === 0 ? reached : undefined;
  return succeeded >= spec.completions ? reached : undefined;
}

export function planJob(input: PlanInput): JobPlan {
  const { job, pods, now } = input;
  const status: JobStatus = structuredClone(job.status ?? {});
  const conds = (status.conditions ??= []);
  const c: Ctx = {
    in: input, status, conds, now: iso(now),
    active: pods.filter(isActive), terminating: pods.filter((p) => isTerminating(p) && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed'),
    plan: { status, create: [], delete: [], events: [] },
  };
  if (isFinished(conds)) { counts(c); return c.plan; } // 1
  for (const [target, terminal] of [['FailureTarget', 'Failed'], ['SuccessCriteriaMet', 'Complete']] as const) { // 2
    const cond = conditionOf(conds, target);
    if (cond) { finishTarget(c, cond, terminal); return finish(c); }
  }
  if (job.spec?.suspend) return suspend(c); // 3
  if (hasCondition(conds, 'Suspended')) {
    setCondition(conds, 'Suspended', 'False', 'JobResumed', 'Job resumed', c.now);
    c.plan.events.push({ type: 'Normal', reason: 'Resumed', message: 'Job resumed' });
    status.startTime = c.now;
  }
  status.startTime ??= c.now;
  const failure = failureReason(c); // 4
  if (failure) {
    setCondition(conds, 'FailureTarget', 'True', failure.reason, failure.message, c.now);
    finishTarget(c, conditionOf(conds, 'FailureTarget')!, 'Failed');
    return finish(c);
  }
  const success = successReason(c); // 5
  if (success) {
    setCondition(conds, 'SuccessCriteriaMet', 'True', success.reason, success.message, c.now);
    finishTarget(c, conditionOf(conds, 'SuccessCriteriaMet')!, 'Complete');
    return finish(c);
  }
  manage(c); // 6
  return finish(c);
}

function finish(c: Ctx): JobPlan {
  if (c.conds.length === 0) delete c.status.conditions;
  return c.plan;
}

function suspend(c: Ctx): JobPlan {
  c.plan.delete.push(...c.active.slice(0, maxPodCreateDeletePerSync));
  counts(c);
  if (setCondition(c.conds, 'Suspended', 'True', 'JobSuspended', 'Job suspended', c.now)) {
    c.plan.events.push({ type: 'Normal', reason: 'Suspended', message: 'Job suspended' });
  }
  return finish(c);
}

/** Surplus active pods, the least useful first: not ready, then the newest. */
function surplus(pods: Pod[], n: number): Pod[] {
  const rank = (p: Pod) => [isReady(p) ? 1 : 0, -Date.parse(p.metadata?.creationTimestamp ?? '0')];
  return [...pods].sort((a, b) => { const x = rank(a); const y = rank(b); return x[0] - y[0] || x[1] - y[1]; }).slice(0, n);
}

function manage(c: Ctx): void {
  const { job } = c.in;
  const spec: JobSpec = job.spec ?? ({} as JobSpec);
  const parallelism = spec.parallelism ?? 1;
  // With podReplacementPolicy Failed, a terminating pod still holds its place.
  const holding = spec.podReplacementPolicy === 'Failed' ? c.terminating.length : 0;
  if (spec.completionMode === 'Indexed') manageIndexed(c, parallelism);
  else {
    const succeeded = (c.status.succeeded ?? 0) + (c.status.uncountedTerminatedPods?.succeeded?.length ?? 0);
    let want = spec.completions == null ? (succeeded > 0 ? c.active.length : parallelism) : Math.min(parallelism, Math.max(0, spec.completions - succeeded));
    want = Math.max(0, want);
    if (c.active.length > want) c.plan.delete.push(...surplus(c.active, Math.min(c.active.length - want, maxPodCreateDeletePerSync)));
    const diff = Math.min(want - c.active.length - holding, maxPodCreateDeletePerSync);
    if (diff > 0) {
      const wait = remainingBackoffMs(c.in.backoff, c.in.now);
      if (wait > 0) requeue(c, wait);
      else for (let i = 0; i < diff; i++) c.plan.create.push({});
    }
  }
  counts(c);
}

/** The latest failed pod of each index, for per-index back-off and failure counts. */
function lastFailedByIndex(pods: Pod[], completions: number, now: number): Map<number, Pod> {
  const out = new Map<number, Pod>();
  for (const p of pods) {
    if (p.status?.phase !== 'Failed') continue;
    const i = podIndex(p, completions);
    if (i === undefined) continue;
    const prev = out.get(i);
    if (!prev || finishTime(p, now) >= finishTime(prev, now)) out.set(i, p);
  }
  return out;
}

function manageIndexed(c: Ctx, parallelism: number): void {
  const { job, now } = c.in;
  const spec: JobSpec = job.spec ?? ({} as JobSpec);
  const completions = spec.completions ?? 0;
  const completed = parseIndexes(c.status.completedIndexes, completions);
  const failed = parseIndexes(c.status.failedIndexes, completions);
  const byIndex = new Map<number, Pod[]>();
  for (const p of c.active) {
    const i = podIndex(p, completions);
    // Pods without a valid index, duplicates and pods of finished indexes go.
    if (i === undefined || completed.has(i) || failed.has(i) || byIndex.has(i)) { c.plan.delete.push(p); continue; }
    byIndex.set(i, [p]);
  }
  if (spec.podReplacementPolicy === 'Failed') for (const p of c.terminating) { const i = podIndex(p, completions); if (i !== undefined) byIndex.set(i, [p]); }
  const remaining = completions - completed.size - failed.size;
  const want = Math.min(parallelism, remaining);
  const running = c.active.length - c.plan.delete.length;
  let room = Math.min(want - running, maxPodCreateDeletePerSync);
  const lastFailed = lastFailedByIndex(c.in.pods, completions, now);
  const globalWait = spec.backoffLimitPerIndex == null ? remainingBackoffMs(c.in.backoff, now) : 0;
  if (room > 0 && globalWait > 0) { requeue(c, globalWait); return; }
  for (let i = 0; i < completions && room > 0; i++) {
    if (completed.has(i) || failed.has(i) || byIndex.has(i)) continue;
    const want: PodToCreate = { index: i };
    const last = lastFailed.get(i);
    if (last && spec.backoffLimitPerIndex != null) {
      const ignored = matchPodFailurePolicy(spec, last)?.action === 'Ignore';
      want.failureCount = podIndexFailureCount(last) + (ignored ? 0 : 1);
      want.ignoredFailureCount = podIndexIgnoredFailureCount(last) + (ignored ? 1 : 0);
      const wait = finishTime(last, now) + backoffDelayMs(want.failureCount) - now;
      if (wait > 0) { requeue(c, wait); continue; }
    }
    c.plan.create.push(want);
    room--;
  }
}
