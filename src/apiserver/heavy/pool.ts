/**
 * The heavy lane's pool of worker threads (docs/threads.md, point 3). The
 * loop hands a job over and awaits it, serving other requests meanwhile.
 * - Size: the cores the loop leaves over, at least one.
 * - The queue is bounded: a job that finds every worker busy and the queue
 *   full is refused at once with upstream's max-in-flight 429.
 * - A running job has a CPU budget: the worker thread's own CPU time since it
 *   took the job (job-clock.ts), checked every `cpuCheckMs`, so a job that
 *   waits for a CPU on a starved machine is not taken for runaway work. Past
 *   it the worker is terminated (the only way to stop a thread
 *   mid-computation), the job answers upstream's 504 timeout, and a fresh
 *   worker takes the slot.
 * - Every job, queued or running, also has a wall-clock deadline from the
 *   moment the loop hands it over: the server's --request-timeout, upstream's
 *   60 s, by when the request's own deadline has answered its client
 *   (connections.ts); a job still queued is dropped, one still running is
 *   stopped as above, with the timeout filter's 504.
 * Workers (a thread each: lane-worker.ts) start on first use, so a server
 * that never sees a large body pays nothing for them, and are unref'd so
 * they never keep a process alive.
 */
import { availableParallelism } from 'node:os';
import { StatusError, allottedTimeout, internalError, requestTimeout, serviceUnavailable, tooManyRequests } from '../../api/status.js';
import type { ObjectBodyJob, ObjectBodyResult } from './object-body.js';
import type { HeavyResponse } from './protocol.js';
import { startLaneWorker, type LaneWorker } from './lane-worker.js';
import { JobClock } from './job-clock.js';
import { idlePolicyFor, idlePolicyRequested, lowerPlatformThreads } from '../../util/thread-priority.js';
import { serialScavenges } from '../../util/serial-scavenges.js';
import { createLogger } from '../../util/log.js';

export interface HeavyPoolOptions {
  /** Workers (default: cores - 1, at least 1). */
  size?: number;
  /** Jobs waiting for a worker beyond those running (default 4 per worker). */
  maxQueue?: number;
  /** A running job's budget of its worker's CPU time, ms (default 30 s, at most `deadlineMs`). */
  cpuBudgetMs?: number;
  /** A job's wall-clock ceiling from run(), queued or running, ms (default 60 s: --request-timeout). */
  deadlineMs?: number;
  /** How often running jobs' CPU is read, ms (default 250). */
  cpuCheckMs?: number;
}

interface Pending {
  id: number;
  job: ObjectBodyJob;
  resolve(value: ObjectBodyResult): void;
  reject(err: Error): void;
  deadline?: NodeJS.Timeout;
  clock?: JobClock;
}

interface Slot { worker?: LaneWorker; running?: Pending }

export const defaultHeavyPoolSize = (): number => Math.max(1, availableParallelism() - 1);

/**
 * The first heavy worker to start also lowers V8's platform threads to the background nice, for the
 * rest of the process's life (a priority is never raised again), unless K8TS_HEAVY_LOWERS_V8_THREADS=0.
 * They run the worker's garbage collection, which competed with the serving thread at its priority
 * (a bystander's p99 during 3a and 3c: 2.06x and 2.31x of idle at nice 0, 1.44x and 1.63x lowered, on
 * a quiet machine), but also the loop's own parallel scavenges, concurrent marking and background
 * compiles; what that costs pod creates after a heavy body was not told apart from noise
 * (bench/v8-threads-cost.ts; docs/threads.md, "Priorities").
 */
const lowerV8Threads = process.env.K8TS_HEAVY_LOWERS_V8_THREADS !== '0';
let v8ThreadsLowered = false;

export class HeavyPool {
  readonly size: number;
  private readonly maxQueue: number;
  private readonly cpuBudgetMs: number;
  private readonly deadlineMs: number;
  private readonly cpuCheckMs: number;
  private watchdog?: NodeJS.Timeout;
  private readonly slots: Slot[];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  /** Workers terminated for overrunning their budget or crashing (for tests and metrics). */
  replaced = 0;

  constructor(opts: HeavyPoolOptions = {}) {
    this.size = Math.max(1, opts.size ?? defaultHeavyPoolSize());
    this.maxQueue = opts.maxQueue ?? 4 * this.size;
    this.deadlineMs = opts.deadlineMs ?? 60_000;
    this.cpuBudgetMs = Math.min(opts.cpuBudgetMs ?? 30_000, this.deadlineMs);
    this.cpuCheckMs = opts.cpuCheckMs ?? 250;
    this.slots = Array.from({ length: this.size }, () => ({}));
  }

  /** Runs a job on a worker; rejects with a StatusError (the job's own, or 429/504/500 from the pool). */
  run(job: ObjectBodyJob): Promise<ObjectBodyResult> {
    if (this.closed) return Promise.reject(serviceUnavailable('the server is shutting down'));
    const idle = this.slots.some((s) => !s.running);
    if (!idle && this.queue.length >= this.maxQueue) return Promise.reject(tooManyRequests());
    return new Promise((resolve, reject) => {
      const p: Pending = { id: this.nextId++, job, resolve, reject };
      p.deadline = setTimeout(() => this.pastDeadline(p), this.deadlineMs);
      this.queue.push(p);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) { clearTimeout(p.deadline); p.reject(serviceUnavailable('the server is shutting down')); }
    await Promise.all(this.slots.map(async (slot) => {
      const running = slot.running;
      slot.running = undefined;
      if (running) { clearTimeout(running.deadline); running.reject(serviceUnavailable('the server is shutting down')); }
      const worker = slot.worker;
      slot.worker = undefined;
      await worker?.terminate();
    }));
    this.noteRunning();
  }

  private dispatch(): void {
    this.assign();
    this.noteRunning();
  }

  private assign(): void {
    for (const slot of this.slots) {
      if (!this.queue.length) return;
      if (slot.running) continue;
      const p = this.queue.shift()!;
      slot.running = p;
      const worker = this.workerOf(slot);
      p.clock = new JobClock(worker);
      worker.post({ id: p.id, job: p.job });
    }
  }

  /**
   * After every change of what runs: scavenges are serial while a job runs (util/serial-scavenges.ts),
   * and the CPU budgets are checked while one runs.
   */
  private noteRunning(): void {
    const running = this.slots.some((s) => s.running);
    serialScavenges.note(this, running);
    if (running && !this.watchdog) {
      this.watchdog = setInterval(() => this.checkBudgets(), this.cpuCheckMs);
      this.watchdog.unref();
    } else if (!running && this.watchdog) {
      clearInterval(this.watchdog);
      this.watchdog = undefined;
    }
  }

  private checkBudgets(): void {
    for (const slot of this.slots) {
      const p = slot.running;
      if (p?.clock && p.clock.spentMs() > this.cpuBudgetMs) this.overrun(slot, p, requestTimeout());
    }
  }

  /** Past its deadline: a queued job is dropped, a running one stopped, with the timeout filter's 504. */
  private pastDeadline(p: Pending): void {
    const queued = this.queue.indexOf(p);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      p.reject(allottedTimeout());
      return;
    }
    const slot = this.slots.find((s) => s.running === p);
    if (slot) this.overrun(slot, p, allottedTimeout());
  }

  private workerOf(slot: Slot): LaneWorker {
    if (slot.worker) return slot.worker;
    if (lowerV8Threads && !v8ThreadsLowered) {
      v8ThreadsLowered = true;
      const logger = createLogger('k8ts').with('heavy-lane');
      const lowered = lowerPlatformThreads(logger);
      if (idlePolicyRequested('platform')) idlePolicyFor(lowered, logger, 'V8 platform');
    }
    const worker: LaneWorker = startLaneWorker({
      answered: (res) => this.answered(slot, worker, res),
      lost: (err) => this.lost(slot, worker, internalError(err.message)),
    });
    slot.worker = worker;
    return worker;
  }

  private answered(slot: Slot, worker: LaneWorker, res: HeavyResponse): void {
    const p = slot.running;
    if (slot.worker !== worker || !p || p.id !== res.id) return;
    clearTimeout(p.deadline);
    slot.running = undefined;
    if (res.ok) p.resolve(res.value);
    else if ('status' in res) p.reject(new StatusError(res.status));
    else p.reject(internalError(res.error.split('\n')[0]));
    this.dispatch();
  }

  /** Past its budget or deadline: stop the worker, answer 504, and let a fresh worker take the slot. */
  private overrun(slot: Slot, p: Pending, err: StatusError): void {
    if (slot.running !== p) return;
    clearTimeout(p.deadline);
    slot.running = undefined;
    this.retire(slot);
    p.reject(err);
    this.dispatch();
  }

  private lost(slot: Slot, worker: LaneWorker, err: Error): void {
    if (slot.worker !== worker) return;
    const p = slot.running;
    slot.running = undefined;
    this.retire(slot);
    if (p) { clearTimeout(p.deadline); p.reject(err); }
    if (!this.closed) this.dispatch();
    else this.noteRunning();
  }

  private retire(slot: Slot): void {
    const worker = slot.worker;
    slot.worker = undefined;
    this.replaced++;
    void worker?.terminate();
  }
}

