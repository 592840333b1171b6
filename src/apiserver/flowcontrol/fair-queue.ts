/**
 * Fair queuing of seats, after upstream's API Priority and Fairness
 * (apiserver/pkg/util/flowcontrol/fairqueuing): a fixed number of seats
 * (the concurrency limit), a FIFO queue per flow for the requests that find
 * every seat taken, and a queue length limit per flow past which a request
 * is rejected (the caller answers upstream's 429). A freed seat goes to the
 * flows in turn, so a flow with many requests waiting does not hold back a
 * flow that sent one: each waiting flow gets the next seat before any flow
 * gets a second.
 *
 * One FairQueue is one priority level's queues; levels.ts shares the server's
 * seats among the levels (a queue given a `pool` asks it whether it may seat).
 *
 * Departures from upstream, because k8ts serves from one event loop: one
 * queue per flow rather than flows shuffle-sharded onto a
 * fixed set of queues (the map holds only flows with requests waiting, so it
 * is bounded by the requests themselves), and plain round robin rather than
 * virtual-time fair queuing (every request costs one seat; upstream's width
 * and work estimates are not modelled).
 */

/**
 * Seats when the server is not told (`--max-mutating-requests-inflight`),
 * shared by the priority levels (levels.ts). Upstream's default is 200
 * (beside 400 for reads), sized for goroutines on many cores; on one loop a
 * seat is mostly a place in the next storage group commit, and seats past a
 * few dozen only interleave more work with every other client's. 64 (so
 * that workload-high, the scheduler's bindings and the controller manager's
 * pod creates, may borrow 44 rather than 24) was measured at 150,000 pods:
 * the bindings' wait for a seat fell from 127 to 23 ms, but every write's
 * turn on the loop grew and upstream's SLI missed where 32 held it
 * (bench/RESULTS.md `bind12`, `session-end-s13-2026-12-07`).
 */
export const defaultSeats = 32;
/**
 * Requests one flow may have waiting: upstream's default priority levels
 * (workload-high, workload-low, global-default, system, node-high) deal each
 * flow a hand of 6 of their queues (handSize) and put a request on the
 * shortest of them, rejecting it only when that one holds queueLengthLimit
 * (50): so a lone flow waits up to 6 × 50 before a 429. With one queue per
 * flow here, its limit is that product; 50 answered the controller manager's
 * slow-start batch of 128 creates, and the scheduler's bindings of a
 * DaemonSet's 250 pods, with 429s that kube-apiserver would have queued.
 */
export const defaultQueueLength = 6 * 50;
/**
 * Body bytes one flow may have waiting: 50 bodies of the largest size (body.ts, 3 MiB), what a
 * flow's queue could hold when it took 50 requests, so the longer queue does not let one user
 * make the server hold six times as much.
 */
export const defaultQueueBytes = 50 * 3 * 1024 * 1024;

/** Gives the seat back; idempotent (a response can both finish and close). */
export type Release = () => void;

export interface FairQueueOptions {
  /** Requests holding a seat at once (upstream's concurrency limit). */
  seats: number;
  /** Requests of one flow waiting at once (defaultQueueLength: upstream's handSize × queueLengthLimit). */
  queueLength: number;
  /**
   * Bytes (of request bodies) one flow may have waiting, unbounded when not set. k8ts seats a
   * request after reading its body, so what waits holds its body: the server bounds a flow's
   * queue to what 50 bodies of the largest size held before the queue grew to 300 requests.
   */
  queueBytes?: number;
  /**
   * Seats shared with other priority levels (levels.ts): the pool decides whether this queue may
   * seat one more request, and hears of each seat taken and given back; `seats` is then the
   * level's nominal share, reported but not enforced here.
   */
  pool?: SeatPool;
}

/** The server's seats across priority levels (levels.ts). */
export interface SeatPool {
  admits(queue: FairQueue): boolean;
  seated(queue: FairQueue): void;
  /** A seat of `queue` was given back: the pool hands free seats to the levels' waiting requests. */
  released(queue: FairQueue): void;
}

interface Waiter { grant(release: Release): void; bytes: number }

export class FairQueue {
  /** Seats this queue's requests hold. */
  inUse = 0;
  /** Flows with requests waiting, in the order they get the next seats (round robin). */
  private readonly waiting = new Map<string, Waiter[]>();
  /** Body bytes waiting, by flow (flows with requests waiting only). */
  private readonly waitingBytes = new Map<string, number>();

  constructor(private readonly opts: FairQueueOptions) {}

  /**
   * A seat for a request of `flow`: at once when one is free and no flow
   * waits (the common case costs a counter), else a promise that settles when
   * the turn of `flow` comes. 'rejected' when the flow's queue is full (in
   * requests, or in `bytes` of bodies).
   * `onCancel` is called only for a request that waits, with the function
   * that takes it out of its queue (when the client leaves or the request
   * times out; true if it still waited); the promise then never settles.
   */
  acquire(flow: string, onCancel: (forget: () => boolean) => void, bytes = 0): Release | Promise<Release> | 'rejected' {
    if (this.waiting.size === 0 && this.admits()) return this.seat();
    const queue = this.waiting.get(flow) ?? [];
    if (queue.length >= this.opts.queueLength) return 'rejected';
    const queuedBytes = (this.waitingBytes.get(flow) ?? 0) + bytes;
    if (this.opts.queueBytes !== undefined && queue.length > 0 && queuedBytes > this.opts.queueBytes) return 'rejected';
    if (queue.length === 0) this.waiting.set(flow, queue);
    this.waitingBytes.set(flow, queuedBytes);
    return new Promise<Release>((resolve) => {
      const waiter: Waiter = { grant: resolve, bytes };
      queue.push(waiter);
      onCancel(() => this.forget(flow, waiter));
    });
  }

  /** Seats held and requests waiting, for metrics and tests. */
  get stats(): { inUse: number; waiting: number } {
    let waiting = 0;
    for (const q of this.waiting.values()) waiting += q.length;
    return { inUse: this.inUse, waiting };
  }

  /** The level's nominal seats (its share of the server's when it has a pool). */
  get seats(): number { return this.opts.seats; }

  /** Some request waits. */
  get queued(): boolean { return this.waiting.size > 0; }

  private admits(): boolean {
    return this.opts.pool ? this.opts.pool.admits(this) : this.inUse < this.opts.seats;
  }

  private seat(): Release {
    this.inUse++;
    this.opts.pool?.seated(this);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.inUse--;
      if (this.opts.pool) this.opts.pool.released(this);
      else while (this.dispatchOne());
    };
  }

  /**
   * Seats the oldest request of the first waiting flow, if a seat is free for it, and puts that
   * flow last (round robin); false when nothing waits or no seat is free.
   */
  dispatchOne(): boolean {
    if (this.waiting.size === 0 || !this.admits()) return false;
    const [flow, queue] = this.waiting.entries().next().value as [string, Waiter[]];
    const waiter = queue.shift()!;
    this.waiting.delete(flow);
    if (queue.length > 0) this.waiting.set(flow, queue);
    this.unqueueBytes(flow, waiter);
    waiter.grant(this.seat());
    return true;
  }

  /** Takes a waiting request out of its queue; false when it was not waiting (seated already, or forgotten). */
  private forget(flow: string, waiter: Waiter): boolean {
    const queue = this.waiting.get(flow);
    const at = queue?.indexOf(waiter) ?? -1;
    if (at < 0) return false;
    queue!.splice(at, 1);
    if (queue!.length === 0) this.waiting.delete(flow);
    this.unqueueBytes(flow, waiter);
    return true;
  }

  private unqueueBytes(flow: string, waiter: Waiter): void {
    const left = (this.waitingBytes.get(flow) ?? 0) - waiter.bytes;
    if (this.waiting.has(flow)) this.waitingBytes.set(flow, left);
    else this.waitingBytes.delete(flow);
  }
}
