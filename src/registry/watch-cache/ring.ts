/**
 * The bounded history of one resource's events (upstream's watchCache ring, `cache` and
 * `capacity`): a watch from a revision replays what came after it from here.
 *
 * An event holds its version of the object decoded only while that version is the key's
 * current one (then it is the cache's own object: a reference, not a copy). Once the key's
 * next event supersedes it, or for a delete, the event holds the stored value's bytes instead,
 * in a Buffer (outside V8's heap), and a replay decodes them. Why: live watchers have had the
 * event by then, and only a resume from an older resourceVersion reads it again, while a
 * ring of decoded versions kept each superseded version's objects alive across scavenges,
 * which copy every young object still referenced: under a stream of updates to one object
 * that was some 25 objects per version (bench/RESULTS.md `bystander-attack4-ring`).
 * A Buffer leaves one small object on the heap.
 */
import type { KeyValue } from '../../storage/backend.js';
import type { Unstructured } from '../../api/unstructured.js';

/** One version of an object as storage has it, its value's bytes off the heap. */
export class StoredVersion {
  private readonly bytes: Buffer;
  private readonly createRevision: number;
  readonly modRevision: number;

  constructor(kv: KeyValue) {
    this.bytes = Buffer.from(kv.value, 'utf8');
    this.createRevision = kv.createRevision;
    this.modRevision = kv.modRevision;
  }

  /** The KeyValue it was made from (a new string of the same value). */
  keyValue(key: string): KeyValue {
    return { key, value: this.bytes.toString('utf8'), createRevision: this.createRevision, modRevision: this.modRevision };
  }
}

export class CachedEvent {
  /** The version at this event, decoded: only while it is the key's current version (see above). */
  obj: Unstructured | undefined;
  /** The version at this event as stored (for a delete: the last state, at the delete's revision). */
  stored: StoredVersion | undefined;
  /**
   * The version before this event (none: the put created the key), as one of: the key's previous
   * event while it is in the ring or was when this one came; the stored value; the decoded object
   * (when neither of the others is known). Cut when this event leaves the ring, so no chain of
   * events outlives it.
   */
  prevEvent: CachedEvent | undefined;
  prevStored: StoredVersion | undefined;
  prevObj: Unstructured | undefined;

  constructor(readonly type: 'put' | 'delete', readonly key: string, readonly revision: number) {}

  /** Whether the key existed before this event (a put: MODIFIED rather than ADDED). */
  get existed(): boolean {
    return this.prevEvent !== undefined || this.prevStored !== undefined || this.prevObj !== undefined;
  }

  /** This event left the ring: nothing replays it any more, only its successor may read its version. */
  cut(): void {
    this.prevEvent = this.prevStored = this.prevObj = undefined;
  }
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
