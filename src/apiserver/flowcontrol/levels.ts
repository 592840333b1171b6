/**
 * The server's seats shared among priority levels, as upstream's APF does
 * with kube-apiserver's default PriorityLevelConfigurations
 * (api/flowcontrol/bootstrap.ts): each Limited level's nominal seats are its
 * concurrency shares' part of the server's, rounded up
 * (ceil(total × shares / Σ shares), apf_controller.go), and it may lend
 * round(nominal × lendablePercent / 100) of them. The rest, its guaranteed
 * seats, no other level ever takes, so a flood in one level cannot keep a
 * request of another out of its level's guaranteed seats (the nodes'
 * heartbeats in node-high, the scheduler's bindings in workload-high).
 * Exempt levels take no seat.
 *
 * Borrowing, simplified: upstream moves lendable seats between levels every
 * 10 s by each level's recent demand (borrowingLimitPercent bounding what a
 * level takes); here a level past its guaranteed seats takes any seat not
 * held and not kept for another level's guaranteed ones, at once, and a freed
 * seat goes to the levels with requests waiting in turn. The suggested levels
 * set no borrowing limit, so none is applied. Each level keeps its own queues
 * (fair-queue.ts: a FIFO per flow, round robin over waiting flows).
 */
import type { PriorityLevelConfiguration } from 'kubernetes-types/flowcontrol/v1.js';
import { FairQueue, defaultQueueBytes, type SeatPool } from './fair-queue.js';

export interface Level {
  readonly name: string;
  /** Undefined for an Exempt level: its requests take no seat. */
  readonly queue: FairQueue | undefined;
  /** Seats never lent: the nominal ones less the lendable. */
  readonly guaranteed: number;
  /** A full level rejects rather than queues (limitResponse Reject: catch-all). */
  readonly rejects: boolean;
}

/** Nominal and lendable seats of each level for `total` seats, as upstream computes them. */
export function seatsOf(levels: PriorityLevelConfiguration[], total: number): Map<string, { nominal: number; lendable: number }> {
  const shares = (pl: PriorityLevelConfiguration) => (pl.spec?.type === 'Exempt' ? pl.spec.exempt?.nominalConcurrencyShares : pl.spec?.limited?.nominalConcurrencyShares) ?? 0;
  const sum = levels.reduce((n, pl) => n + shares(pl), 0);
  const out = new Map<string, { nominal: number; lendable: number }>();
  for (const pl of levels) {
    const nominal = sum > 0 ? Math.ceil(total * shares(pl) / sum) : 0;
    const percent = (pl.spec?.type === 'Exempt' ? pl.spec.exempt?.lendablePercent : pl.spec?.limited?.lendablePercent) ?? 0;
    out.set(pl.metadata!.name!, { nominal, lendable: Math.round(nominal * percent / 100) });
  }
  return out;
}

export class PriorityLevels implements SeatPool {
  readonly byName = new Map<string, Level>();
  private readonly limited: FairQueue[] = [];
  private readonly guaranteedOf = new Map<FairQueue, number>();
  /** Seats held, all levels. */
  private inUse = 0;
  /** Guaranteed seats not held: Σ over levels of max(0, guaranteed − held). */
  private reserved = 0;
  /** Σ nominal seats. */
  readonly total: number;
  /** The level that gets the next freed seat first when several wait (round robin). */
  private next = 0;

  constructor(configs: PriorityLevelConfiguration[], serverSeats: number, queueBytes = defaultQueueBytes) {
    const seats = seatsOf(configs, serverSeats);
    let total = 0;
    for (const pl of configs) {
      const name = pl.metadata!.name!;
      if (pl.spec?.type !== 'Limited') {
        this.byName.set(name, { name, queue: undefined, guaranteed: 0, rejects: false });
        continue;
      }
      const { nominal, lendable } = seats.get(name)!;
      const queuing = pl.spec.limited?.limitResponse?.type === 'Queue' ? pl.spec.limited.limitResponse.queuing : undefined;
      // One queue per flow here: a flow may have waiting what upstream's hand of queues holds.
      const queueLength = queuing ? (queuing.handSize ?? 8) * (queuing.queueLengthLimit ?? 50) : 0;
      const queue = new FairQueue({ seats: nominal, queueLength, queueBytes, pool: this });
      const guaranteed = nominal - lendable;
      this.byName.set(name, { name, queue, guaranteed, rejects: !queuing });
      this.limited.push(queue);
      this.guaranteedOf.set(queue, guaranteed);
      total += nominal;
      this.reserved += guaranteed;
    }
    this.total = total;
  }

  /** Seats held and requests waiting, all levels (tests). */
  get stats(): { inUse: number; waiting: number } {
    let waiting = 0;
    for (const q of this.limited) waiting += q.stats.waiting;
    return { inUse: this.inUse, waiting };
  }

  admits(queue: FairQueue): boolean {
    // Its own guaranteed seats, or one that is free and kept for no other level.
    return queue.inUse < this.guaranteedOf.get(queue)! || this.inUse + this.reserved < this.total;
  }

  seated(queue: FairQueue): void {
    this.inUse++;
    if (queue.inUse <= this.guaranteedOf.get(queue)!) this.reserved--;
  }

  released(queue: FairQueue): void {
    this.inUse--;
    if (queue.inUse < this.guaranteedOf.get(queue)!) this.reserved++;
    // The freed seat, and any it makes free for a borrower, to the waiting levels in turn.
    const n = this.limited.length;
    for (let tried = 0; tried < n;) {
      const q = this.limited[this.next]!;
      this.next = (this.next + 1) % n;
      if (q.queued && q.dispatchOne()) tried = 0;
      else tried++;
    }
  }
}
