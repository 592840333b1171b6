/**
 * Controller expectations (upstream controller_utils.go ControllerExpectations):
 * before writing, a controller records how many creates and deletes it expects
 * to see; informer events count them down and failed writes lower them. Until
 * they are met (both counts <= 0) a sync only updates status, so a slow cache
 * never makes it create a second pod. Expectations older than the timeout
 * (upstream 5 minutes) count as met, so one lost event cannot stall a
 * controller. Callers set them synchronously, before their first await.
 */
import type { Clock } from '../../util/clock.js';

interface Expectation { add: number; del: number; timestamp: number }

export const expectationsTimeoutMs = 5 * 60 * 1000;

export class ControllerExpectations {
  private readonly items = new Map<string, Expectation>();

  constructor(private readonly clock: Clock, private readonly timeoutMs = expectationsTimeoutMs) {}

  /** True when nothing is expected, all of it was observed, or the record expired. */
  satisfied(key: string): boolean {
    const e = this.items.get(key);
    if (!e) return true;
    if (e.add <= 0 && e.del <= 0) return true;
    return this.clock.now().getTime() - e.timestamp > this.timeoutMs;
  }

  set(key: string, add: number, del: number): void {
    this.items.set(key, { add, del, timestamp: this.clock.now().getTime() });
  }

  /** Lowers the counts (a create or delete observed, failed, or skipped). */
  lower(key: string, add: number, del: number): void {
    const e = this.items.get(key);
    if (!e) return;
    e.add -= add;
    e.del -= del;
  }

  creationObserved(key: string): void { this.lower(key, 1, 0); }
  deletionObserved(key: string): void { this.lower(key, 0, 1); }
  delete(key: string): void { this.items.delete(key); }

  /** For tests and logs. */
  get(key: string): { add: number; del: number } | undefined {
    const e = this.items.get(key);
    return e && { add: e.add, del: e.del };
  }
}

/**
 * flowcontrol.Backoff as the DaemonSet controller uses it for failed pods
 * (1 s doubling to 15 min per node): an entry unused for twice the maximum
 * starts over.
 */
export class Backoff {
  private readonly entries = new Map<string, { backoffMs: number; lastUpdate: number }>();

  constructor(private readonly clock: Clock, private readonly initialMs = 1_000, private readonly maxMs = 15 * 60_000) {}

  private expired(e: { lastUpdate: number }, now: number): boolean {
    return now - e.lastUpdate > 2 * this.maxMs;
  }

  /** Milliseconds still to wait since the last step, or undefined when not in back-off. */
  remaining(key: string): number | undefined {
    const e = this.entries.get(key);
    const now = this.clock.now().getTime();
    if (!e || this.expired(e, now)) return undefined;
    const left = e.backoffMs - (now - e.lastUpdate);
    return left > 0 ? left : undefined;
  }

  /** Steps the back-off: the initial delay the first time, then double, capped. */
  next(key: string): void {
    const now = this.clock.now().getTime();
    const e = this.entries.get(key);
    const backoffMs = !e || this.expired(e, now) ? this.initialMs : Math.min(e.backoffMs * 2, this.maxMs);
    this.entries.set(key, { backoffMs, lastUpdate: now });
  }

  /** Drops entries idle for twice the maximum (upstream's periodic GC). */
  gc(): void {
    const now = this.clock.now().getTime();
    for (const [k, e] of this.entries) if (this.expired(e, now)) this.entries.delete(k);
  }
}
