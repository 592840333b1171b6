/**
 * One watch on etcd: its own Watch stream, created from `fromRevision + 1` with prev_kv, as
 * upstream's etcd3 watcher asks, unless the watcher keeps the previous values itself
 * (WatchOptions.prevKv false: the watch cache's feed). A stream per watch keeps the created/canceled answers
 * unambiguous; they share the client's HTTP/2 connection. Events arrive in revision order;
 * a cancel with compact_revision (the start, or a slow watcher, fell behind compaction)
 * becomes CompactedError. A broken stream ends the watch with its error: the caller
 * (the registry) ends the client's watch and the client re-lists, as with any watch that ends.
 */
import { CompactedError, type WatchEvent, type WatchOptions, type Watcher } from '../backend.js';
import type { StorageLogger } from '../backend.js';
import type { EtcdClient, WatchResult, WireEvent } from './client.js';
import type { EtcdKeyLayout } from './key-layout.js';
import { prefixRange } from './keys.js';

export function watchEtcd(
  client: EtcdClient, layout: EtcdKeyLayout, prefix: string, opts: WatchOptions, logger: StorageLogger, learnCompacted: (rev: number) => void,
): Watcher {
  let closed = false;
  let delivered = opts.fromRevision;
  const fail = (err: Error) => {
    if (closed) return;
    closed = true;
    stream.close();
    opts.onError?.(err);
  };
  const onResponse = (res: WatchResult) => {
    if (closed) return;
    if (res.compactRevision > 0) {
      learnCompacted(res.compactRevision);
      fail(new CompactedError(delivered, res.compactRevision));
      return;
    }
    if (res.canceled) { fail(new Error(`etcd canceled the watch: ${res.cancelReason}`)); return; }
    if (!res.events.length) return;
    let events: WatchEvent[];
    try {
      events = res.events.map((ev) => toWatchEvent(ev, layout, prevKv));
    } catch (err) {
      fail(err as Error);
      return;
    }
    delivered = events[events.length - 1].kv.modRevision;
    try {
      opts.onEvents(events);
    } catch (err) {
      logger.error('watch onEvents callback threw', { err });
    }
  };
  const prevKv = opts.prevKv !== false;
  const { key, range_end: rangeEnd } = prefixRange(layout.prefixToEtcd(prefix));
  const stream = client.watch({ key, rangeEnd, startRevision: opts.fromRevision + 1, prevKv }, {
    onResponse,
    onError: fail,
  });
  return { close: () => { if (!closed) { closed = true; stream.close(); } } };
}

/**
 * Our event shape: a delete carries the deleted value at the delete's revision (etcd sends only
 * the key and revision, with prev_kv holding the value; without prev_kv asked, the key and
 * revision alone), a put says whether it created the key.
 * Keys are the registry's (the key-values are this event's own, so renamed in place).
 */
function toWatchEvent(ev: WireEvent, layout: EtcdKeyLayout, prevKvAsked: boolean): WatchEvent {
  const { kv, prevKv } = ev;
  kv.key = layout.fromEtcd(kv.key);
  if (prevKv) prevKv.key = kv.key;
  if (ev.type === 'delete' && !prevKvAsked) return { type: 'delete', kv: { key: kv.key, value: '', createRevision: 0, modRevision: kv.modRevision } };
  if (ev.type === 'delete') {
    // Upstream fails the same way: without the previous value there is nothing to send as DELETED.
    if (!prevKv) throw new Error(`etcd event received with PrevKv=nil (key=${kv.key}, modRevision=${kv.modRevision}, type=DELETE)`);
    return { type: 'delete', kv: { ...prevKv, modRevision: kv.modRevision }, prevKv };
  }
  if (kv.createRevision === kv.modRevision) return { type: 'put', kv, created: true };
  return prevKv ? { type: 'put', kv, prevKv } : { type: 'put', kv };
}
