// The WAL is checkpointed by the checkpointer's thread (src/storage/sqlite/checkpointer.ts), never
// inside a commit on the serving thread, and stays bounded; no acknowledged write is lost on SIGKILL.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import type { WriteResult } from '../../src/storage/backend.js';
import { openSqliteBackend, type SqliteBackendOptions } from '../../src/storage/sqlite/index.js';
import { GroupCommit } from '../../src/storage/sqlite/group-commit.js';
import type { LogWriter } from '../../src/storage/sqlite/log-writer.js';
import type { WalSync } from '../../src/storage/sqlite/wal-sync.js';

const quiet = { info() {}, error() {} };
const MiB = 1024 * 1024;

async function tempDbPath(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'k8ts-wal-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'state.db');
}

function open(t: TestContext, path: string, opts: SqliteBackendOptions = {}) {
  const backend = openSqliteBackend(path, { compactIntervalMs: 0, logger: quiet, ...opts });
  t.after(() => backend.close());
  return backend;
}

const walBytes = (path: string) => statSync(`${path}-wal`).size;
const ok = (r: WriteResult) => { assert.ok(r.ok, JSON.stringify(r)); return r.kv; };

/** Updates one key `times` times with a value of `bytes`, each awaited (acknowledged after its fsync). */
async function rewrite(backend: ReturnType<typeof openSqliteBackend>, key: string, bytes: number, times: number): Promise<number> {
  let rev = ok(await backend.create(key, JSON.stringify('0'.repeat(bytes)))).modRevision;
  for (let i = 1; i < times; i++) rev = ok(await backend.update(key, JSON.stringify(String(i % 10).repeat(bytes)), rev)).modRevision;
  return rev;
}

test('the serving connection never checkpoints by itself: without the thread\'s checkpoints the WAL only grows', async (t) => {
  const path = await tempDbPath(t);
  const backend = open(t, path, { checkpoints: { everyBytes: Infinity } });
  // 12 MiB of values: SQLite's automatic checkpoint (1,000 pages, 4 MiB) would have restarted the WAL.
  await rewrite(backend, '/big', 256 * 1024, 48);
  assert.ok(walBytes(path) > 12 * MiB, `WAL ${walBytes(path)} bytes`);
  await backend.close();
  // The last connection to close checkpoints and removes the WAL, as before.
  assert.throws(() => walBytes(path), { code: 'ENOENT' });
});

test('the checkpointer\'s thread keeps the WAL small, and every value survives it', async (t) => {
  const path = await tempDbPath(t);
  const backend = open(t, path, { checkpoints: { everyBytes: 1 * MiB, restartFrames: 1024 } });
  const rev = await rewrite(backend, '/big', 256 * 1024, 96);
  for (let i = 0; i < 200; i++) ok(await backend.create(`/small/${i}`, JSON.stringify({ i })));
  // 24 MiB written. A checkpoint about every MiB copies the WAL; under back-to-back writes it seldom
  // finishes before the next commit, so the WAL starts again mostly after the RESTART past 4 MiB.
  assert.ok(walBytes(path) < 10 * MiB, `WAL ${walBytes(path)} bytes`);
  assert.equal((await backend.get('/big')).kv?.modRevision, rev);
  await backend.close();
  const db = new Database(path, { readonly: true });
  t.after(() => db.close());
  assert.equal((db.prepare("SELECT count(*) AS n FROM kv_current WHERE name LIKE '/small/%'").get() as { n: number }).n, 200);
  assert.equal((db.prepare("SELECT value FROM kv_log WHERE id = ?").get(rev) as { value: string }).value, JSON.stringify('5'.repeat(256 * 1024)));
});

test('a reader that holds an old snapshot does not hold the writes, and the WAL shrinks once it lets go', async (t) => {
  const path = await tempDbPath(t);
  const backend = open(t, path, { checkpoints: { everyBytes: 512 * 1024, restartFrames: 256 } });
  ok(await backend.create('/first', '"x"'));
  // An operator's sqlite3 shell in the middle of a read transaction: no checkpoint can pass its snapshot.
  const reader = new Database(path, { readonly: true });
  t.after(() => reader.close());
  reader.exec('BEGIN');
  reader.prepare('SELECT count(*) FROM kv_log').get();
  await rewrite(backend, '/big', 128 * 1024, 48);
  const pinned = walBytes(path);
  assert.ok(pinned > 5 * MiB, `WAL ${pinned} bytes`);
  reader.exec('COMMIT');
  await rewrite(backend, '/more', 128 * 1024, 48);
  // 6 MiB more: the WAL starts again at the first RESTART after the reader let go (one is tried
  // again each time the WAL grew by restartFrames), instead of growing by all of it.
  assert.ok(walBytes(path) < pinned + 3 * MiB, `WAL ${walBytes(path)} bytes after the reader let go, ${pinned} before`);
});

test('group commit holds its writes while held, then commits them in order', async () => {
  const committed: number[][] = [];
  const writer = { currentRevision: 0, batch(writes: Array<() => unknown>) { committed.push(writes.map((w) => w() as number)); writer.currentRevision += writes.length; return writes.map((_, i) => ({ outcome: { result: i } })); } };
  const wal = { sync(done: (e: Error | null) => void) { setImmediate(done, null); }, syncNow() {}, close() {} };
  const commits = new GroupCommit(writer as unknown as LogWriter, wal as unknown as WalSync, () => {});
  const release = commits.hold();
  const answers = [1, 2, 3].map((n) => commits.submit(() => n as never));
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  assert.deepEqual(committed, []);
  release();
  release(); // a second call is a no-op
  await Promise.all(answers);
  assert.deepEqual(committed, [[1, 2, 3]]);
});

test('SIGKILL while the checkpointer\'s thread checkpoints loses no acknowledged write', async (t) => {
  const path = await tempDbPath(t);
  // Values of 16 KiB and a checkpoint every 256 KiB: checkpoints run all along the writes.
  const child = spawn(process.execPath, ['--input-type=module', '-e', `
    const { openSqliteBackend } = await import(process.env.MODULE);
    const backend = openSqliteBackend(process.env.DB, { compactIntervalMs: 0, checkpoints: { everyBytes: 256 * 1024 } });
    const value = JSON.stringify('v'.repeat(16 * 1024));
    for (let i = 0; i < 1e6; i++) {
      const result = await backend.create('/k/' + i, value);
      process.stdout.write(result.kv.modRevision + '\\n');
    }`], {
    env: { ...process.env, DB: path, MODULE: new URL('../../src/storage/sqlite/index.js', import.meta.url).href },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.after(() => { child.kill('SIGKILL'); });
  const exited = once(child, 'exit');
  let acked = 0;
  for await (const line of createInterface({ input: child.stdout! })) {
    acked = Number(line);
    if (acked >= 600) break;
  }
  child.kill('SIGKILL');
  assert.deepEqual(await exited, [null, 'SIGKILL']);
  const backend = open(t, path);
  const stored = new Set((await backend.list('/k/')).kvs.map((kv) => kv.modRevision));
  const lost = Array.from({ length: acked }, (_, i) => i + 1).filter((rev) => !stored.has(rev));
  assert.deepEqual(lost, [], 'every acknowledged revision is stored');
});
