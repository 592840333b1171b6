import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { WatchEvent, WriteResult } from '../../src/storage/backend.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { GroupCommit } from '../../src/storage/sqlite/group-commit.js';
import { LogReader } from '../../src/storage/sqlite/log-reader.js';
import { LogWriter } from '../../src/storage/sqlite/log-writer.js';
import { openDatabase } from '../../src/storage/sqlite/schema.js';
import { WalSync } from '../../src/storage/sqlite/wal-sync.js';

// Group commit: writes requested in one turn of the event loop share a transaction, and each
// still behaves as if it had been committed alone.

const quiet = { info() {}, error() {} };

async function tempDbPath(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'k8ts-group-commit-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'state.db');
}

function ok(result: WriteResult) {
  assert.ok(result.ok, `write failed: ${JSON.stringify(result)}`);
  return result.kv;
}

test('writes requested together are guarded and numbered in request order', async (t) => {
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: quiet });
  t.after(() => backend.close());
  const [a, again, b, update, stale] = await Promise.all([
    backend.create('/a', '"a1"'),
    backend.create('/a', '"other"'),
    backend.create('/b', '"b1"'),
    backend.update('/a', '"a2"', 1),
    backend.update('/a', '"a3"', 1),
  ]);
  assert.deepEqual(ok(a), { key: '/a', value: '"a1"', createRevision: 1, modRevision: 1 });
  assert.deepEqual(again, { ok: false, current: { key: '/a', value: '"a1"', createRevision: 1, modRevision: 1 } });
  assert.equal(ok(b).modRevision, 2);
  assert.deepEqual(ok(update), { key: '/a', value: '"a2"', createRevision: 1, modRevision: 3 });
  assert.deepEqual(stale, { ok: false, current: { key: '/a', value: '"a2"', createRevision: 1, modRevision: 3 } });
  assert.equal(await backend.currentRevision(), 3);
});

test('a write that throws fails alone; the others of its commit stand', async (t) => {
  const path = await tempDbPath(t);
  const backend = openSqliteBackend(path, { compactIntervalMs: 0, logger: quiet });
  t.after(() => backend.close());
  ok(await backend.create('/a', '"a1"'));
  // A rogue row from another connection takes the (name, prev_revision) slot the next update of /a needs.
  const raw = new Database(path);
  t.after(() => raw.close());
  raw.prepare(`INSERT INTO kv_log (id, name, created, deleted, create_revision, prev_revision, value)
               VALUES (1000, '/a', 0, 0, 1, 1, '"rogue"')`).run();
  const [update, create] = await Promise.allSettled([backend.update('/a', '"a2"', 1), backend.create('/b', '"b"')]);
  assert.equal(update.status, 'rejected');
  assert.equal((update as PromiseRejectedResult).reason.code, 'SQLITE_CONSTRAINT_UNIQUE');
  assert.equal(create.status, 'fulfilled');
  assert.equal(ok((create as PromiseFulfilledResult<WriteResult>).value).modRevision, 2, 'the failed write used no revision');
  assert.equal((await backend.get('/a')).kv?.value, '"a1"');
});

test('close commits the writes already requested', async (t) => {
  const path = await tempDbPath(t);
  const backend = openSqliteBackend(path, { compactIntervalMs: 0, logger: quiet });
  const pending = backend.create('/a', '"a"');
  await backend.close();
  assert.equal(ok(await pending).modRevision, 1);
  const reopened = openSqliteBackend(path, { compactIntervalMs: 0, logger: quiet });
  t.after(() => reopened.close());
  assert.equal((await reopened.get('/a')).kv?.value, '"a"');
});

/** The WAL fsync, held until the test lets it finish: what the disk would be doing meanwhile. */
class HeldSync extends WalSync {
  held: Array<(err: Error | null) => void> = [];
  constructor() { super(undefined); }
  override sync(done: (err: Error | null) => void): void { this.held.push(done); }
  release(err: Error | null = null): void { this.held.shift()!(err); }
}

function groupCommitOn(t: TestContext) {
  const db = openDatabase(':memory:');
  t.after(() => db.close());
  const writer = new LogWriter(db, new LogReader(db));
  const wal = new HeldSync();
  const published: WatchEvent[] = [];
  const commits = new GroupCommit(writer, wal, (e) => published.push(e));
  return { writer, wal, published, commits };
}

const settled = async (p: Promise<unknown>) => {
  let done = false;
  p.then(() => { done = true; }, () => { done = true; });
  await new Promise((r) => setImmediate(r));
  return done;
};

test('a write is acknowledged and its event published only after the fsync that follows its commit', async (t) => {
  const { writer, wal, published, commits } = groupCommitOn(t);
  const first = commits.submit(() => writer.create('/a', '"a"'));
  await new Promise((r) => setImmediate(r));
  assert.equal(writer.currentRevision, 1, 'committed');
  assert.equal(wal.held.length, 1, 'its fsync started');
  assert.equal(await settled(first), false, 'not acknowledged before the fsync');
  assert.equal(published.length, 0, 'no event before the fsync');
  assert.equal(commits.durableRevision, 0);
  // Writes requested while the fsync runs wait for it uncommitted, then commit together and the next fsync starts.
  const second = commits.submit(() => writer.create('/b', '"b"'));
  await new Promise((r) => setImmediate(r));
  const third = commits.submit(() => writer.create('/c', '"c"'));
  await new Promise((r) => setImmediate(r));
  assert.equal(writer.currentRevision, 1, 'not committed while the fsync runs');
  assert.equal(wal.held.length, 1, 'one fsync at a time');
  const batches = writerBatches(writer);
  wal.release();
  assert.equal(writer.currentRevision, 3, 'committed when the fsync ended');
  assert.deepEqual(batches, [2], 'in one transaction');
  assert.equal(ok(await first).modRevision, 1);
  assert.deepEqual(published.map((e) => e.kv.modRevision), [1]);
  assert.equal(commits.durableRevision, 1);
  assert.equal(await settled(second), false);
  assert.equal(wal.held.length, 1, 'the next fsync covers the second commit');
  wal.release();
  assert.equal(ok(await second).modRevision, 2);
  assert.equal(ok(await third).modRevision, 3);
  assert.deepEqual(published.map((e) => e.kv.modRevision), [1, 2, 3]);
  assert.equal(commits.durableRevision, 3);
});

/** The sizes of the writer's batches from now on. */
function writerBatches(writer: LogWriter): number[] {
  const sizes: number[] = [];
  const batch = writer.batch.bind(writer);
  writer.batch = (writes) => { sizes.push(writes.length); return batch(writes); };
  return sizes;
}

test('a failed fsync fails the writes it covered, and their events still go out (the rows are readable)', async (t) => {
  const { writer, wal, published, commits } = groupCommitOn(t);
  const write = commits.submit(() => writer.create('/a', '"a"'));
  await new Promise((r) => setImmediate(r));
  wal.release(new Error('EIO: i/o error, fdatasync'));
  await assert.rejects(write, /EIO/);
  assert.deepEqual(published.map((e) => e.kv.key), ['/a']);
});

test('a watch started between a commit and its fsync gets the write once, live', async (t) => {
  const path = await tempDbPath(t);
  const backend = openSqliteBackend(path, { compactIntervalMs: 0, logger: quiet });
  t.after(() => backend.close());
  ok(await backend.create('/x/a', '"a"'));
  // The create below commits in the next turn and is acknowledged after its fsync; a watch from
  // revision 1 opened in that window must see it exactly once.
  const events: number[] = [];
  const created = backend.create('/x/b', '"b"');
  await new Promise((r) => setImmediate(r));
  const w = backend.watch('/x/', { fromRevision: 1, onEvents: (evs) => events.push(...evs.map((e) => e.kv.modRevision)) });
  t.after(() => w.close());
  ok(await created);
  ok(await backend.create('/x/c', '"c"'));
  const deadline = Date.now() + 30_000;
  while (events.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(events, [2, 3]);
});
