/** The Backend contract on a real etcd (a private /usr/bin/etcd per file), and what only etcd shows. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CompactedError, type WatchEvent } from '../../src/storage/backend.js';
import { openEtcdBackend } from '../../src/storage/etcd/index.js';
import { startEtcd, type PrivateEtcd } from '../e2e/etcd.js';
import { backendContract, ok, record, until } from '../storage/contract.js';

const quiet = { info() {}, error() {} };
let etcd: PrivateEtcd;
before(async () => { etcd = await startEtcd(); });
after(() => etcd.stop());

const open = () => openEtcdBackend({ servers: [etcd.url], compactIntervalMs: 0, logger: quiet });

backendContract('etcd', async (t) => {
  const backend = open();
  t.after(() => backend.close());
  return backend;
});

// Several --etcd-servers go through the etcd3 library's pool instead of the backend's own channel.
backendContract('etcd through the etcd3 pool (two endpoints)', async (t) => {
  const backend = openEtcdBackend({ servers: [etcd.url, etcd.url], compactIntervalMs: 0, logger: quiet });
  t.after(() => backend.close());
  return backend;
});

test('etcd: two backends on one etcd share revisions, guards and watches', async (t) => {
  const one = open();
  const two = open();
  t.after(() => Promise.all([one.close(), two.close()]));
  const base = await one.currentRevision();
  const w = record(two, '/shared/', base);
  t.after(() => w.watcher.close());
  const a = ok(await one.create('/shared/a', '"from one"'));
  assert.deepEqual((await two.get('/shared/a')).kv, a);
  assert.deepEqual(await two.create('/shared/a', '"from two"'), { ok: false, current: a });
  const a2 = ok(await two.update('/shared/a', '"from two"', a.modRevision));
  assert.deepEqual(await one.update('/shared/a', '"stale"', a.modRevision), { ok: false, current: a2 });
  await until(() => w.seen.events.length === 2, 'both writes');
  assert.deepEqual(w.revisions(), [a.modRevision, a2.modRevision]);
});

test('etcd: a watch without previous values (the watch cache\'s feed) gets updates without prevKv and deletes as key and revision', async (t) => {
  const backend = open();
  t.after(() => backend.close());
  const base = await backend.currentRevision();
  const events: WatchEvent[] = [];
  const w = backend.watch('/noprev/', { fromRevision: base, prevKv: false, onEvents: (evs) => { events.push(...evs); } });
  t.after(() => w.close());
  const a = ok(await backend.create('/noprev/a', '"1"'));
  const a2 = ok(await backend.update('/noprev/a', '"2"', a.modRevision));
  const gone = ok(await backend.delete('/noprev/a', a2.modRevision));
  await until(() => events.length === 3, 'three events');
  assert.deepEqual(events, [
    { type: 'put', kv: a, created: true },
    { type: 'put', kv: a2 },
    { type: 'delete', kv: { key: '/noprev/a', value: '', createRevision: 0, modRevision: gone.modRevision } },
  ]);
});

test('etcd: compaction by another client is learned from etcd', async (t) => {
  const one = open();
  const two = open();
  t.after(() => Promise.all([one.close(), two.close()]));
  const a = ok(await one.create('/learn/a', '"1"'));
  const a2 = ok(await one.update('/learn/a', '"2"', a.modRevision));
  ok(await one.update('/learn/a', '"3"', a2.modRevision));
  await one.compact(a2.modRevision);
  assert.equal(await two.compactedRevision(), a2.modRevision);
});

test('etcd: calls after close reject', async () => {
  const backend = open();
  await backend.close();
  await assert.rejects(backend.currentRevision());
});

test('etcd: TLS with a client certificate (--etcd-cafile, --etcd-certfile, --etcd-keyfile)', async (t) => {
  const secure = await startEtcd({ tls: true });
  t.after(() => secure.stop());
  const backend = openEtcdBackend({ servers: [secure.url], caFile: secure.caFile, certFile: secure.certFile, keyFile: secure.keyFile, compactIntervalMs: 0, logger: quiet });
  t.after(() => backend.close());
  const a = ok(await backend.create('/tls/a', '"over TLS"'));
  assert.deepEqual((await backend.get('/tls/a')).kv, a);
  // Without a client certificate etcd refuses the connection.
  const anonymous = openEtcdBackend({ servers: [secure.url], caFile: secure.caFile, compactIntervalMs: 0, logger: quiet });
  t.after(() => anonymous.close());
  await assert.rejects(anonymous.ping());
});

test('etcd: a list bigger than gRPC\'s default 4 MiB message limit', async (t) => {
  const backend = open();
  t.after(() => backend.close());
  const big = JSON.stringify({ data: 'x'.repeat(300_000) });
  for (let i = 0; i < 20; i++) ok(await backend.create(`/big/${i}`, big));
  const { kvs } = await backend.list('/big/');
  assert.equal(kvs.length, 20);
  assert.ok(kvs.every((kv) => kv.value === big));
});

test('etcd: automatic compaction compacts to the revision seen one interval earlier', async (t) => {
  const backend = openEtcdBackend({ servers: [etcd.url], compactIntervalMs: 200, logger: quiet });
  t.after(() => backend.close());
  const written = ok(await backend.create('/auto/a', '"a"'));
  const deadline = Date.now() + 60_000;
  while (await backend.compactedRevision() < written.modRevision) {
    if (Date.now() > deadline) assert.fail('never compacted');
    ok(await backend.update('/auto/a', '"again"', (await backend.get('/auto/a')).kv!.modRevision));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // Reads at the compacted revision still answer; only older ones are refused.
  const compacted = await backend.compactedRevision();
  assert.ok((await backend.get('/auto/a', { revision: compacted })).kv);
  await assert.rejects(backend.get('/auto/a', { revision: compacted - 1 }), CompactedError);
});
