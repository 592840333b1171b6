/**
 * The bounded history of one resource's events (upstream's watchCache ring, `cache` and
 * `capacity`): a watch from a revision replays what came after it from here. Events hold
 * the shared decoded objects, so the ring costs references, not copies.
 */
export interface CachedEvent {
  type: 'put' | 'delete';
  key: string;
  /** The object now (for a delete: its last state, at the delete's revision). */
  obj: any;
  /** The object before this event (undefined: the put created it). */
  prev: any;
  revision: number;
}

export class EventRing {
  private readonly slots: (CachedEvent | undefined)[];
  private start = 0;
  private length = 0;

  constructor(readonly capacity: number) {
    this.slots = new Array(Math.max(1, capacity));
  }

  /** Appends; returns the event pushed out when the ring was full. */
  push(ev: CachedEvent): CachedEvent | undefined {
    const cap = this.slots.length;
    if (this.length < cap) {
      this.slots[(this.start + this.length++) % cap] = ev;
      return undefined;
    }
    const dropped = this.slots[this.start];
    this.slots[this.start] = ev;
    this.start = (this.start + 1) % cap;
    return dropped;
  }

  /** The events after `revision`, oldest first. */
  *since(revision: number): Iterable<CachedEvent> {
    const cap = this.slots.length;
    // Revisions increase along the ring: find the first one past `revision` by bisection.
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.slots[(this.start + mid) % cap]!.revision <= revision) lo = mid + 1; else hi = mid;
    }
    for (let i = lo; i < this.length; i++) yield this.slots[(this.start + i) % cap]!;
  }
}
