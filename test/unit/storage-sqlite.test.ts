import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { CompactedError, type Backend, type WatchEvent, type WriteResult } from '../../src/storage/backend.js';
import { BackendClosedError, openSqliteBackend, type SqliteBackendOptions } from '../../src/storage/sqlite/index.js';
import { keyRange, prefixSuccessor } from '../../src/storage/sqlite/key-range.js';

// ---- helpers ----------------------------------------------------------------------------------

const quiet = { info() {}, error() {} };

function openMemory(t: TestContext, opts: SqliteBackendOptions = {}): Backend {
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: quiet, ...opts });
  t.after(() => backend.close());
  return backend;
}

async function tempDbPath(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'k8ts-storage-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'state.db');
}

function ok(result: WriteResult) {
  assert.ok(result.ok, `write failed: ${JSON.stringify(result)}`);
  return result.kv;
}

/** Polls a condition on macrotasks; a watch or a write is what makes it true, not time. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** A watch that records what it is told. */
function record(backend: Backend, prefix: string, fromRevision: number) {
  const seen = { events: [] as WatchEvent[], batches: 0, errors: [] as Error[] };
  const watcher = backend.watch(prefix, {
    fromRevision,
    onEvents: (events) => { seen.batches++; seen.events.push(...events); },
    onError: (err) => { seen.errors.push(err); },
  });
  return { seen, watcher, revisions: () => seen.events.map((e) => e.kv.modRevision) };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

// ---- guarded writes -----------------------------------------------------------------------------

test('create assigns one global revision to createRevision and modRevision', async (t) => {
  const backend = openMemory(t);
  assert.equal(await backend.currentRevision(), 0);
  const a = ok(await backend.create('/a', '{"n":1}'));
  const b = ok(await backend.create('/b', '{"n":2}'));
  assert.deepEqual(a, { key: '/a', value: '{"n":1}', createRevision: 1, modRevision: 1 });
  assert.deepEqual(b, { key: '/b', value: '{"n":2}', createRevision: 2, modRevision: 2 });
  assert.equal(await backend.currentRevision(), 2);
});

test('create of an existing key fails and reports the current value', async (t) => {
  const backend = openMemory(t);
  const first = ok(await backend.create('/a', '"v1"'));
  assert.deepEqual(await backend.create('/a', '"v2"'), { ok: false, current: first });
  assert.equal(await backend.currentRevision(), 1, 'a failed guard writes nothing');
});

test('update succeeds only from the current revision and keeps createRevision', async (t) => {
  const backend = openMemory(t);
  const created = ok(await backend.create('/a', '"v1"'));
  const updated = ok(await backend.update('/a', '"v2"', created.modRevision));
  assert.deepEqual(updated, { key: '/a', value: '"v2"', createRevision: 1, modRevision: 2 });
  // A second update from the same (now stale) revision loses, as a concurrent writer would.
  assert.deepEqual(await backend.update('/a', '"v3"', created.modRevision), { ok: false, current: updated });
  assert.deepEqual(await backend.update('/missing', '"x"', 1), { ok: false });
  assert.equal(await backend.currentRevision(), 2);
});

test('delete is guarded and returns the last value at the delete revision', async (t) => {
  const backend = openMemory(t);
  const created = ok(await backend.create('/a', '"v1"'));
  ok(await backend.create('/b', '"b"'));
  assert.deepEqual(await backend.delete('/a', 99), { ok: false, current: created });
  assert.deepEqual(await backend.delete('/missing', 1), { ok: false });
  const deleted = ok(await backend.delete('/a', created.modRevision));
  assert.deepEqual(deleted, { key: '/a', value: '"v1"', createRevision: 1, modRevision: 3 });
  assert.deepEqual(await backend.get('/a'), { revision: 3 });
  assert.deepEqual(await backend.delete('/a', 3), { ok: false });
});

test('a key created again after a delete starts a new life', async (t) => {
  const backend = openMemory(t);
  const first = ok(await backend.create('/a', '"v1"'));
  ok(await backend.delete('/a', first.modRevision));
  const again = ok(await backend.create('/a', '"v2"'));
  assert.deepEqual(again, { key: '/a', value: '"v2"', createRevision: 3, modRevision: 3 });
  assert.deepEqual((await backend.get('/a')).kv, again);
});

test('a create is guarded by the live value whatever the key history, and after a compacted tombstone starts a fresh chain', async (t) => {
  const backend = openMemory(t);
  const first = ok(await backend.create('/a', '"v1"'));
  const updated = ok(await backend.update('/a', '"v2"', first.modRevision));
  // The key's newest row is its live value's (a create reads it in one seek when the key has no row at all).
  assert.deepEqual(await backend.create('/a', '"x"'), { ok: false, current: updated });
  ok(await backend.delete('/a', updated.modRevision));
  await backend.compact(await backend.currentRevision()); // every row of /a gone, tombstone included
  const again = ok(await backend.create('/a', '"v3"'));
  assert.deepEqual(again, { key: '/a', value: '"v3"', createRevision: 4, modRevision: 4 });
  assert.deepEqual(await backend.create('/a', '"y"'), { ok: false, current: again });
  const changes: number[] = [];
  const w = backend.watch('/a', { fromRevision: 3, onEvents: (evs) => changes.push(...evs.map((e) => e.kv.modRevision)) });
  t.after(() => w.close());
  ok(await backend.update('/a', '"v4"', again.modRevision));
  const deadline = Date.now() + 10_000;
  while (changes.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(changes, [4, 5], 'the fresh chain is watched and updated as any key');
});

test('values are stored and returned as given, never parsed', async (t) => {
  const backend = openMemory(t);
  const odd = '{ "spaced" : [1,2] ,"ünï": "☃ 𝄞" }';
  ok(await backend.create('/odd', odd));
  assert.equal((await backend.get('/odd')).kv?.value, odd);
  ok(await backend.create('/not-json', 'not json at all'));
  assert.equal((await backend.get('/not-json')).kv?.value, 'not json at all');
});

test('the database itself rejects a second row from the same revision of a key', async (t) => {
  const path = await tempDbPath(t);
  const backend = openSqliteBackend(path, { compactIntervalMs: 0, logger: quiet });
  t.after(() => backend.close());
  const created = ok(await backend.create('/a', '"v1"'));
  ok(await backend.update('/a', '"v2"', created.modRevision));
  // A second connection, as another process would have, bypassing the guard in the writer.
  const raw = new Database(path);
  t.after(() => raw.close());
  assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
  const insert = raw.prepare(`INSERT INTO kv_log (name, created, deleted, create_revision, prev_revision, value)
                              VALUES (?, ?, 0, 1, ?, '"rogue"')`);
  assert.throws(() => insert.run('/a', 1, 0), { code: 'SQLITE_CONSTRAINT_UNIQUE' }, 'second create');
  assert.throws(() => insert.run('/a', 0, created.modRevision), { code: 'SQLITE_CONSTRAINT_UNIQUE' }, 'stale update');
  assert.equal((await backend.get('/a')).kv?.value, '"v2"');
});

// ---- revisions across restarts ------------------------------------------------------------------

test('revisions continue after reopening a file database, even when the newest rows were compacted', async (t) => {
  const path = await tempDbPath(t);
  let backend = openSqliteBackend(path, { compactIntervalMs: 0, logger: quiet });
  const a = ok(await backend.create('/a', '"a"'));
  const b = ok(await backend.create('/b', '"b"'));
  ok(await backend.delete('/b', b.modRevision));
  ok(await backend.update('/a', '"a2"', a.modRevision));
  const gone = ok(await backend.create('/gone', '"x"'));
  ok(await backend.delete('/gone', gone.modRevision)); // revision 6: a tombstone, the newest row
  await backend.compact(6); // removes the tombstone: max(id) in the table is now 4
  await backend.close();

  backend = openSqliteBackend(path, { compactIntervalMs: 0, logger: quiet });
  t.after(() => backend.close());
  assert.equal(await backend.currentRevision(), 6);
  assert.equal(await backend.compactedRevision(), 6, 'the compacted revision is persisted');
  assert.deepEqual((await backend.get('/a')).kv, { key: '/a', value: '"a2"', createRevision: 1, modRevision: 4 });
  assert.equal(ok(await backend.create('/c', '"c"')).modRevision, 7);
  await assert.rejects(backend.get('/a', { revision: 5 }), CompactedError);
});

test('SIGKILL loses no acknowledged write', async (t) => {
  const path = await tempDbPath(t);
  // A writer in its own process reports each revision only after create() resolved.
  const child = spawn(process.execPath, ['--input-type=module', '-e', `
    const { openSqliteBackend } = await import(process.env.MODULE);
    const backend = openSqliteBackend(process.env.DB, { compactIntervalMs: 0 });
    for (let i = 0; i < 1e6; i++) {
      const result = await backend.create('/k/' + i, String(i));
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
    if (acked >= 300) break;
  }
  child.kill('SIGKILL');
  assert.deepEqual(await exited, [null, 'SIGKILL']);

  const backend = openSqliteBackend(path, { compactIntervalMs: 0, logger: quiet });
  t.after(() => backend.close());
  assert.ok(await backend.currentRevision() >= acked);
  const kvs = (await backend.list('/k/')).kvs;
  const stored = new Set(kvs.map((kv) => kv.modRevision));
  assert.deepEqual(range(1, acked).filter((rev) => !stored.has(rev)), [], 'every acknowledged revision is stored');
});

// ---- reads --------------------------------------------------------------------------------------

test('get and list read at an older revision', async (t) => {
  const backend = openMemory(t);
  const a1 = ok(await backend.create('/r/a', '"a1"'));                 // 1
  const b1 = ok(await backend.create('/r/b', '"b1"'));                 // 2
  const a2 = ok(await backend.update('/r/a', '"a2"', a1.modRevision)); // 3
  ok(await backend.delete('/r/b', b1.modRevision));                     // 4
  const c1 = ok(await backend.create('/r/c', '"c1"'));                 // 5

  assert.deepEqual(await backend.get('/r/a', { revision: 2 }), { kv: a1, revision: 2 });
  assert.deepEqual(await backend.get('/r/a', { revision: 3 }), { kv: a2, revision: 3 });
  assert.deepEqual(await backend.get('/r/b', { revision: 3 }), { kv: b1, revision: 3 });
  assert.deepEqual(await backend.get('/r/b', { revision: 4 }), { revision: 4 });
  assert.deepEqual(await backend.get('/r/c', { revision: 4 }), { revision: 4 });

  const at = async (revision: number) => (await backend.list('/r/', { revision })).kvs;
  assert.deepEqual(await at(1), [a1]);
  assert.deepEqual(await at(2), [a1, b1]);
  assert.deepEqual(await at(3), [a2, b1]);
  assert.deepEqual(await at(4), [a2]);
  assert.deepEqual(await backend.list('/r/'), { kvs: [a2, c1], revision: 5, more: false });
  assert.deepEqual(await backend.list('/r/', { revision: 4 }), { kvs: [a2], revision: 4, more: false });
});

test('a read at a future revision is a read at the latest one', async (t) => {
  const backend = openMemory(t);
  const a = ok(await backend.create('/a', '"a"'));
  assert.deepEqual(await backend.get('/a', { revision: 50 }), { kv: a, revision: 1 });
  assert.deepEqual(await backend.list('/', { revision: 50 }), { kvs: [a], revision: 1, more: false });
});

test('list returns exactly the keys under the prefix, in key order', async (t) => {
  const backend = openMemory(t);
  const keys = ['/p/b', '/p0', '/p', '/p/a/x', '/q', '/p/a', '/o', '/p/\u{1F600}', '/p/\uFFFD'];
  for (const key of keys) ok(await backend.create(key, '"v"'));
  const listed = async (prefix: string) => (await backend.list(prefix)).kvs.map((kv) => kv.key);
  // UTF-8 byte order: U+FFFD (EF BF BD) sorts before U+1F600 (F0 9F 98 80).
  assert.deepEqual(await listed('/p/'), ['/p/a', '/p/a/x', '/p/b', '/p/\uFFFD', '/p/\u{1F600}']);
  assert.deepEqual(await listed('/p/a'), ['/p/a', '/p/a/x']);
  assert.deepEqual(await listed('/p'), ['/p', '/p/a', '/p/a/x', '/p/b', '/p/\uFFFD', '/p/\u{1F600}', '/p0']);
  assert.deepEqual((await listed('')).length, keys.length, 'the empty prefix lists everything');
  assert.deepEqual(await listed('/none/'), []);
  assert.equal(await backend.count('/p/'), 5);
  assert.equal(await backend.count(''), keys.length);
  assert.equal(await backend.count('/none/'), 0);
});

test('list pages with limit and startKey, and says when more remain', async (t) => {
  const backend = openMemory(t);
  for (let i = 0; i < 10; i++) ok(await backend.create(`/page/k${i}`, `"${i}"`));
  ok(await backend.create('/pagez', '"outside"'));
  const pages: string[][] = [];
  let startKey: string | undefined;
  let revision = 0;
  for (;;) {
    const page = await backend.list('/page/', { limit: 4, startKey, revision });
    revision = page.revision;
    pages.push(page.kvs.map((kv) => kv.key));
    if (!page.more) break;
    startKey = page.kvs[page.kvs.length - 1].key + '\0';
    // Writes between pages do not show in a list pinned to its first revision.
    ok(await backend.create(`/page/k${pages.length}a`, '"late"'));
  }
  assert.deepEqual(pages, [
    ['/page/k0', '/page/k1', '/page/k2', '/page/k3'],
    ['/page/k4', '/page/k5', '/page/k6', '/page/k7'],
    ['/page/k8', '/page/k9'],
  ]);
  const latest = await backend.list('/page/', { limit: 2, startKey: '/page/k1' });
  assert.deepEqual(latest.kvs.map((kv) => kv.key), ['/page/k1', '/page/k1a'], 'the latest revision has the late keys');
  assert.equal(latest.more, true);
  const end = await backend.list('/page/', { limit: 2, startKey: '/page/k8' });
  assert.deepEqual([end.kvs.length, end.more], [2, false], 'a full last page has no more');
  assert.deepEqual((await backend.list('/page/', { startKey: '/a' })).kvs.length, 12, 'a startKey before the prefix is ignored');
  assert.deepEqual((await backend.list('/page/', { startKey: '/z' })).kvs, []);
  assert.deepEqual((await backend.list('/page/', { limit: 0 })).more, false, 'limit 0 means no limit');
});

test('keyRange and prefixSuccessor bound prefixes in UTF-8 byte order', () => {
  assert.equal(prefixSuccessor(''), undefined);
  assert.equal(prefixSuccessor('/registry/pods/'), '/registry/pods0');
  assert.equal(prefixSuccessor('a\u{10FFFF}'), 'b');
  assert.equal(prefixSuccessor('a\u{1F600}'), 'a\u{1F601}');
  assert.equal(prefixSuccessor('a\uD7FF'), 'a\uE000', 'surrogates cannot be stored, skip them');
  assert.equal(prefixSuccessor('\u{10FFFF}'), undefined);
  assert.deepEqual(keyRange(''), { from: '' });
  assert.deepEqual(keyRange('/p/', '/p/x'), { from: '/p/x', to: '/p0' });
  assert.deepEqual(keyRange('/p/', '/a'), { from: '/p/', to: '/p0' });
  assert.deepEqual(keyRange('/p/\uFFFD', '/p/\u{1F600}'), { from: '/p/\u{1F600}', to: '/p/\uFFFE' });
});

// ---- watch --------------------------------------------------------------------------------------

test('watch replays history then continues live, with no gap and no duplicate', async (t) => {
  const backend = openMemory(t);
  // More than one replay chunk (1000 rows) of history, mixing creates, updates and deletes.
  const live = new Map<string, number>();
  const write = async (i: number) => {
    const key = `/w/k${i % 300}`;
    const rev = live.get(key);
    const kv = rev === undefined ? ok(await backend.create(key, `"${i}"`))
      : i % 7 === 0 ? ok(await backend.delete(key, rev)) : ok(await backend.update(key, `"${i}"`, rev));
    if (rev !== undefined && i % 7 === 0) live.delete(key); else live.set(key, kv.modRevision);
  };
  for (let i = 0; i < 2500; i++) await write(i);
  ok(await backend.create('/other', '"not watched"'));
  const from = 5;
  const w = record(backend, '/w/', from);
  // Keep writing while the replay runs in steps; setImmediate lets the steps interleave.
  for (let i = 2500; i < 3000; i++) {
    await write(i);
    if (i % 50 === 0) await nextMacrotask();
  }
  const last = await backend.currentRevision();
  await until(() => w.revisions().at(-1) === last, 'the last write');
  const expected = range(from + 1, last).filter((rev) => rev !== 2501);
  assert.deepEqual(w.revisions(), expected);
  assert.ok(w.seen.batches > 2, 'replay came in chunks');
  assert.deepEqual(w.seen.errors, []);
  w.watcher.close();
});

test('events carry prevKv and the created flag, the same replayed or live', async (t) => {
  const backend = openMemory(t);
  const fromLive = record(backend, '/e/', 0);
  const c = ok(await backend.create('/e/a', '"v1"'));
  const u = ok(await backend.update('/e/a', '"v2"', c.modRevision));
  const d = ok(await backend.delete('/e/a', u.modRevision));
  const again = ok(await backend.create('/e/a', '"v3"'));
  const expected: WatchEvent[] = [
    { type: 'put', kv: c, created: true },
    { type: 'put', kv: u, prevKv: c },
    { type: 'delete', kv: d, prevKv: u },
    { type: 'put', kv: again, created: true },
  ];
  await until(() => fromLive.seen.events.length === 4, 'four live events');
  assert.deepEqual(fromLive.seen.events, expected);
  const replayed = record(backend, '', 0); // the empty prefix: an unbounded range
  await until(() => replayed.seen.events.length === 4, 'four replayed events');
  assert.deepEqual(replayed.seen.events, expected);
});

test('prevKv of an update still watchable after compaction comes from the row it replaced', async (t) => {
  const backend = openMemory(t);
  const v1 = ok(await backend.create('/e/a', '"v1"'));
  const v2 = ok(await backend.update('/e/a', '"v2"', v1.modRevision));
  const v3 = ok(await backend.update('/e/a', '"v3"', v2.modRevision));
  await backend.compact(2); // removes v1; v2 stays, it is the value at revision 2
  const w = record(backend, '/e/', 2);
  await until(() => w.seen.events.length === 1, 'the update at 3');
  assert.deepEqual(w.seen.events, [{ type: 'put', kv: v3, prevKv: v2 }]);
});

test('watch delivers only keys under its prefix, in order, to many watchers', async (t) => {
  const backend = openMemory(t);
  const rev = await backend.currentRevision();
  const perNamespace = Array.from({ length: 2000 }, (_, i) => record(backend, `/pods/ns${i}/`, rev));
  const all = record(backend, '/pods/', rev);
  const exact = record(backend, '/pods/ns7/p', rev);
  for (const ns of [7, 70, 700, 7]) ok(await backend.create(`/pods/ns${ns}/p${ns}-${perNamespace[ns].seen.events.length}`, '"p"'));
  await until(() => all.seen.events.length === 4, 'four events');
  assert.deepEqual(perNamespace[7].seen.events.map((e) => e.kv.key), ['/pods/ns7/p7-0', '/pods/ns7/p7-1']);
  assert.deepEqual(perNamespace[70].seen.events.map((e) => e.kv.key), ['/pods/ns70/p70-0']);
  assert.equal(perNamespace.reduce((n, w) => n + w.seen.events.length, 0), 4);
  assert.deepEqual(all.revisions(), [1, 2, 3, 4]);
  assert.deepEqual(exact.revisions(), [1, 4]);
  for (const w of [...perNamespace, all, exact]) w.watcher.close();
});

test('watch delivers asynchronously, never inside the write', async (t) => {
  const backend = openMemory(t);
  const w = record(backend, '/', 0);
  const write = backend.create('/a', '"a"');
  assert.equal(w.seen.events.length, 0);
  await write;
  await until(() => w.seen.events.length === 1, 'the event');
});

test('a watch from a future revision waits for it', async (t) => {
  const backend = openMemory(t);
  const w = record(backend, '/', 2);
  for (const key of ['/a', '/b', '/c']) ok(await backend.create(key, '"v"'));
  await until(() => w.seen.events.length === 1, 'revision 3');
  assert.deepEqual(w.revisions(), [3]);
});

test('a closed watcher receives nothing more', async (t) => {
  const backend = openMemory(t);
  const w = record(backend, '/', 0);
  const other = record(backend, '/', 0);
  ok(await backend.create('/a', '"a"'));
  await until(() => w.seen.events.length === 1, 'the first event');
  const second = backend.create('/b', '"b"'); // committed and queued for w, not yet delivered
  w.watcher.close();
  ok(await second);
  await until(() => other.seen.events.length === 2, 'both events on the other watcher');
  assert.deepEqual(w.revisions(), [1]);
});

test('a watch from a compacted revision fails with CompactedError, asynchronously', async (t) => {
  const backend = openMemory(t);
  const a = ok(await backend.create('/a', '"1"'));
  const a2 = ok(await backend.update('/a', '"2"', a.modRevision));
  ok(await backend.update('/a', '"3"', a2.modRevision));
  await backend.compact(2);
  const w = record(backend, '/', 1);
  assert.equal(w.seen.errors.length, 0, 'not called from inside watch()');
  await until(() => w.seen.errors.length === 1, 'the error');
  const err = w.seen.errors[0];
  assert.ok(err instanceof CompactedError);
  assert.equal(err.requested, 1);
  assert.equal(err.compacted, 2);
  assert.deepEqual(w.seen.events, []);
  // From the compacted revision itself, nothing needed is gone.
  const atEdge = record(backend, '/', 2);
  await until(() => atEdge.seen.events.length === 1, 'revision 3');
  assert.deepEqual(atEdge.seen.errors, []);
});

test('a replaying watch that compaction overtakes fails instead of skipping events', async (t) => {
  const backend = openMemory(t);
  let rev = ok(await backend.create('/a', '"0"')).modRevision;
  for (let i = 1; i < 3000; i++) rev = ok(await backend.update('/a', `"${i}"`, rev)).modRevision;
  const w = record(backend, '/', 0);
  await until(() => w.seen.events.length > 0, 'the first replay chunk');
  await backend.compact(2000);
  await until(() => w.seen.errors.length === 1, 'the error');
  assert.ok(w.seen.errors[0] instanceof CompactedError);
  assert.deepEqual(w.revisions(), range(1, w.seen.events.length), 'what came before the error has no gap');
});

test('a throwing watch callback is logged and does not stop other watchers', async (t) => {
  const errors: string[] = [];
  const backend = openMemory(t, { logger: { info() {}, error: (message) => errors.push(message) } });
  backend.watch('/', { fromRevision: 0, onEvents: () => { throw new Error('boom'); } });
  const good = record(backend, '/', 0);
  ok(await backend.create('/a', '"a"'));
  ok(await backend.create('/b', '"b"'));
  await until(() => good.seen.events.length === 2, 'both events');
  assert.deepEqual(errors, ['watch onEvents callback threw', 'watch onEvents callback threw']);
});

// ---- compaction ---------------------------------------------------------------------------------

test('compaction forgets history but keeps every latest value', async (t) => {
  const path = await tempDbPath(t);
  const backend = openSqliteBackend(path, { compactIntervalMs: 0, logger: quiet });
  t.after(() => backend.close());
  const a = ok(await backend.create('/c/a', '"a1"'));             // 1
  const b = ok(await backend.create('/c/b', '"b1"'));             // 2
  ok(await backend.update('/c/a', '"a2"', a.modRevision));         // 3
  ok(await backend.delete('/c/b', b.modRevision));                 // 4
  const keep = ok(await backend.create('/c/keep', '"k"'));        // 5
  const dead = ok(await backend.create('/c/dead', '"d"'));        // 6
  ok(await backend.delete('/c/dead', dead.modRevision));           // 7
  const a3 = ok(await backend.update('/c/a', '"a3"', 3));          // 8
  const before = await backend.list('/c/');

  await backend.compact(7);
  assert.equal(await backend.compactedRevision(), 7);
  assert.deepEqual(await backend.list('/c/'), before);
  assert.deepEqual((await backend.list('/c/', { revision: 7 })).kvs.map((kv) => kv.value), ['"a2"', '"k"']);
  await assert.rejects(backend.list('/c/', { revision: 6 }), (err: unknown) =>
    err instanceof CompactedError && err.requested === 6 && err.compacted === 7);
  await assert.rejects(backend.get('/c/a', { revision: 2 }), CompactedError);

  const raw = new Database(path, { readonly: true });
  t.after(() => raw.close());
  const rows = raw.prepare('SELECT id FROM kv_log ORDER BY id').pluck().all();
  // Kept: a2 (3, the value at 7 and a3's prevKv source), keep (5), a3 (8). Gone: superseded rows and tombstones.
  assert.deepEqual(rows, [3, 5, 8]);
  assert.deepEqual([a3.modRevision, keep.modRevision], [8, 5]);

  await backend.compact(100);
  assert.equal(await backend.compactedRevision(), 8, 'compaction stops at the current revision');
  assert.deepEqual(raw.prepare('SELECT id FROM kv_log ORDER BY id').pluck().all(), [5, 8]);
  await backend.compact(3);
  assert.equal(await backend.compactedRevision(), 8, 'compaction never goes back');
});

test('automatic compaction keeps about the history window', async (t) => {
  let now = Date.parse('2025-01-01T00:00:00Z');
  let clockReads = 0;
  const clock = { now: () => { clockReads++; return new Date(now); } };
  const backend = openMemory(t, { clock, compactIntervalMs: 2, historyWindowSeconds: 60 });
  const a = ok(await backend.create('/a', '"1"'));
  ok(await backend.update('/a', '"2"', a.modRevision));
  // A round samples (revision 2, t0); nothing is a window old yet. Counted from here: on a loaded
  // machine rounds also ran between the two writes and sampled only revision 1.
  clockReads = 0;
  await until(() => clockReads >= 2, 'two compaction rounds');
  assert.equal(await backend.compactedRevision(), 0);
  now += 61_000;
  const a3 = ok(await backend.update('/a', '"3"', 2));
  await until(() => clockReads >= 4, 'two more rounds');
  assert.equal(await backend.compactedRevision(), 2, 'compacted to the revision sampled a window ago');
  assert.deepEqual((await backend.get('/a', { revision: 2 })).kv?.value, '"2"');
  await assert.rejects(backend.get('/a', { revision: 1 }), CompactedError);
  assert.deepEqual((await backend.get('/a')).kv, a3);
});

// ---- close --------------------------------------------------------------------------------------

test('close ends watches, and every later call rejects', async (t) => {
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 10, logger: quiet });
  const w = record(backend, '/', 0);
  ok(await backend.create('/a', '"a"'));
  await backend.close();
  await until(() => w.seen.errors.length === 1, 'the watch to end');
  assert.deepEqual(w.revisions(), [1], 'events queued before close still arrive');
  assert.ok(w.seen.errors[0] instanceof BackendClosedError);

  for (const call of [
    () => backend.currentRevision(), () => backend.compactedRevision(), () => backend.get('/a'),
    () => backend.list('/'), () => backend.count('/'), () => backend.create('/b', '"b"'),
    () => backend.update('/a', '"b"', 1), () => backend.delete('/a', 1), () => backend.compact(1),
  ]) await assert.rejects(call(), BackendClosedError);
  await backend.close(); // idempotent
  const late = record(backend, '/', 0);
  await until(() => late.seen.errors.length === 1, 'the late watch to fail');
  assert.ok(late.seen.errors[0] instanceof BackendClosedError);
  t.diagnostic('closed');
});
