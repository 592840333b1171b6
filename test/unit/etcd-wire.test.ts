/**
 * The hand-written etcd messages against etcd's own .proto (the copy the etcd3 package ships),
 * read by protobufjs: what we encode decodes there to the intended request, and what etcd
 * would answer (encoded there) decodes here to the same values.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';
import {
  decodeRange, decodeTxn, decodeWatch, encodeCompact, encodeGuardedTxn, encodeRange, encodeWatchCreate,
} from '../../src/storage/etcd/wire/messages.js';

const require = createRequire(import.meta.url);
const root = protobuf.loadSync(join(dirname(require.resolve('etcd3/package.json')), 'proto', 'rpc.proto'));
const type = (name: string) => root.lookupType(name);
const asObject = (name: string, buf: Buffer) => type(name).toObject(type(name).decode(buf), { longs: Number, defaults: false, bytes: String, oneofs: false });
const b64 = (s: string) => Buffer.from(s).toString('base64');
/** A request as sent: the gRPC frame's 5-byte prefix (not compressed, length), then the message. */
function unframe(frame: Buffer): Buffer {
  assert.equal(frame[0], 0);
  assert.equal(frame.readUInt32BE(1), frame.length - 5);
  return frame.subarray(5);
}

test('a guarded create is Txn(If CreateRevision == 0, Then Put, Else Get), with the 0 written', () => {
  const value = JSON.stringify({ kind: 'Pod', metadata: { name: 'ü' } });
  const buf = unframe(encodeGuardedTxn({ key: '/registry/pods/a', guard: 'create', revision: 0, put: { value, prevKv: false } }));
  assert.deepEqual(asObject('etcdserverpb.TxnRequest', buf), {
    compare: [{ target: 1, key: b64('/registry/pods/a'), createRevision: 0 }],
    success: [{ requestPut: { key: b64('/registry/pods/a'), value: b64(value) } }],
    failure: [{ requestRange: { key: b64('/registry/pods/a') } }],
  });
  // The oneof's 0 is on the wire (field 5, varint 0), not left to the default.
  const decoded = type('etcdserverpb.TxnRequest').decode(buf) as unknown as { compare: Array<{ targetUnion?: string }> };
  assert.equal(decoded.compare[0]!.targetUnion, 'createRevision');
});

test('guarded updates and deletes compare ModRevision; an update asks for the previous value or its key after the Put', () => {
  const update = asObject('etcdserverpb.TxnRequest', unframe(encodeGuardedTxn({ key: Buffer.from('/k'), guard: 'mod', revision: 300_000_000_123, put: { value: 'v', prevKv: true } })));
  assert.deepEqual(update, {
    compare: [{ target: 2, key: b64('/k'), modRevision: 300_000_000_123 }],
    success: [{ requestPut: { key: b64('/k'), value: b64('v'), prevKv: true } }],
    failure: [{ requestRange: { key: b64('/k') } }],
  });
  // The backend's update: no previous value, the key without its value after the Put (its create revision).
  const keyAfter = asObject('etcdserverpb.TxnRequest', unframe(encodeGuardedTxn({ key: '/k', guard: 'mod', revision: 300_000_000_123, put: { value: 'ü', prevKv: false, createRevision: true } })));
  assert.deepEqual(keyAfter, {
    compare: [{ target: 2, key: b64('/k'), modRevision: 300_000_000_123 }],
    success: [{ requestPut: { key: b64('/k'), value: b64('ü') } }, { requestRange: { key: b64('/k'), keysOnly: true } }],
    failure: [{ requestRange: { key: b64('/k') } }],
  });
  const del = asObject('etcdserverpb.TxnRequest', unframe(encodeGuardedTxn({ key: '/k', guard: 'mod', revision: 7 })));
  assert.deepEqual(del.success, [{ requestDeleteRange: { key: b64('/k'), prevKv: true } }]);
});

test('range, watch and compaction requests', () => {
  assert.deepEqual(asObject('etcdserverpb.RangeRequest', unframe(encodeRange({ key: Buffer.from('/a/'), rangeEnd: Buffer.from('/a0'), limit: 500, revision: 42 }))),
    { key: b64('/a/'), rangeEnd: b64('/a0'), limit: 500, revision: 42 });
  assert.deepEqual(asObject('etcdserverpb.RangeRequest', unframe(encodeRange({ key: Buffer.from('k'), countOnly: true }))), { key: b64('k'), countOnly: true });
  assert.deepEqual(asObject('etcdserverpb.WatchRequest', unframe(encodeWatchCreate({ key: Buffer.from([0]), rangeEnd: Buffer.from([0]), startRevision: 9, prevKv: true }))),
    { createRequest: { key: 'AA==', rangeEnd: 'AA==', startRevision: 9, prevKv: true } });
  assert.deepEqual(asObject('etcdserverpb.CompactionRequest', unframe(encodeCompact(1234))), { revision: 1234 });
});

const encode = (name: string, obj: Record<string, unknown>) => Buffer.from(type(name).encode(type(name).fromObject(obj)).finish());
const header = { clusterId: '14841639068965178418', memberId: '10276657743932975437', revision: 2 ** 40, raftTerm: 3 };
const kv = (key: string, value: string, create: number, mod: number) => ({ key: Buffer.from(key), value: Buffer.from(value), createRevision: create, modRevision: mod, version: 1, lease: 0 });

test('Txn answers: success with prev_kv, failure with the Get, delete with prev_kvs', () => {
  assert.deepEqual(decodeTxn(encode('etcdserverpb.TxnResponse', { header, succeeded: true, responses: [{ responsePut: { header } }] })),
    { revision: 2 ** 40, succeeded: true, kvs: [] });
  assert.deepEqual(decodeTxn(encode('etcdserverpb.TxnResponse', { header, succeeded: true, responses: [{ responsePut: { header, prevKv: kv('/k', 'old', 5, 6) } }] })),
    { revision: 2 ** 40, succeeded: true, kvs: [{ key: '/k', value: 'old', createRevision: 5, modRevision: 6 }] });
  assert.deepEqual(decodeTxn(encode('etcdserverpb.TxnResponse', { header, succeeded: false, responses: [{ responseRange: { header, kvs: [kv('/k', 'ünï', 5, 9)], count: 1 } }] })),
    { revision: 2 ** 40, succeeded: false, kvs: [{ key: '/k', value: 'ünï', createRevision: 5, modRevision: 9 }] });
  assert.deepEqual(decodeTxn(encode('etcdserverpb.TxnResponse', { header, succeeded: true, responses: [{ responseDeleteRange: { header, deleted: 1, prevKvs: [kv('/k', 'v', 5, 9)] } }] })),
    { revision: 2 ** 40, succeeded: true, kvs: [{ key: '/k', value: 'v', createRevision: 5, modRevision: 9 }] });
  // An update's Put without prev_kv, then its keys-only Range: the Range's key.
  assert.deepEqual(decodeTxn(encode('etcdserverpb.TxnResponse', {
    header, succeeded: true, responses: [{ responsePut: { header } }, { responseRange: { header, kvs: [{ key: Buffer.from('/k'), createRevision: 5, modRevision: 9, version: 2 }], count: 1 } }],
  })), { revision: 2 ** 40, succeeded: true, kvs: [{ key: '/k', value: '', createRevision: 5, modRevision: 9 }] });
  // A missing key's failed guard: the Get answers nothing.
  assert.deepEqual(decodeTxn(encode('etcdserverpb.TxnResponse', { header, responses: [{ responseRange: { header } }] })), { revision: 2 ** 40, succeeded: false, kvs: [] });
});

test('Range answers', () => {
  assert.deepEqual(decodeRange(encode('etcdserverpb.RangeResponse', { header, kvs: [kv('/a', '1', 2, 2), kv('/b', '', 3, 4)], more: true, count: 10 })), {
    revision: 2 ** 40, more: true, count: 10,
    kvs: [{ key: '/a', value: '1', createRevision: 2, modRevision: 2 }, { key: '/b', value: '', createRevision: 3, modRevision: 4 }],
  });
  assert.deepEqual(decodeRange(encode('etcdserverpb.RangeResponse', { header: { revision: 1 } })), { revision: 1, kvs: [], more: false, count: 0 });
});

test('Watch answers: events, created, canceled with compact_revision', () => {
  const events = decodeWatch(encode('etcdserverpb.WatchResponse', {
    header, watchId: 0,
    events: [
      { type: 0, kv: kv('/a', 'new', 7, 7) },
      { type: 0, kv: kv('/a', 'newer', 7, 8), prevKv: kv('/a', 'new', 7, 7) },
      { type: 1, kv: { key: Buffer.from('/a'), modRevision: 9 }, prevKv: kv('/a', 'newer', 7, 8) },
    ],
  }));
  assert.deepEqual(events, {
    created: false, canceled: false, cancelReason: '', compactRevision: 0,
    events: [
      { type: 'put', kv: { key: '/a', value: 'new', createRevision: 7, modRevision: 7 } },
      { type: 'put', kv: { key: '/a', value: 'newer', createRevision: 7, modRevision: 8 }, prevKv: { key: '/a', value: 'new', createRevision: 7, modRevision: 7 } },
      { type: 'delete', kv: { key: '/a', value: '', createRevision: 0, modRevision: 9 }, prevKv: { key: '/a', value: 'newer', createRevision: 7, modRevision: 8 } },
    ],
  });
  assert.equal(decodeWatch(encode('etcdserverpb.WatchResponse', { header, created: true })).created, true);
  assert.deepEqual(decodeWatch(encode('etcdserverpb.WatchResponse', { header, watchId: '-1', canceled: true, compactRevision: 55, cancelReason: 'mvcc: required revision has been compacted' })),
    { created: false, canceled: true, cancelReason: 'mvcc: required revision has been compacted', compactRevision: 55, events: [] });
});
