import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { WriteResult } from '../../src/storage/backend.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';

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
