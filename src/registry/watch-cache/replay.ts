/**
 * What deliver() reads of an event, live or replayed from the ring, and the decoding of the
 * versions a replay needs (ring.ts holds superseded versions and deletes as stored bytes).
 */
import type { KeyValue } from '../../storage/backend.js';
import type { CachedEvent } from './ring.js';

export interface EventView {
  readonly type: 'put' | 'delete';
  readonly key: string;
  readonly revision: number;
  /** The object now (for a delete: its last state, at the delete's revision). */
  readonly obj: any;
  /** Whether the key existed before this event (a put: MODIFIED, not ADDED). */
  readonly existed: boolean;
  /** The object before this event, when it existed (read only for a selection's transitions). */
  prev(): any;
}

/**
 * The objects of one replay. Each version is decoded at most once while the replay walks the
 * ring in order: the version before an event is usually the one the replay decoded last for
 * that key, so only the last two of each key are remembered.
 */
export class ReplayVersions {
  private readonly last = new Map<string, { ev: CachedEvent; obj: any; before?: { ev: CachedEvent; obj: any } }>();

  constructor(private readonly decode: (kv: KeyValue) => any) {}

  view(ev: CachedEvent): EventView {
    return { type: ev.type, key: ev.key, revision: ev.revision, obj: this.objectAt(ev), existed: ev.existed, prev: () => this.before(ev) };
  }

  private remembered(ev: CachedEvent): any {
    const last = this.last.get(ev.key);
    if (last?.ev === ev) return last.obj;
    return last?.before?.ev === ev ? last.before.obj : undefined;
  }

  private objectAt(ev: CachedEvent): any {
    if (ev.obj !== undefined) return ev.obj;
    const known = this.remembered(ev);
    if (known !== undefined) return known;
    const obj = this.decode(ev.stored!.keyValue(ev.key));
    const last = this.last.get(ev.key);
    this.last.set(ev.key, { ev, obj, before: last && { ev: last.ev, obj: last.obj } });
    return obj;
  }

  private before(ev: CachedEvent): any {
    const p = ev.prevEvent;
    if (p !== undefined) return p.obj ?? this.remembered(p) ?? this.decode(p.stored!.keyValue(ev.key));
    return ev.prevStored !== undefined ? this.decode(ev.prevStored.keyValue(ev.key)) : ev.prevObj;
  }
}
