/**
 * What deliver() reads of an event, live or replayed from the ring, and the decoding of the
 * versions a replay needs (ring.ts holds superseded versions and deletes as stored bytes).
 */
import type { KeyValue } from '../../storage/backend.js';
import type { CachedEvent } from './ring.js';
import type { Unstructured } from '../../api/unstructured.js';

export interface EventView {
  readonly type: 'put' | 'delete';
  readonly key: string;
  readonly revision: number;
  /** The object now (for a delete: its last state, at the delete's revision). */
  readonly obj: Unstructured;
  /** Whether the key existed before this event (a put: MODIFIED, not ADDED). */
  readonly existed: boolean;
  /** The object before this event, when it existed (read only for a selection's transitions). */
  prev(): Unstructured | undefined;
}

/**
 * An event of the ring as a replay found it: the links to its previous version are taken then,
 * because an event that leaves the ring while the replay yields loses them (CachedEvent.cut).
 */
export interface ReplayEvent {
  readonly ev: CachedEvent;
  readonly existed: boolean;
  readonly prevEvent: CachedEvent | undefined;
  readonly prevStored: CachedEvent['prevStored'];
  readonly prevObj: Unstructured | undefined;
}

export function replayEvent(ev: CachedEvent): ReplayEvent {
  return { ev, existed: ev.existed, prevEvent: ev.prevEvent, prevStored: ev.prevStored, prevObj: ev.prevObj };
}

/**
 * The objects of one replay. Each version is decoded at most once while the replay walks the
 * ring in order: the version before an event is usually the one the replay decoded last for
 * that key, so only the last two of each key are remembered.
 */
export class ReplayVersions {
  private readonly last = new Map<string, { ev: CachedEvent; obj: Unstructured; before?: { ev: CachedEvent; obj: Unstructured } }>();

  constructor(private readonly decode: (kv: KeyValue) => Unstructured) {}

  view(r: ReplayEvent): EventView {
    const ev = r.ev;
    return { type: ev.type, key: ev.key, revision: ev.revision, obj: this.objectAt(ev), existed: r.existed, prev: () => this.before(r) };
  }

  private remembered(ev: CachedEvent): Unstructured | undefined {
    const last = this.last.get(ev.key);
    if (last?.ev === ev) return last.obj;
    return last?.before?.ev === ev ? last.before.obj : undefined;
  }

  private objectAt(ev: CachedEvent): Unstructured {
    if (ev.obj !== undefined) return ev.obj;
    const known = this.remembered(ev);
    if (known !== undefined) return known;
    const obj = this.decode(ev.stored!.keyValue(ev.key));
    const last = this.last.get(ev.key);
    this.last.set(ev.key, { ev, obj, before: last && { ev: last.ev, obj: last.obj } });
    return obj;
  }

  private before(r: ReplayEvent): Unstructured | undefined {
    const p = r.prevEvent;
    if (p !== undefined) return p.obj ?? this.remembered(p) ?? this.decode(p.stored!.keyValue(p.key));
    return r.prevStored !== undefined ? this.decode(r.prevStored.keyValue(r.ev.key)) : r.prevObj;
  }
}
