/**
 * Quotas ResourceQuota admission has written itself, kept until the cache
 * catches up (upstream's quotaAccessor.updatedQuotas): the next create then
 * starts from the charged status.used and its guarded write does not lose
 * to this server's own previous charge. Entries leave once the cache holds
 * the same or a newer revision, so the map stays as small as the watch lag.
 */
import type { ResourceQuota } from 'kubernetes-types/core/v1.js';

const revision = (q: ResourceQuota) => BigInt(q.metadata?.resourceVersion || '0');
const keyOf = (q: ResourceQuota) => `${q.metadata?.namespace}/${q.metadata?.name}`;

export class ChargedQuotas {
  private readonly written = new Map<string, ResourceQuota>();

  observe(quota: ResourceQuota): void {
    const prev = this.written.get(keyOf(quota));
    if (!prev || revision(prev) < revision(quota)) this.written.set(keyOf(quota), quota);
  }

  /** The cached quotas, each replaced by the copy this plugin wrote when that one is newer. */
  newest(cached: readonly ResourceQuota[]): ResourceQuota[] {
    if (this.written.size === 0) return [...cached];
    return cached.map((q) => {
      const mine = this.written.get(keyOf(q));
      if (!mine) return q;
      if (revision(mine) > revision(q)) return mine;
      this.written.delete(keyOf(q));
      return q;
    });
  }
}
