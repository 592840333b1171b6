/**
 * The etcd client of several servers: the etcd3 library's pool (host selection, failover, a
 * channel per server), its answers turned into the backend's terms. Loaded on first use, so
 * that a server on one etcd never loads etcd3 and its gRPC stack.
 */
import type { Etcd3, IKeyValue, ITxnResponse } from 'etcd3';
import type { EtcdClient, WatchHandlers, WireEvent } from './client.js';
import type { EtcdBackendOptions } from './options.js';
import type { GuardedWrite, KeyMove, RangeRequest, WatchCreate } from './wire/messages.js';
import type { KeyValue } from '../backend.js';

export function poolClient(opts: EtcdBackendOptions): EtcdClient {
  let closed = false;
  let client: Promise<Etcd3> | undefined;
  const open = () => client ??= import('./etcd3-client.js').then(({ createClient }) => {
    const c = createClient(opts);
    if (closed) c.close();
    return c;
  });
  return {
    async txn(w: GuardedWrite) {
      const c = await open();
      const key = Buffer.from(w.key);
      const res = await c.kv.txn({
        compare: [w.guard === 'create'
          ? { key, target: 'Create', result: 'Equal', create_revision: w.revision }
          : { key, target: 'Mod', result: 'Equal', mod_revision: w.revision }],
        success: w.put
          ? [
            { request_put: { key, value: Buffer.from(w.put.value), prev_kv: w.put.prevKv } },
            ...(w.put.createRevision ? [{ request_range: { key, keys_only: true } }] : []),
          ]
          : [{ request_delete_range: { key, prev_kv: true } }],
        failure: [{ request_range: { key } }],
      });
      return { revision: Number(res.header.revision), succeeded: res.succeeded, kvs: firstKvs(res) };
    },
    async move(m: KeyMove) {
      const c = await open();
      const from = Buffer.from(m.from);
      const to = Buffer.from(m.to);
      const res = await c.kv.txn({
        compare: [
          { key: from, target: 'Mod', result: 'Equal', mod_revision: m.modRevision },
          { key: to, target: 'Create', result: 'Equal', create_revision: 0 },
        ],
        success: [{ request_put: { key: to, value: Buffer.from(m.value) } }, { request_delete_range: { key: from } }],
        failure: [],
      });
      return { revision: Number(res.header.revision), succeeded: res.succeeded, kvs: [] };
    },
    async range(r: RangeRequest) {
      const c = await open();
      const res = await c.kv.range({
        key: r.key, range_end: r.rangeEnd, limit: r.limit, revision: r.revision, count_only: r.countOnly,
      });
      return { revision: Number(res.header.revision), kvs: res.kvs.map(toKeyValue), more: res.more, count: Number(res.count) };
    },
    async compact(revision: number) {
      await (await open()).kv.compact({ revision, physical: false });
    },
    watch(req: WatchCreate, handlers: WatchHandlers) {
      let cancel = () => {};
      let done = false;
      const fail = (err: Error) => { if (!done) { done = true; cancel(); handlers.onError(err); } };
      open().then((c) => c.watchClient.watch()).then((stream) => {
        cancel = () => stream.cancel();
        if (done) { cancel(); return; }
        stream.on('data', (res) => {
          if (done) return;
          let events: WireEvent[];
          try {
            events = (res.events ?? []).map((ev) => {
              const e: WireEvent = { type: String(ev.type).toLowerCase() === 'delete' ? 'delete' : 'put', kv: toKeyValue(ev.kv) };
              if (ev.prev_kv) e.prevKv = toKeyValue(ev.prev_kv);
              return e;
            });
          } catch (err) {
            fail(err as Error);
            return;
          }
          handlers.onResponse({
            created: !!res.created, canceled: !!res.canceled, cancelReason: res.cancel_reason ?? '',
            compactRevision: Number(res.compact_revision ?? 0), events,
          });
        });
        stream.on('error', (err: Error) => fail(err));
        stream.on('end', () => fail(new Error('etcd ended the watch stream')));
        stream.write({ create_request: { key: req.key, range_end: req.rangeEnd, start_revision: String(req.startRevision), prev_kv: req.prevKv } });
      }, (err: Error) => fail(err));
      return { close: () => { if (!done) { done = true; cancel(); } } };
    },
    close() {
      closed = true;
      void client?.then((c) => c.close());
    },
  };
}

/** The key-values of the first response that has any (as wire/messages.ts's decodeTxn). */
function firstKvs(res: ITxnResponse): KeyValue[] {
  for (const op of res.responses) {
    const kvs = op.response_range?.kvs ?? (op.response_put?.prev_kv ? [op.response_put.prev_kv] : op.response_delete_range?.prev_kvs ?? []);
    if (kvs.length) return kvs.map(toKeyValue);
  }
  return [];
}

function toKeyValue(kv: IKeyValue): KeyValue {
  return {
    key: kv.key.toString(),
    value: kv.value.toString(),
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
  };
}
