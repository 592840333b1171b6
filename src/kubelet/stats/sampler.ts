/**
 * Turns cumulative CPU readings into a rate (upstream: cadvisor keeps the
 * last samples of every cgroup and the summary's usageNanoCores is the
 * difference of the newest two over their interval).
 *
 *  1. The first reading of a key has no rate.
 *  2. A reading at least minWindowMs after the kept one gives
 *     (total delta in ns) / (seconds between them) = nano-cores, and is kept.
 *  3. A reading sooner than that keeps the earlier reading and answers the
 *     rate it gave, so an on-demand summary right after a periodic sample
 *     does not divide by a tiny interval.
 *  4. A total lower than the kept one (the container restarted, its
 *     counter began again) starts over, as rule 1.
 */
export class CPURateSampler {
  private readonly kept = new Map<string, { atMs: number; total: number; rate?: number }>();

  constructor(private readonly minWindowMs = 1_000) {}

  observe(key: string, atMs: number, totalNs: number): number | undefined {
    const prev = this.kept.get(key);
    if (!prev || totalNs < prev.total) {
      this.kept.set(key, { atMs, total: totalNs });
      return undefined;
    }
    if (atMs - prev.atMs < this.minWindowMs) return prev.rate;
    const rate = Math.round((totalNs - prev.total) / ((atMs - prev.atMs) / 1000));
    this.kept.set(key, { atMs, total: totalNs, rate });
    return rate;
  }

  /** Forgets every key not in `live` (ended containers). */
  retain(live: Set<string>): void {
    for (const k of this.kept.keys()) if (!live.has(k)) this.kept.delete(k);
  }
}
