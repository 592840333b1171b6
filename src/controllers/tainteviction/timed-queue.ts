/**
 * Work that runs no earlier than a given time, keyed by pod (upstream's
 * TimedWorkerQueue). Work due now runs at once and has no timer, so it
 * cannot be cancelled; cancelling a timer reports true so the caller can
 * emit the cancellation event.
 */
import type { Clock } from '../../util/clock.js';

export type WorkFunc = (key: string, fireAt: Date) => Promise<void>;

/** No timer: started at once and still running. */
interface TimedWorker { createdAt: Date; fireAt: Date; timer?: NodeJS.Timeout; cancelled: boolean }

export class TimedWorkerQueue {
  private readonly workers = new Map<string, TimedWorker>();

  constructor(private readonly work: WorkFunc, private readonly clock: Clock) {}

  /** Adds work unless some is already pending or running for the key. */
  addWork(key: string, createdAt: Date, fireAt: Date): void {
    if (this.workers.has(key)) return;
    this.start(key, createdAt, fireAt);
  }

  /** Removes the key; true when a pending timer was cancelled. */
  cancelWork(key: string): boolean {
    if (!this.workers.has(key)) return false;
    const w = this.workers.get(key);
    if (!w) return false;
    this.workers.delete(key);
    if (!w.timer) return false;
    this.stopTimer(w);
    return true;
  }

  /** The pending (timer) work for a key; undefined when none or when it is already running. */
  getWorker(key: string): { createdAt: Date; fireAt: Date } | undefined {
    const w = this.workers.get(key);
    return w?.timer ? { createdAt: w.createdAt, fireAt: w.fireAt } : undefined;
  }

  has(key: string): boolean { return this.workers.has(key); }

  cancelAll(): void {
    for (const w of this.workers.values()) this.stopTimer(w);
    this.workers.clear();
  }

  private start(key: string, createdAt: Date, fireAt: Date): void {
    const delay = fireAt.getTime() - this.clock.now().getTime();
    const w: TimedWorker = { createdAt, fireAt, cancelled: false };
    this.workers.set(key, w);
    if (delay <= 0) this.run(key, w);
    else w.timer = setTimeout(() => { w.timer = undefined; this.run(key, w); }, delay);
  }

  private run(key: string, w: TimedWorker): void {
    if (w.cancelled) return;
    void this.work(key, w.fireAt).catch(() => undefined).finally(() => {
      if (this.workers.get(key) === w) this.workers.delete(key);
    });
  }

  private stopTimer(w: TimedWorker): void {
    w.cancelled = true;
    if (w.timer) clearTimeout(w.timer);
  }
}
