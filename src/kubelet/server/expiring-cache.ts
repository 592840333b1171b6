/**
 * A bounded cache whose entries expire (upstream's LRUExpireCache, which the
 * webhook token authenticator and the webhook authorizer keep their answers
 * in): each entry lives for the TTL it was added with; at capacity the least
 * recently used entry goes, so a client sending endless distinct tokens costs
 * bounded memory. Identical lookups in flight share one call (upstream's
 * cached token authenticator coalesces them with singleflight), so a burst of
 * requests with one token sends one review, not one each.
 */
export type Clock = () => number;

interface Entry<V> { value: V; expires: number }

export class ExpiringCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly inFlight = new Map<string, Promise<V>>();

  constructor(private readonly capacity: number, private readonly now: Clock = Date.now) {}

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    if (e.expires <= this.now()) return undefined;
    this.entries.set(key, e); // most recently used last
    return e.value;
  }

  set(key: string, value: V, ttlMs: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expires: this.now() + ttlMs });
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  /**
   * The cached value, else the one `load` resolves with (callers asking for
   * the same key meanwhile wait for it). `ttlOf` says how long to keep it;
   * a rejection is not cached, as upstream caches no errors.
   */
  async getOrLoad(key: string, load: () => Promise<V>, ttlOf: (v: V) => number): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const p = load().then((v) => { this.set(key, v, ttlOf(v)); return v; }).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, p);
    return p;
  }

  get size(): number { return this.entries.size; }
}
