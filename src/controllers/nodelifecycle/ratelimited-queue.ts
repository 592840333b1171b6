/**
 * The per-zone queue of nodes waiting for a NoExecute taint (upstream
 * `nodelifecycle/scheduler/rate_limited_queue.go`): a unique queue ordered by
 * processAt, drained by try() under a token bucket (eviction rate, burst 1),
 * so a zone losing many nodes at once is tainted gradually.
 *
 * A value stays in the set after it was processed (removeFromQueue), so it is
 * not queued twice; only remove() forgets it.
 */
import type { Clock } from '../../util/clock.js';

export const EvictionRateLimiterBurst = 1;

/** client-go flowcontrol token bucket; qps <= 0 never accepts. Starts full. */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(readonly qps: number, private readonly burst: number, private readonly clock: Clock) {
    this.tokens = burst;
    this.last = clock.now().getTime();
  }

  tryAccept(): boolean {
    if (this.qps <= 0) return false;
    const now = this.clock.now().getTime();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

export interface TimedValue { value: string; uid: string; addedAt: number; processAt: number }

/** What the action reports: done, or retry after waitMs. */
export type ActionResult = [done: boolean, waitMs: number];

export class RateLimitedTimedQueue {
  private readonly set = new Set<string>();
  private heap: TimedValue[] = [];
  private limiter: TokenBucket;

  constructor(qps: number, private readonly clock: Clock) {
    this.limiter = new TokenBucket(qps, EvictionRateLimiterBurst, clock);
  }

  /** Queues the value unless it is already known; true when added. */
  add(value: string, uid: string): boolean {
    if (this.set.has(value)) return false;
    const now = this.clock.now().getTime();
    this.set.add(value);
    this.push({ value, uid, addedAt: now, processAt: now });
    return true;
  }

  /** Forgets the value entirely; true when it was known. */
  remove(value: string): boolean {
    const had = this.set.delete(value);
    this.heap = this.heap.filter((v) => v.value !== value);
    return had;
  }

  clear(): void { this.set.clear(); this.heap = []; }

  get length(): number { return this.heap.length; }

  /**
   * Processes due values in order while the limiter allows: a token is taken
   * before looking at each head; a failed action is retried after its wait.
   */
  async try(fn: (v: TimedValue) => Promise<ActionResult>): Promise<void> {
    let head = this.heap[0];
    while (head) {
      if (!this.limiter.tryAccept()) break;
      const now = this.clock.now().getTime();
      if (now < head.processAt) break;
      const [done, waitMs] = await fn(head);
      const i = this.heap.indexOf(head);
      if (i >= 0) this.heap.splice(i, 1); // removeFromQueue: stays in the set
      if (!done && this.set.has(head.value)) this.push({ ...head, processAt: now + waitMs + 1 });
      head = this.heap[0];
    }
  }

  /** SwapLimiter: a new bucket at the new rate; drained when the old one had no token. */
  swapLimiter(qps: number): void {
    if (this.limiter.qps === qps) return;
    const next = new TokenBucket(qps, EvictionRateLimiterBurst, this.clock);
    if (qps > 0 && !this.limiter.tryAccept()) next.tryAccept();
    this.limiter = next;
  }

  private push(v: TimedValue): void {
    let i = this.heap.findIndex((x) => x.processAt > v.processAt);
    if (i < 0) i = this.heap.length;
    this.heap.splice(i, 0, v);
  }
}
