/**
 * An informer's cache overlaid with the objects this controller just wrote
 * (upstream's storeObjectUpdate): a sync that runs before the watch delivers
 * our own write sees the newer object, so it neither repeats the write nor
 * acts on stale state. An overlay entry gives way once the informer holds the
 * same or a newer resourceVersion, or the object is deleted.
 */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { Informer } from '../../client/index.js';
import { metaKey } from '../../client/index.js';

type Versioned = { metadata?: ObjectMeta };

function newer(a: Versioned, b: Versioned): boolean {
  const ra = a?.metadata?.resourceVersion;
  const rb = b?.metadata?.resourceVersion;
  if (!/^\d+$/.test(ra ?? '') || !/^\d+$/.test(rb ?? '')) return false;
  return BigInt(ra!) > BigInt(rb!);
}

export class LatestStore<T extends Versioned> {
  private readonly written = new Map<string, T>();

  constructor(private readonly informer: Informer) {}

  get(key: string): T | undefined {
    const cached: T | undefined = this.informer.get(key);
    const mine = this.written.get(key);
    if (!mine) return cached;
    if (!cached || newer(mine, cached)) return mine;
    this.written.delete(key);
    return cached;
  }

  values(): T[] {
    const out: T[] = [];
    for (const obj of this.informer.list() as T[]) out.push(this.get(metaKey(obj)) ?? obj);
    for (const [k, obj] of this.written) if (!this.informer.get(k)) out.push(obj);
    return out;
  }

  list(): T[] { return this.values(); }

  /** Records the object the API server returned for our write. */
  note(obj: T): T {
    this.written.set(metaKey(obj), obj);
    return obj;
  }

  forget(key: string): void { this.written.delete(key); }
}
