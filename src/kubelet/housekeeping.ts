/**
 * One timer for the periodic housekeeping of every node agent in a process (upstream's kubelet
 * runs HandlePodCleanups every 2 s, each kubelet on its own ticker). Thousands of simulated
 * nodes in one process each re-arming a timer of their own cost about 20 ms of CPU a second at
 * 5,000 nodes (2,500 timer callbacks a second), ten times what one wheel costs for the same
 * checks (bench/RESULTS.md, `ds-2026-12-05d`).
 *
 *  1. The period is cut into slots; a task joins the least loaded slot and runs once per
 *     period, at its slot's tick, so N tasks run N/period times a second, evenly.
 *  2. Tasks run synchronously, in the order they joined; a task that throws is logged and
 *     the others still run.
 *  3. The wheel holds a timer only while it has tasks: the last remove() disarms it, so a
 *     closed agent leaves nothing running.
 */
import type { Logger } from '../util/log.js';
import { leastLoadedSlot } from './slots.js';
import { realTimers, type TimerHandle, type Timers } from './timers.js';

export interface HousekeepingWheelOptions {
  /** Each task runs once per period (ms). */
  periodMs: number;
  /** Slots per period (default 20: a tick every 100 ms of a 2 s period). */
  slots?: number;
  timers?: Timers;
  logger?: Logger;
}

export class HousekeepingWheel {
  private readonly slots: Set<() => void>[];
  private readonly slotMs: number;
  private readonly timers: Timers;
  private cursor = 0;
  private next = 0;
  private size = 0;
  private timer?: TimerHandle;

  constructor(private readonly opts: HousekeepingWheelOptions) {
    if (!(opts.periodMs > 0)) throw new Error('housekeeping period must be positive');
    const n = Math.max(1, Math.floor(opts.slots ?? 20));
    this.slots = Array.from({ length: n }, () => new Set());
    this.slotMs = opts.periodMs / n;
    this.timers = opts.timers ?? realTimers;
  }

  /** Runs `task` once per period from the next tick of its slot on; the returned function removes it. */
  add(task: () => void): () => void {
    const s = leastLoadedSlot(this.slots.map((x) => x.size), this.cursor);
    this.cursor = (s + 1) % this.slots.length;
    // A wrapper per add, so the same function added twice runs twice and each remove takes one.
    const entry = () => task();
    this.slots[s].add(entry);
    if (this.size++ === 0) this.arm();
    return () => {
      if (!this.slots[s].delete(entry)) return;
      if (--this.size === 0 && this.timer) { this.timers.clearTimeout(this.timer); this.timer = undefined; }
    };
  }

  private arm(): void {
    this.timer = this.timers.setTimeout(() => this.tick(), this.slotMs);
  }

  private tick(): void {
    const slot = this.slots[this.next];
    this.next = (this.next + 1) % this.slots.length;
    for (const task of [...slot]) {
      try { task(); } catch (e) { this.opts.logger?.error('housekeeping task failed', { err: e }); }
    }
    if (this.size > 0) this.arm(); else this.timer = undefined;
  }
}
