/**
 * The TTL-after-finished controller: deletes a finished Job (its pods
 * follow through foreground deletion) once ttlSecondsAfterFinished has
 * passed, re-reading the Job from the API first, as upstream does, so a
 * user who just changed the TTL is not overruled by a stale cache.
 */
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Controller, ControllerContext, ControllerFactory } from '../types.js';
import type { Informer } from '../../client/index.js';
import { WorkQueue, runWorkers, metaKey, isNotFound, isConflict } from '../../client/index.js';
import type { Logger } from '../../util/log.js';
import { timeLeft } from './plan.js';

export class TTLAfterFinishedController implements Controller {
  readonly name = 'ttl-after-finished';
  private readonly queue = new WorkQueue();
  private readonly jobs: Informer;
  private readonly logger: Logger;

  constructor(private readonly ctx: ControllerContext) {
    this.logger = ctx.logger.with('ttl-after-finished');
    this.jobs = ctx.informers.informer('jobs');
    const enqueue = (j: Job) => { if (j.spec?.ttlSecondsAfterFinished != null) this.queue.add(metaKey(j)); };
    this.jobs.addEventHandler({ add: enqueue, update: (_o, j) => enqueue(j) });
  }

  run(): void {
    void runWorkers(this.queue, this.ctx.config.workers, (key) => this.sync(key),
      (key, err) => (isConflict(err) ? this.logger.debug : this.logger.warn)('sync failed', { job: key, err }));
  }

  stop(): void { this.queue.shutDown(); }

  /** Enqueues every Job with a TTL (after the clock moved, in tests). */
  resync(): void { for (const j of this.jobs.list()) if (j.spec?.ttlSecondsAfterFinished != null) this.queue.add(metaKey(j)); }

  async sync(key: string): Promise<void | { requeueAfterMs?: number }> {
    const cached: Job | undefined = this.jobs.get(key);
    if (!cached) return;
    const now = () => this.ctx.clock.now().getTime();
    let left = timeLeft(cached, now());
    if (left === undefined) return;
    if (left > 0) return { requeueAfterMs: left };
    const ns = cached.metadata!.namespace!;
    const name = cached.metadata!.name!;
    let fresh: Job;
    try { fresh = await this.ctx.clients.jobs.get(ns, name); } catch (e) { if (isNotFound(e)) return; throw e; }
    left = timeLeft(fresh, now());
    if (left === undefined) return;
    if (left > 0) return { requeueAfterMs: left };
    try {
      await this.ctx.clients.jobs.delete(ns, name, { propagationPolicy: 'Foreground', preconditions: { resourceVersion: fresh.metadata!.resourceVersion } });
      this.logger.info('deleted expired job', { job: key });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}

export const ttlAfterFinishedController: ControllerFactory = (ctx) => new TTLAfterFinishedController(ctx);
