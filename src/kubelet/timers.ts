/**
 * Time as the node agent and the simulated runtime see it: the clock plus
 * one-shot timers, passed in so tests step time instead of sleeping.
 */
export type TimerHandle = { readonly id: number } | NodeJS.Timeout;

export interface Timers {
  now(): Date;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const realTimers: Timers = {
  now: () => new Date(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** Manual time for tests: `advance(ms)` fires due timers in order. */
export class FakeTimers implements Timers {
  private t: number;
  private seq = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();

  constructor(start = Date.parse('2025-01-01T00:00:00Z')) { this.t = start; }

  now(): Date { return new Date(this.t); }
  nowMs(): number { return this.t; }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = ++this.seq;
    this.pending.set(id, { at: this.t + Math.max(0, ms), fn });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    if ('id' in handle && typeof handle.id === 'number') this.pending.delete(handle.id);
  }

  /** Moves time forward, firing every timer that falls due (timers set meanwhile included). */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.pending) if (e[1].at <= end && (!next || e[1].at < next[1].at || (e[1].at === next[1].at && e[0] < next[0]))) next = e;
      if (!next) break;
      this.pending.delete(next[0]);
      this.t = Math.max(this.t, next[1].at);
      next[1].fn();
    }
    this.t = end;
  }

  get size(): number { return this.pending.size; }
}
