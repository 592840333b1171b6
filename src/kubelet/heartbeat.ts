/**
 * One loop that drives the heartbeats of every node in the process, so
 * thousands of simulated nodes cost one timer, not thousands.
 *
 *  1. The period (the lease renew interval, 10 s) is cut into slots (100 ms
 *     each by default). A node joins the least loaded slot, so N nodes renew
 *     N/period times a second, evenly, however they were started; the slot
 *     fixes its phase, so each node still beats once per period.
 *  2. Every slot tick queues the slot's nodes; a bounded number of beats run
 *     at once (concurrency), the rest wait in order.
 *  3. A node whose previous beat has not finished is skipped for this period
 *     (counted), rather than piling up requests against a slow server.
 *  4. If the loop falls behind (a blocked event loop), missed slots run on
 *     the next tick, each at most once.
 */
import type { Logger } from '../util/log.js';
import { leastLoadedSlot } from './slots.js';
import { realTimers, type TimerHandle, type Timers } from './timers.js';

export interface HeartbeatTask {
  readonly key: string;
  beat(): Promise<void>;
}

export interface HeartbeatSchedulerOptions {
  /** One beat per task per period (ms). */
  periodMs: number;
  /** Slot length (ms); default 100, at most the period. */
  slotMs?: number;
  /** Beats in flight at once; default 64. */
  concurrency?: number;
  timers?: Timers;
  logger?: Logger;
}

export interface HeartbeatStats {
  tasks: number;
  beats: number;
  failures: number;
  skipped: number;
  inFlight: number;
  queued: number;
}

export class HeartbeatScheduler {
  readonly periodMs: number;
  readonly slotMs: number;
  private readonly slots: Map<string, HeartbeatTask>[];
  private readonly slotOf = new Map<string, number>();
  private readonly busy = new Set<string>();
  private queue: HeartbeatTask[] = [];
  private head = 0;
  private running = 0;
  private readonly concurrency: number;
  private readonly timers: Timers;
  private timer?: TimerHandle;
  private nextSlot = 0;
  private nextAt = 0;
  private cursor = 0;
  private stopped = true;
  private readonly counts = { beats: 0, failures: 0, skipped: 0 };

  constructor(private readonly opts: HeartbeatSchedulerOptions) {
    if (!(opts.periodMs > 0)) throw new Error('heartbeat period must be positive');
    this.periodMs = opts.periodMs;
    const n = Math.max(1, Math.round(opts.periodMs / Math.min(opts.slotMs ?? 100, opts.periodMs)));
    this.slotMs = opts.periodMs / n;
    this.slots = Array.from({ length: n }, () => new Map());
    this.concurrency = Math.max(1, opts.concurrency ?? 64);
    this.timers = opts.timers ?? realTimers;
  }

  /** Adds a task to the least loaded slot (ties: the next one round the ring). Replaces a task with the same key. */
  add(task: HeartbeatTask): number {
    this.remove(task.key);
    const best = leastLoadedSlot(this.slots.map((s) => s.size), this.cursor);
    this.cursor = (best + 1) % this.slots.length;
    this.slots[best].set(task.key, task);
    this.slotOf.set(task.key, best);
    return best;
  }

  remove(key: string): void {
    const s = this.slotOf.get(key);
    if (s === undefined) return;
    this.slots[s].delete(key);
    this.slotOf.delete(key);
  }

  has(key: string): boolean { return this.slotOf.has(key); }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.nextAt = this.timers.now().getTime() + this.slotMs;
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    for (let i = this.head; i < this.queue.length; i++) this.busy.delete(this.queue[i].key);
    this.queue = [];
    this.head = 0;
  }

  /** Tasks per slot, for tests and metrics. */
  slotLoads(): number[] { return this.slots.map((s) => s.size); }

  stats(): HeartbeatStats {
    return { tasks: this.slotOf.size, ...this.counts, inFlight: this.running, queued: this.queue.length - this.head };
  }

  private arm(): void {
    if (this.stopped) return;
    const delay = Math.max(0, this.nextAt - this.timers.now().getTime());
    this.timer = this.timers.setTimeout(() => this.tick(), delay);
  }

  /** Runs every slot that fell due (each at most once per call), then re-arms. */
  private tick(): void {
    const now = this.timers.now().getTime();
    let due = 0;
    while (this.nextAt <= now && due < this.slots.length) {
      this.enqueueSlot(this.nextSlot);
      this.nextSlot = (this.nextSlot + 1) % this.slots.length;
      this.nextAt += this.slotMs;
      due++;
    }
    if (this.nextAt <= now) this.nextAt = now + this.slotMs; // a whole period behind: resynchronize
    this.pump();
    this.arm();
  }

  private enqueueSlot(i: number): void {
    for (const task of this.slots[i].values()) {
      if (this.busy.has(task.key)) { this.counts.skipped++; continue; }
      this.busy.add(task.key);
      this.queue.push(task);
    }
  }

  private pump(): void {
    while (this.running < this.concurrency && this.head < this.queue.length) {
      const task = this.queue[this.head++];
      // A task removed while it waited does not beat (a stopped node stays silent).
      const s = this.slotOf.get(task.key);
      if (s === undefined || this.slots[s].get(task.key) !== task) { this.busy.delete(task.key); continue; }
      this.running++;
      task.beat().then(
        () => { this.counts.beats++; },
        (e) => { this.counts.failures++; this.opts.logger?.debug('heartbeat failed', { node: task.key, err: e }); },
      ).finally(() => {
        this.running--;
        this.busy.delete(task.key);
        this.pump();
      });
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) { this.queue = this.queue.slice(this.head); this.head = 0; }
  }
}
