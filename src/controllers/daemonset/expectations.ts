/** The expectations are shared by the controllers that create pods (src/controllers/expectations.ts). */
import type { Clock } from '../../util/clock.js';

export { ControllerExpectations, expectationsTimeoutMs } from '../expectations.js';

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
