/**
 * The Job controller (upstream pkg/controller/job/job_controller.go). Event
 * handlers find the owning Job, count expectations down and enqueue its key;
 * a sync reads the Job and its pods from the caches again and:
 *   1. records newly finished pods in status.uncountedTerminatedPods (one
 *      status write), then removes their job-tracking finalizers;
 *   2. counts the uncounted pods whose finalizer is gone;
 *   3. plans (plan.ts): conditions, pods to create and delete, status;
 *   4. creates and deletes, with expectations set before the first write,
 *      and writes the status when it changed.
 * The failure back-off record lives in memory per Job, as upstream's does.
 */
import type { Job, JobStatus } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Controller, ControllerContext, ControllerFactory } from '../types.js';
import type { EventRecorder, Informer } from '../../client/index.js';
import { WorkQueue, runWorkers, metaKey, isNotFound, isConflict } from '../../client/index.js';
import { controllerRef } from '../../api/pods.js';
import type { Logger } from '../../util/log.js';
import { ControllerExpectations } from '../expectations.js';
import { emptyBackoff, nextBackoffRecord } from './backoff.js';
import type { BackoffRecord } from './backoff.js';
import { hasTrackingFinalizer, jobTrackingFinalizer, newJobPod } from './pods.js';
import { planJob } from './plan.js';
import type { JobPlan } from './plan.js';
import { countUncounted, trackFinished } from './track.js';

const withoutTrackingFinalizer = (p: Pod): Pod => ({ ...p, metadata: { ...p.metadata, finalizers: (p.metadata?.finalizers ?? []).filter((f) => f !== jobTrackingFinalizer) } });
const withKind = (job: Job): Job => ({ ...job, apiVersion: 'batch/v1', kind: 'Job' });
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** active, succeeded and failed are omitempty int32s upstream; ready and terminating are pointers and stay. */
function omitZeroCounters(status: JobStatus): JobStatus {
  const out = { ...status };
  for (const k of ['active', 'succeeded', 'failed'] as const) if (!out[k]) delete out[k];
  return out;
}

/**
 * Syncs in flight. Upstream's --concurrent-job-syncs is 5, but a k8ts sync
 * waits on two or three sequential API round trips, so 1,000 new Jobs would
 * queue their completions behind each other's creates; more syncs in flight
 * keep the API server (and its group commit) busy instead.
 */
export const concurrentJobSyncs = 16;

/** k8ts resource versions are store revisions; another server's opaque ones compare as 0, and the cache wins. */
function revision(obj: { metadata?: { resourceVersion?: string } }): bigint {
  const rv = obj.metadata?.resourceVersion ?? '';
  return /^[0-9]+$/.test(rv) ? BigInt(rv) : 0n;
}

export class JobController implements Controller {
  readonly name = 'job';
  private readonly queue = new WorkQueue();
  readonly expectations: ControllerExpectations;
  private readonly jobs: Informer;
  private readonly pods: Informer;
  private readonly recorder: EventRecorder;
  private readonly logger: Logger;
  /** Pod keys by the uid of the Job controlling them. */
  private readonly podsByJob = new Map<string, Set<string>>();
  private readonly backoff = new Map<string, BackoffRecord>();
  /**
   * Uids of pods whose job-tracking finalizer this controller removed (or is
   * removing) while the pod cache may still show it (upstream's
   * finalizerExpectations): a sync in between must not record such a pod as
   * newly finished again, which would count its failure or success twice.
   */
  private readonly finalizerRemovals = new Set<string>();
  /** The Jobs as this controller last wrote them, until the cache catches up (a stale read would only conflict). */
  private readonly written = new Map<string, Job>();

  constructor(private readonly ctx: ControllerContext) {
    this.logger = ctx.logger.with('job');
    this.recorder = ctx.recorder('job-controller');
    this.expectations = new ControllerExpectations(ctx.clock);
    this.jobs = ctx.informers.informer('jobs');
    this.pods = ctx.informers.informer('pods');
    this.jobs.addEventHandler({
      add: (j) => this.enqueue(j),
      update: (_o, j) => this.enqueue(j),
      delete: (j) => { this.expectations.delete(metaKey(j)); this.backoff.delete(j.metadata.uid); this.enqueue(j); },
    });
    this.pods.addEventHandler({
      add: (p) => { this.index(p, true); this.observe(p, 'add'); },
      update: (o, p) => {
        if (!hasTrackingFinalizer(p)) this.finalizerRemovals.delete(p.metadata.uid);
        this.index(o, false); this.index(p, true); this.observe(p, p.metadata.deletionTimestamp && !o.metadata.deletionTimestamp ? 'delete' : 'update');
      },
      delete: (p) => { this.finalizerRemovals.delete(p.metadata.uid); this.index(p, false); this.observe(p, 'delete'); },
    });
  }

  run(): void {
    void runWorkers(this.queue, Math.max(this.ctx.config.workers, concurrentJobSyncs), (key) => this.syncJob(key),
      (key, err) => (isConflict(err) ? this.logger.debug : this.logger.warn)('sync failed', { job: key, err }));
  }

  stop(): void { this.queue.shutDown(); }

  private enqueue(job: Job): void { this.queue.add(metaKey(job)); }

  private index(pod: Pod, add: boolean): void {
    const ref = controllerRef(pod);
    if (ref?.kind !== 'Job') return;
    const key = metaKey(pod);
    let set = this.podsByJob.get(ref.uid);
    if (add) {
      if (!set) this.podsByJob.set(ref.uid, (set = new Set()));
      set.add(key);
    } else if (set) {
      set.delete(key);
      if (set.size === 0) this.podsByJob.delete(ref.uid);
    }
  }

  /** Wakes the owning Job; a new pod or a pod's deletion counts its expectation down. */
  private observe(pod: Pod, what: 'add' | 'update' | 'delete'): void {
    const ref = controllerRef(pod);
    if (ref?.kind !== 'Job') return;
    const job = this.jobs.get(`${pod.metadata!.namespace}/${ref.name}`);
    if (!job || job.metadata.uid !== ref.uid) { if (what !== 'delete') this.releaseOrphan(pod); return; }
    const key = metaKey(job);
    if (what === 'add') this.expectations.creationObserved(key);
    if (what === 'delete') this.expectations.deletionObserved(key);
    this.queue.add(key);
  }

  /**
   * A pod whose Job is gone keeps no job-tracking finalizer (upstream's
   * handleOrphanPod): after a background delete of a Job with running pods,
   * the garbage collector's delete would otherwise leave them Terminating.
   */
  private releaseOrphan(pod: Pod): void {
    if (!hasTrackingFinalizer(pod) || !this.jobs.hasSynced() || this.finalizerRemovals.has(pod.metadata!.uid!)) return;
    void this.removeFinalizers([pod]);
  }

  /** The Job's pods from the cache, without the finalizers already removed but not yet seen there. */
  private podsOf(job: Job): Pod[] {
    const keys = this.podsByJob.get(job.metadata!.uid!) ?? new Set<string>();
    return [...keys].map((k) => this.pods.get(k) as Pod | undefined).filter((p): p is Pod => !!p)
      .map((p) => (this.finalizerRemovals.has(p.metadata!.uid!) ? withoutTrackingFinalizer(p) : p));
  }

  async syncJob(key: string): Promise<void | { requeueAfterMs?: number }> {
    let job: Job | undefined = this.latest(key);
    if (!job) { this.expectations.delete(key); this.written.delete(key); return; }
    const pods = this.podsOf(job);
    if (job.metadata?.deletionTimestamp) { await this.removeFinalizers(pods.filter(hasTrackingFinalizer)); return; }
    const now = this.ctx.clock.now().getTime();
    const satisfied = this.expectations.satisfied(key);
    const tracked = trackFinished(job, pods, now); // 1
    // Only newly finished pods need recording before their finalizers go.
    if (tracked.finished.length > 0 || tracked.failureTarget) job = await this.writeStatus(job, tracked.status);
    const uid = job.metadata!.uid!;
    const backoff = nextBackoffRecord(this.backoff.get(uid) ?? emptyBackoff, tracked.finished.map((f) => ({ failed: f.failed, at: f.at })));
    this.backoff.set(uid, backoff);
    const released = await this.removeFinalizers(tracked.finalizersToRemove);
    const current = pods.map((p) => (released.has(p.metadata!.uid!) ? withoutTrackingFinalizer(p) : p));
    const status = countUncounted(job.status ?? {}, current); // 2
    const plan = planJob({ job: { ...job, status }, pods: current, now, backoff, failureTarget: tracked.failureTarget }); // 3
    if (!satisfied) { plan.create = []; plan.delete = []; }
    for (const e of plan.events) this.recorder.event(withKind(job), e.type, e.reason, e.message);
    let err: unknown;
    try { await this.managePods(job, plan, key); } catch (e) { err = e; } // 4
    if (!same(omitZeroCounters(plan.status), job.status ?? {})) await this.writeStatus(job, plan.status);
    if (err) throw err;
    return plan.requeueAfterMs !== undefined ? { requeueAfterMs: plan.requeueAfterMs } : undefined;
  }

  /** The cached Job, or the one this controller wrote when the cache has not seen it yet. */
  private latest(key: string): Job | undefined {
    const cached: Job | undefined = this.jobs.get(key);
    const mine = this.written.get(key);
    if (!cached || !mine || mine.metadata?.uid !== cached.metadata?.uid) { this.written.delete(key); return cached; }
    if (revision(cached) >= revision(mine)) { this.written.delete(key); return cached; }
    return { ...cached, status: mine.status, metadata: { ...cached.metadata, resourceVersion: mine.metadata?.resourceVersion } };
  }

  private async writeStatus(job: Job, status: JobStatus): Promise<Job> {
    const updated = await this.ctx.clients.jobs.updateStatus(withKind({ ...job, status: omitZeroCounters(status) }));
    this.written.set(metaKey(updated), updated);
    return updated;
  }

  /** Removes the job-tracking finalizer; returns the uids it is gone from (also when the pod is gone). */
  private async removeFinalizers(pods: Pod[]): Promise<Set<string>> {
    const done = new Set<string>();
    const patch = { metadata: { '$deleteFromPrimitiveList/finalizers': [jobTrackingFinalizer] } };
    await Promise.all(pods.map(async (p) => {
      const uid = p.metadata!.uid!;
      // Expected before the patch is sent, so the watch event that confirms it always finds the entry.
      this.finalizerRemovals.add(uid);
      try {
        await this.ctx.clients.pods.patch(p.metadata!.namespace, p.metadata!.name!, patch, 'strategic');
        done.add(uid);
      } catch (e) {
        if (isNotFound(e)) { done.add(uid); this.finalizerRemovals.delete(uid); }
        else { this.finalizerRemovals.delete(uid); this.logger.debug('removing finalizer failed', { pod: p.metadata!.name, err: e }); }
      }
    }));
    return done;
  }

  /** The one writer of pods: expectations first, then creates and deletes. */
  private async managePods(job: Job, plan: JobPlan, key: string): Promise<void> {
    if (plan.create.length === 0 && plan.delete.length === 0) return;
    this.expectations.set(key, plan.create.length, plan.delete.length);
    const errors: unknown[] = [];
    const ns = job.metadata!.namespace!;
    await Promise.all(plan.delete.map(async (p) => {
      try {
        await this.ctx.clients.pods.delete(ns, p.metadata!.name!);
        this.recorder.event(withKind(job), 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata!.name}`);
      } catch (e) {
        this.expectations.deletionObserved(key);
        if (!isNotFound(e)) errors.push(e);
      }
    }));
    await Promise.all(plan.create.map(async (want) => {
      try {
        const created = await this.ctx.clients.pods.create(ns, newJobPod(job, want));
        this.recorder.event(withKind(job), 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
      } catch (e) {
        this.expectations.creationObserved(key);
        this.recorder.event(withKind(job), 'Warning', 'FailedCreate', `Error creating: ${(e as Error).message}`);
        errors.push(e);
      }
    }));
    if (errors.length) throw errors[0];
  }
}

export const jobController: ControllerFactory = (ctx) => new JobController(ctx);
