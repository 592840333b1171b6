/**
 * kube-apiserver's --etcd-prefix (default "/registry"): the root under which
 * every object's key lives in etcd. The registry builds keys under
 * "/registry"; this wrapper moves them under another prefix on the way in and
 * back on the way out, so several clusters can share one etcd (upstream's
 * storagebackend.Config.Prefix does the same by joining the prefix to each key).
 * Keys outside "/registry" pass through unchanged.
 */
import type { Backend, KeyValue, ListOptions, WatchEvent, WatchOptions, WriteResult } from './backend.js';

export const DEFAULT_ETCD_PREFIX = '/registry';

export function withKeyPrefix(inner: Backend, prefix: string): Backend {
  const normal = normalizePrefix(prefix);
  if (normal === DEFAULT_ETCD_PREFIX) return inner;
  // "/" puts objects at the top: /core/pods/..., as path.Join("/", "/", key) does.
  const root = normal === '/' ? '' : normal;
  const inward = (k: string) => (k.startsWith(DEFAULT_ETCD_PREFIX) ? root + k.slice(DEFAULT_ETCD_PREFIX.length) : k);
  const outward = (k: string) => (k.startsWith(root) ? DEFAULT_ETCD_PREFIX + k.slice(root.length) : k);
  const kvOut = (kv: KeyValue): KeyValue => ({ ...kv, key: outward(kv.key) });
  const writeOut = (r: WriteResult): WriteResult => (r.ok ? { ok: true, kv: kvOut(r.kv) } : r.current ? { ok: false, current: kvOut(r.current) } : r);
  const eventOut = (e: WatchEvent): WatchEvent => ({ ...e, kv: kvOut(e.kv), ...(e.prevKv ? { prevKv: kvOut(e.prevKv) } : {}) });
  const listOpts = <T extends Pick<ListOptions, 'startKey'>>(o?: T): T | undefined =>
    (o?.startKey === undefined ? o : { ...o, startKey: inward(o.startKey) });
  return {
    currentRevision: () => inner.currentRevision(),
    compactedRevision: () => inner.compactedRevision(),
    get: async (key, opts) => {
      const r = await inner.get(inward(key), opts);
      return r.kv ? { kv: kvOut(r.kv), revision: r.revision } : r;
    },
    list: async (p, opts) => {
      const r = await inner.list(inward(p), listOpts(opts));
      return { ...r, kvs: r.kvs.map(kvOut) };
    },
    count: (p, opts) => inner.count(inward(p), listOpts(opts)),
    create: async (key, value) => writeOut(await inner.create(inward(key), value)),
    update: async (key, value, rev) => writeOut(await inner.update(inward(key), value, rev)),
    delete: async (key, rev) => writeOut(await inner.delete(inward(key), rev)),
    watch: (p, opts: WatchOptions) => inner.watch(inward(p), { ...opts, onEvents: (events) => opts.onEvents(events.map(eventOut)) }),
    compact: (rev) => inner.compact(rev),
    close: () => inner.close(),
  };
}

/** upstream joins with path.Join: one leading slash, no trailing one. */
export function normalizePrefix(prefix: string): string {
  const p = `/${prefix}`.replace(/\/+/g, '/').replace(/\/$/, '');
  return p || '/';
}
