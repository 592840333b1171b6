/**
 * Values (cluster IPs, node ports) this API server has just handed out whose
 * Service may not be in the watch-fed cache yet. A reservation ends when the
 * cache holds the value (the Service was written; from then on the cache
 * alone keeps it taken, and frees it when the Service goes) or after
 * `ttlMs`, which is how a create that failed or was a dry run gives its
 * values back. The same Service (namespace/name) may take its own reserved
 * values again, so a dry run or a failed create retried asks for the same
 * node port without being refused.
 */
const defaultTtlMs = 60_000;

interface Reservation { owner: string; expires: number }

export class Reservations<T> {
  private readonly held = new Map<T, Reservation>();

  constructor(private readonly ttlMs = defaultTtlMs, private readonly now: () => number = Date.now) {}

  reserve(value: T, owner: string): void {
    this.held.set(value, { owner, expires: this.now() + this.ttlMs });
  }

  /**
   * The values in use for `owner`: those the cache holds plus those reserved
   * for other owners. Reservations the cache now holds, or that expired, end here.
   */
  with(cached: Iterable<T>, owner: string): Set<T> {
    const used = new Set(cached);
    const now = this.now();
    for (const [value, r] of this.held) {
      if (used.has(value) || r.expires <= now) this.held.delete(value);
      else if (r.owner !== owner) used.add(value);
    }
    return used;
  }
}
