/**
 * The CronJob controller (upstream pkg/controller/cronjob/cronjob_controllerv2.go).
 * Job events wake the owning CronJob; a sync plans from the CronJob and its
 * Jobs (plan.ts), deletes and creates Jobs, writes the status, and asks to
 * run again at the next schedule time. Time comes from the injected clock,
 * so tests drive schedules in simulated time (advance the clock, then
 * syncCronJob or resync).
 */
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import type { Controller, ControllerContext, ControllerFactory } from '../types.js';
import type { EventRecorder, Informer } from '../../client/index.js';
import { WorkQueue, runWorkers, metaKey, isNotFound, isConflict, isAlreadyExists } from '../../client/index.js';
import { controllerRef } from '../../api/pods.js';
import type { Logger } from '../../util/log.js';
import { jobRef, planCronJob, runsUnlisted } from './plan.js';

const withKind = (cj: CronJob): CronJob => ({ ...cj, apiVersion: 'batch/v1', kind: 'CronJob' });

export class CronJobController implements Controller {
  readonly name = 'cronjob';
  private readonly queue = new WorkQueue();
  private readonly cronJobs: Informer;
  private readonly jobs: Informer;
  private readonly recorder: EventRecorder;
  private readonly logger: Logger;
  /** Job keys by the uid of the CronJob controlling them. */
  private readonly jobsByCronJob = new Map<string, Set<string>>();

  constructor(private readonly ctx: ControllerContext) {
    this.logger = ctx.logger.with('cronjob');
    this.recorder = ctx.recorder('cronjob-controller');
    this.cronJobs = ctx.informers.informer('cronjobs');
    this.jobs = ctx.informers.informer('jobs');
    this.cronJobs.addEventHandler({ add: (cj) => this.enqueue(cj), update: (_o, cj) => this.enqueue(cj), delete: (cj) => this.enqueue(cj) });
    this.jobs.addEventHandler({
      add: (j) => this.observeJob(j, true),
      update: (o, j) => { this.observeJob(o, false); this.observeJob(j, true); },
      delete: (j) => this.observeJob(j, false),
    });
  }

  run(): void {
    void runWorkers(this.queue, this.ctx.config.workers, (key) => this.syncCronJob(key),
      (key, err) => (isConflict(err) ? this.logger.debug : this.logger.warn)('sync failed', { cronjob: key, err }));
  }

  stop(): void { this.queue.shutDown(); }

  /** Enqueues every CronJob (after the clock moved, in tests). */
  resync(): void { for (const cj of this.cronJobs.list()) this.enqueue(cj); }

  private enqueue(cj: CronJob): void { this.queue.add(metaKey(cj)); }

  private observeJob(job: Job, add: boolean): void {
    const ref = controllerRef(job);
    if (ref?.kind !== 'CronJob') return;
    const key = metaKey(job);
    let set = this.jobsByCronJob.get(ref.uid);
    if (add) {
      if (!set) this.jobsByCronJob.set(ref.uid, (set = new Set()));
      set.add(key);
    } else if (set) {
      set.delete(key);
      if (!set.size) this.jobsByCronJob.delete(ref.uid);
    }
    const cj = this.cronJobs.get(`${job.metadata!.namespace}/${ref.name}`);
    if (cj && cj.metadata.uid === ref.uid) this.enqueue(cj);
  }

  private jobsOf(cj: CronJob): Job[] {
    return [...(this.jobsByCronJob.get(cj.metadata!.uid!) ?? [])].map((k) => this.jobs.get(k)).filter(Boolean);
  }

  /**
   * The CronJob and its Jobs as upstream's syncCronJob sees them: a Job that
   * status.active lists but the cache lacks is read from the API server (a slow
   * watch must not make it look gone), and when a Job runs unlisted the CronJob
   * is read again (the cache may predate the status that lists it).
   */
  private async current(cached: CronJob): Promise<{ cj: CronJob; jobs: Job[] } | undefined> {
    const ns = cached.metadata!.namespace!;
    let cj = cached;
    const jobs = this.jobsOf(cj);
    if (jobs.some((j) => runsUnlisted(j, cj.status))) {
      try { cj = await this.ctx.clients.cronjobs.get(ns, cj.metadata!.name!); } catch (e) { if (isNotFound(e)) return undefined; throw e; }
    }
    const cachedUids = new Set(jobs.map((j) => j.metadata!.uid));
    for (const ref of cj.status?.active ?? []) {
      if (cachedUids.has(ref.uid)) continue;
      try {
        const job: Job = await this.ctx.clients.jobs.get(ns, ref.name!);
        if (job.metadata?.uid === ref.uid) jobs.push(job);
      } catch (e) { if (!isNotFound(e)) throw e; }
    }
    return { cj, jobs };
  }

  async syncCronJob(key: string): Promise<void | { requeueAfterMs?: number }> {
    const cached: CronJob | undefined = this.cronJobs.get(key);
    if (!cached) return;
    const read = await this.current(cached);
    if (!read) return;
    const { cj, jobs } = read;
    const now = this.ctx.clock.now().getTime();
    const plan = planCronJob(cj, jobs, now);
    const ns = cj.metadata!.namespace!;
    for (const e of plan.events) this.recorder.event(withKind(cj), e.type, e.reason, e.message);
    for (const job of plan.deleteJobs) {
      try {
        await this.ctx.clients.jobs.delete(ns, job.metadata!.name!, { propagationPolicy: 'Background' });
        this.recorder.event(withKind(cj), 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata!.name}`);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    if (plan.create) {
      try {
        const created = await this.ctx.clients.jobs.create(ns, plan.create);
        this.recorder.event(withKind(cj), 'Normal', 'SuccessfulCreate', `Created job ${created.metadata.name}`);
        plan.status.active = [...(plan.status.active ?? []).filter((r) => r.uid !== created.metadata.uid), jobRef(created)];
      } catch (e) {
        if (!isAlreadyExists(e)) {
          this.recorder.event(withKind(cj), 'Warning', 'FailedCreate', `Error creating job: ${(e as Error).message}`);
          throw e;
        }
      }
    }
    if (JSON.stringify(plan.status) !== JSON.stringify(cj.status ?? {})) {
      await this.ctx.clients.cronjobs.updateStatus(withKind({ ...cj, status: plan.status }));
    }
    return plan.requeueAfterMs !== undefined ? { requeueAfterMs: plan.requeueAfterMs } : undefined;
  }
}

export const cronJobController: ControllerFactory = (ctx) => new CronJobController(ctx);
