/**
 * An informer's cache overlaid with the objects this controller just wrote
 * (upstream's storeObjectUpdate): a sync that runs before the watch delivers
 * our own write sees the newer object, so it neither repeats the write nor
 * acts on stale state. An overlay entry gives way once the informer holds the
 * same or a newer resourceVersion, or the object is deleted.
 */
import type { Informer } from '../../client/index.js';
import { metaKey } from '../../client/index.js';

function newer(a: any, b: any): boolean {
  const ra = a?.metadata?.resourceVersion;
  const rb = b?.metadata?.resourceVersion;
  if (!/^\d+$/.test(ra ?? '') || !/^\d+$/.test(rb ?? '')) return false;
  return BigInt(ra) > BigInt(rb);
}

export class LatestStore {
  private readonly written = new Map<string, any>();

  constructor(private readonly informer: Informer) {}

  get(key: string): any | undefined {
    const cached = this.informer.get(key);
    const mine = this.written.get(key);
    if (!mine) return cached;
    if (!cached || newer(mine, cached)) return mine;
    this.written.delete(key);
    return cached;
  }

  values(): any[] {
    const out: any[] = [];
    for (const obj of this.informer.list()) out.push(this.get(metaKey(obj)) ?? obj);
    for (const [k, obj] of this.written) if (!this.informer.get(k)) out.push(obj);
    return out;
  }

  list(): any[] { return this.values(); }

  /** Records the object the API server returned for our write. */
  note(obj: any): any {
    this.written.set(metaKey(obj), obj);
    return obj;
  }

  forget(key: string): void { this.written.delete(key); }
}
