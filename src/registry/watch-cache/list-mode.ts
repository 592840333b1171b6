/**
 * Which lists the watch cache answers, as upstream 1.32's shouldDelegateList decides
 * (staging/src/k8s.io/apiserver/pkg/storage/cacher/delegator.go):
 *  - resourceVersionMatch=Exact: storage (the cache keeps no past states).
 *  - resourceVersionMatch=NotOlderThan: the cache, once it has reached the resourceVersion.
 *  - no match, a continue token: storage (the token names a revision and a key).
 *  - no match, limit with a resourceVersion other than "0": storage (legacy exact match).
 *  - no match, no resourceVersion: a consistent read from the cache (ConsistentListFromCache).
 *  - otherwise ("0", or a resourceVersion without limit): the cache.
 */
import type { ListOptions } from '../types.js';

export type CachedListMode = 'storage' | 'consistent' | 'cache';

export function cachedListMode(opts: ListOptions): CachedListMode {
  if (opts.resourceVersionMatch === 'Exact') return 'storage';
  if (opts.resourceVersionMatch === 'NotOlderThan') return 'cache';
  if (opts.resourceVersionMatch) return 'storage';
  if (opts.continue) return 'storage';
  const rv = opts.resourceVersion;
  if (opts.limit && opts.limit > 0 && rv && rv !== '0') return 'storage';
  if (!rv) return 'consistent';
  return 'cache';
}
