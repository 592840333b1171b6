/**
 * Reading our own writes (the expectations pattern, generalised): after a
 * sync writes a pod, claim, revision or the set's status, the next sync of
 * that set waits until the informers have seen those writes, so it never
 * plans from a cache older than what it did itself (it would create a pod a
 * second time, delete a pod twice, or undo a status).
 *
 * A write is seen when its informer has delivered events up to the write's
 * resourceVersion (watch events arrive in resourceVersion order); a delete
 * is seen when the object is gone from the cache, was replaced (another
 * UID) or carries a deletionTimestamp. Writes pending longer than the
 * timeout (upstream's expectations timeout, 5 minutes) count as seen, so a
 * lost event cannot stall a set. Record a write before the next await.
 */
import type { Clock } from '../../util/clock.js';

export const pendingTimeoutMs = 5 * 60 * 1000;

export interface CacheView {
  /** The informer's last delivered resourceVersion. */
  lastResourceVersion(resource: string): string;
  get(resource: string, key: string): any | undefined;
}

type Pending =
  | { kind: 'rv'; resource: string; rv: bigint; at: number }
  | { kind: 'gone'; resource: string; key: string; uid: string; at: number };

function parseRV(rv: unknown): bigint | undefined {
  if (typeof rv !== 'string' || !/^\d+$/.test(rv)) return undefined;
  return BigInt(rv);
}

export class PendingWrites {
  private readonly bySet = new Map<string, Pending[]>();

  constructor(private readonly clock: Clock, private readonly timeoutMs = pendingTimeoutMs) {}

  /** A write that returned `obj`: seen once the informer reaches obj's resourceVersion. */
  wrote(setKey: string, resource: string, obj: { metadata?: { resourceVersion?: string } } | undefined): void {
    const rv = parseRV(obj?.metadata?.resourceVersion);
    if (rv === undefined) return; // opaque versions: nothing to wait for
    this.add(setKey, { kind: 'rv', resource, rv, at: this.clock.now().getTime() });
  }

  /** A delete of `obj` (by key and UID): seen once the cache no longer shows it alive. */
  deleted(setKey: string, resource: string, key: string, uid: string): void {
    this.add(setKey, { kind: 'gone', resource, key, uid, at: this.clock.now().getTime() });
  }

  private add(setKey: string, p: Pending): void {
    let list = this.bySet.get(setKey);
    if (!list) this.bySet.set(setKey, (list = []));
    list.push(p);
  }

  /** Drops what the caches now show; true when nothing is left for this set. */
  satisfied(setKey: string, cache: CacheView): boolean {
    const list = this.bySet.get(setKey);
    if (!list) return true;
    const now = this.clock.now().getTime();
    const left = list.filter((p) => now - p.at <= this.timeoutMs && !seen(p, cache));
    if (left.length) this.bySet.set(setKey, left); else this.bySet.delete(setKey);
    return left.length === 0;
  }

  /** Sets with writes pending on `resource` (to re-sync when its informer moves). */
  setsWaitingOn(resource: string): string[] {
    const out: string[] = [];
    for (const [key, list] of this.bySet) if (list.some((p) => p.resource === resource)) out.push(key);
    return out;
  }

  forget(setKey: string): void { this.bySet.delete(setKey); }

  get size(): number { return this.bySet.size; }
}

function seen(p: Pending, cache: CacheView): boolean {
  if (p.kind === 'rv') {
    const at = parseRV(cache.lastResourceVersion(p.resource));
    return at === undefined || at >= p.rv;
  }
  const obj = cache.get(p.resource, p.key);
  return !obj || obj.metadata?.uid !== p.uid || !!obj.metadata?.deletionTimestamp;
}
