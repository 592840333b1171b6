/**
 * The etcd client on its own thread (src/storage/etcd/thread-client.ts): what crosses keeps its
 * meaning. A gRPC status comes back as a GrpcError with its code and details (the backend reads
 * compaction from them), an unreachable etcd fails calls Unavailable (the API server's 500) and
 * ends a watch once, and a closed client refuses calls. The Backend contract itself runs on this
 * client in storage-etcd.test.ts.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { endEtcdClientThreads, restartBackoffMs, threadClient } from '../../src/storage/etcd/thread-client.js';
import { GrpcError, UNAVAILABLE } from '../../src/storage/etcd/wire/channel.js';
import { isCompactedError } from '../../src/storage/etcd/errors.js';
import { etcdClientThreadName } from '../../src/storage/etcd/thread-protocol.js';
import { startEtcd, type PrivateEtcd } from '../e2e/etcd.js';

let etcd: PrivateEtcd;
before(async () => { etcd = await startEtcd(); });
after(() => etcd.stop());

test('etcd thread client: answers and gRPC errors cross with their code and details', async (t) => {
  const client = threadClient({ url: etcd.url });
  t.after(() => client.close());
  const put = await client.txn({ key: '/thread/a', guard: 'create', revision: 0, put: { value: 'one', prevKv: false } });
  assert.equal(put.succeeded, true);
  const again = await client.txn({ key: '/thread/a', guard: 'create', revision: 0, put: { value: 'two', prevKv: false } });
  assert.equal(again.succeeded, false);
  assert.equal(again.kvs[0]?.value, 'one');
  const read = await client.range({ key: Buffer.from('/thread/a') });
  assert.deepEqual(read.kvs.map((kv) => kv.value), ['one']);
  await client.txn({ key: '/thread/a', guard: 'mod', revision: put.revision, put: { value: 'three', prevKv: true } });
  await client.compact(put.revision + 1);
  const err = await client.range({ key: Buffer.from('/thread/a'), revision: put.revision }).then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof GrpcError, `a GrpcError, not ${String(err)}`);
  assert.ok(isCompactedError(err));
});

test('etcd thread client: its thread is named k8ts-etcd, so tools tell its CPU apart', async (t) => {
  const named = () => readdirSync('/proc/self/task').filter((tid) => {
    try { return readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() === etcdClientThreadName; } catch { return false; }
  });
  // Earlier tests' threads may still be ending: the new one is the named thread not seen before.
  const before = new Set(named());
  const client = threadClient({ url: etcd.url });
  t.after(() => client.close());
  // The thread starts with the first call, and has named itself once it answers.
  await client.range({ key: Buffer.from('/thread/name'), countOnly: true });
  assert.equal(named().filter((tid) => !before.has(tid)).length, 1);
});

test('etcd thread client: a watch\'s events come through in order', async (t) => {
  const client = threadClient({ url: etcd.url });
  t.after(() => client.close());
  const start = (await client.range({ key: Buffer.from('/w/'), countOnly: true })).revision;
  const seen: number[] = [];
  const got = new Promise<void>((resolve, reject) => {
    client.watch({ key: Buffer.from('/w/'), rangeEnd: Buffer.from('/w0'), startRevision: start + 1, prevKv: true }, {
      onResponse: (res) => { for (const e of res.events) seen.push(e.kv.modRevision); if (seen.length === 3) resolve(); },
      onError: reject,
    });
  });
  const revs: number[] = [];
  for (const k of ['a', 'b', 'c']) revs.push((await client.txn({ key: `/w/${k}`, guard: 'create', revision: 0, put: { value: k, prevKv: false } })).revision);
  await got;
  assert.deepEqual(seen, revs);
});

test('etcd thread client: an unreachable etcd fails calls Unavailable and ends a watch once', async (t) => {
  // A port that refuses: listen, note it, close.
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
  });
  const client = threadClient({ url: `http://127.0.0.1:${port}` });
  t.after(() => client.close());
  const err = await client.txn({ key: '/x', guard: 'create', revision: 0, put: { value: 'v', prevKv: false } }).then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof GrpcError && err.code === UNAVAILABLE, `Unavailable, not ${String(err)}`);
  let ends = 0;
  await new Promise<void>((resolve) => {
    client.watch({ key: Buffer.from('/x'), rangeEnd: Buffer.from('/y'), startRevision: 1, prevKv: true }, {
      onResponse: () => assert.fail('no response from a refused connection'),
      onError: () => { ends++; resolve(); },
    });
  });
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(ends, 1);
});

test('etcd thread client: calls after close reject', async () => {
  const client = threadClient({ url: etcd.url });
  client.close();
  await assert.rejects(client.txn({ key: '/c', guard: 'create', revision: 0, put: { value: 'v', prevKv: false } }), /closed/);
});

test('etcd thread client: a thread that dies before answering is started again only after a back-off; one that answered, at once', async (t) => {
  assert.deepEqual([0, 1, 2, 3, 7, 20].map(restartBackoffMs), [0, 100, 200, 400, 5000, 5000]);
  const client = threadClient({ url: etcd.url });
  t.after(() => client.close());
  const unavailable = (e: unknown) => e instanceof GrpcError && e.code === UNAVAILABLE;
  const put = (key: string) => client.txn({ key, guard: 'create', revision: 0, put: { value: 'v', prevKv: false } });
  // A thread that answered, then died: the next call starts a new one at once.
  await put('/backoff/a');
  const inFlight = put('/backoff/b').then(() => 'answered', (e: unknown) => e);
  assert.equal(await endEtcdClientThreads(), 1);
  const outcome = await inFlight;
  assert.ok(outcome === 'answered' || unavailable(outcome), String(outcome));
  await put('/backoff/c');
  // A thread ended before it answered anything (its first batch never crossed): the call fails, and calls
  // fail at once, Unavailable, naming the back-off, until it has passed; then a new thread serves.
  await endEtcdClientThreads();
  const first = put('/backoff/d').then(() => undefined, (e: unknown) => e);
  assert.equal(await endEtcdClientThreads(), 1);
  assert.ok(unavailable(await first));
  const refused = await put('/backoff/e').then(() => undefined, (e: unknown) => e);
  assert.ok(unavailable(refused) && /failed to start 1 times in a row; starting again in \d+ ms/.test((refused as Error).message), String(refused));
  await new Promise((r) => setTimeout(r, restartBackoffMs(1) + 20));
  assert.equal((await put('/backoff/f')).succeeded, true);
});
