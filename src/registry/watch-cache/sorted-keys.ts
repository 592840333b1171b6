/**
 * The cache's keys in key order, for lists (pages and continue tokens follow storage's key
 * order). Sorted again only after a key was added or removed, not on every update.
 */
export class SortedKeys {
  private sorted?: string[];

  invalidate(): void { this.sorted = undefined; }

  /**
   * The sorted keys and the index range [start, end) of the keys under `prefix`; with `name`
   * (the prefix is then a namespace's, or a cluster-scoped kind's), of the one key `prefix + name`.
   */
  range(objects: Map<string, unknown>, prefix: string, name?: string): { keys: string[]; start: number; end: number } {
    if (name !== undefined) {
      const key = prefix + name;
      return objects.has(key) ? { keys: [key], start: 0, end: 1 } : { keys: [], start: 0, end: 0 };
    }
    // Keys are ASCII (names are DNS labels), so code-unit order is storage's byte order.
    this.sorted ??= [...objects.keys()].sort();
    const keys = this.sorted;
    return { keys, start: lowerBound(keys, prefix), end: lowerBound(keys, prefixEnd(prefix)) };
  }
}

/** The first index whose key is >= `key`. */
function lowerBound(keys: string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < key) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/** The smallest string above every string that starts with `prefix` (etcd's range end). */
function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

