/**
 * The Backend contract (src/storage/backend.ts) as tests any implementation must pass; run on
 * SQLite (test/unit/storage-contract-sqlite.test.ts) and on a real etcd
 * (test/unit/storage-etcd.test.ts). Each test works under its own key prefix and counts
 * revisions from the store's revision when it starts, so the tests can share one store
 * (one etcd per test file).
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { CompactedError, type Backend, type ListResult, type WatchEvent, type WriteResult } from '../../src/storage/backend.js';

export type OpenBackend = (t: TestContext) => Promise<Backend>;

export function ok(result: WriteResult) {
  assert.ok(result.ok, `write failed: ${JSON.stringify(result)}`);
  return result.kv;
}

/** Polls a condition; a watch or a write is what makes it true, not time. Generous: the machine is shared. */
export async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A watch that records what it is told. */
export function record(backend: Backend, prefix: string, fromRevision: number) {
  const seen = { events: [] as WatchEvent[], errors: [] as Error[] };
  const watcher = backend.watch(prefix, {
    fromRevision,
    onEvents: (events) => { seen.events.push(...events); },
    onError: (err) => { seen.errors.push(err); },
  });
  return { seen, watcher, revisions: () => seen.events.map((e) => e.kv.modRevision) };
}

let prefixes = 0;

/** `root`: where each test's keys live; under a registry resource's prefix a backend may map them (etcd's key layout). */
/** A list's count, where the backend gives one (etcd), is `keys`; the rest of the result is returned for comparing. */
function counted(list: ListResult, keys: number): Omit<ListResult, 'count'> {
  const { count, ...rest } = list;
  if (count !== undefined) assert.equal(count, keys, 'the count of keys in the range, limit or not');
  return rest;
}

export function backendContract(name: string, open: OpenBackend, root = '/contract/'): void {
  /** A fresh key space and the revision the store is at. */
  const setup = async (t: TestContext) => {
    const backend = await open(t);
    const p = `${root}${process.pid}-${++prefixes}/`;
    return { backend, p, base: await backend.currentRevision() };
  };

  test(`${name}: guarded create, update and delete, with one global revision`, async (t) => {
    const { backend, p, base } = await setup(t);
    const a = ok(await backend.create(`${p}a`, '{"n":1}'));
    assert.deepEqual(a, { key: `${p}a`, value: '{"n":1}', createRevision: base + 1, modRevision: base + 1 });
    assert.deepEqual(await backend.create(`${p}a`, '"again"'), { ok: false, current: a }, 'create of an existing key reports it');
    const a2 = ok(await backend.update(`${p}a`, '"v2"', a.modRevision));
    assert.deepEqual(a2, { key: `${p}a`, value: '"v2"', createRevision: base + 1, modRevision: base + 2 });
    assert.deepEqual(await backend.update(`${p}a`, '"v3"', a.modRevision), { ok: false, current: a2 }, 'a stale update loses');
    assert.deepEqual(await backend.update(`${p}missing`, '"x"', a.modRevision), { ok: false });
    assert.deepEqual(await backend.delete(`${p}a`, a.modRevision), { ok: false, current: a2 }, 'a stale delete loses');
    assert.deepEqual(await backend.delete(`${p}missing`, 1), { ok: false });
    assert.equal(await backend.currentRevision(), base + 2, 'lost guards write nothing');
    const d = ok(await backend.delete(`${p}a`, a2.modRevision));
    assert.deepEqual(d, { key: `${p}a`, value: '"v2"', createRevision: base + 1, modRevision: base + 3 });
    assert.deepEqual(await backend.get(`${p}a`), { revision: base + 3 });
    const again = ok(await backend.create(`${p}a`, '"v3"'));
    assert.deepEqual(again, { key: `${p}a`, value: '"v3"', createRevision: base + 4, modRevision: base + 4 });
  });

  test(`${name}: values are stored as given`, async (t) => {
    const { backend, p } = await setup(t);
    const odd = '{ "spaced" : [1,2] ,"ünï": "☃ 𝄞" }';
    ok(await backend.create(`${p}odd`, odd));
    assert.equal((await backend.get(`${p}odd`)).kv?.value, odd);
  });

  test(`${name}: get, list and count at an older revision`, async (t) => {
    const { backend, p, base } = await setup(t);
    const a1 = ok(await backend.create(`${p}a`, '"a1"'));
    const b1 = ok(await backend.create(`${p}b`, '"b1"'));
    const a2 = ok(await backend.update(`${p}a`, '"a2"', a1.modRevision));
    ok(await backend.delete(`${p}b`, b1.modRevision));
    const c1 = ok(await backend.create(`${p}c`, '"c1"'));
    assert.deepEqual(await backend.get(`${p}a`, { revision: base + 2 }), { kv: a1, revision: base + 2 });
    assert.deepEqual(await backend.get(`${p}b`, { revision: base + 4 }), { revision: base + 4 });
    assert.deepEqual(counted(await backend.list(p, { revision: base + 3 }), 2), { kvs: [a2, b1], revision: base + 3, more: false });
    assert.deepEqual(counted(await backend.list(p), 2), { kvs: [a2, c1], revision: base + 5, more: false });
    assert.equal(await backend.count(p, { revision: base + 2 }), 2);
    assert.equal(await backend.count(p), 2);
    assert.equal(await backend.count(p, { startKey: `${p}b` }), 1);
    assert.deepEqual(await backend.get(`${p}a`, { revision: base + 500 }), { kv: a2, revision: base + 5 }, 'a future revision reads the latest');
  });

  test(`${name}: list keeps to the prefix in byte order and pages with limit and startKey`, async (t) => {
    const { backend, p } = await setup(t);
    for (const k of ['b', 'a/x', 'a', '\u{1F600}', '\uFFFD']) ok(await backend.create(`${p}${k}`, '"v"'));
    ok(await backend.create(`${p.slice(0, -1)}0`, '"outside"'));
    const keys = async (prefix: string) => (await backend.list(prefix)).kvs.map((kv) => kv.key.slice(p.length));
    assert.deepEqual(await keys(p), ['a', 'a/x', 'b', '\uFFFD', '\u{1F600}']);
    assert.deepEqual(await keys(`${p}a`), ['a', 'a/x']);
    const pages: string[][] = [];
    let startKey: string | undefined;
    let revision = 0;
    for (;;) {
      const page = await backend.list(p, { limit: 2, startKey, revision });
      // The keys from this page's start at the list's revision, the limit not applied (5, 3, 1).
      counted(page, 5 - 2 * pages.length);
      revision = page.revision;
      pages.push(page.kvs.map((kv) => kv.key.slice(p.length)));
      if (!page.more) break;
      startKey = page.kvs[page.kvs.length - 1].key + '\0';
      // A write between pages does not show in a list pinned to its first revision.
      ok(await backend.create(`${p}a/y${pages.length}`, '"late"'));
    }
    assert.deepEqual(pages, [['a', 'a/x'], ['b', '\uFFFD'], ['\u{1F600}']]);
  });

  test(`${name}: watch from a revision replays then continues, with prevKv, created and deletes`, async (t) => {
    const { backend, p, base } = await setup(t);
    const c = ok(await backend.create(`${p}a`, '"v1"'));
    const u = ok(await backend.update(`${p}a`, '"v2"', c.modRevision));
    const w = record(backend, p, base);
    t.after(() => w.watcher.close());
    ok(await backend.create(`${p.slice(0, -1)}-other`, '"not watched"'));
    const d = ok(await backend.delete(`${p}a`, u.modRevision));
    const again = ok(await backend.create(`${p}a`, '"v3"'));
    const expected: WatchEvent[] = [
      { type: 'put', kv: c, created: true },
      { type: 'put', kv: u, prevKv: c },
      { type: 'delete', kv: d, prevKv: u },
      { type: 'put', kv: again, created: true },
    ];
    await until(() => w.seen.events.length >= 4, 'four events');
    assert.deepEqual(w.seen.events, expected);
    const late = record(backend, p, u.modRevision);
    t.after(() => late.watcher.close());
    await until(() => late.seen.events.length >= 2, 'the events after the update');
    assert.deepEqual(late.seen.events, expected.slice(2));
    assert.deepEqual([...w.seen.errors, ...late.seen.errors], []);
  });

  test(`${name}: the empty prefix watches every key, and a closed watcher hears nothing more`, async (t) => {
    const { backend, p, base } = await setup(t);
    const all = record(backend, '', base);
    const closed = record(backend, p, base);
    closed.watcher.close();
    const a = ok(await backend.create(`${p}a`, '"a"'));
    await until(() => all.revisions().includes(a.modRevision), 'the write');
    all.watcher.close();
    assert.deepEqual(closed.seen.events, []);
  });

  test(`${name}: compaction keeps latest values and refuses older reads and watches with CompactedError`, async (t) => {
    const { backend, p } = await setup(t);
    const a1 = ok(await backend.create(`${p}a`, '"a1"'));
    const a2 = ok(await backend.update(`${p}a`, '"a2"', a1.modRevision));
    const a3 = ok(await backend.update(`${p}a`, '"a3"', a2.modRevision));
    await backend.compact(a2.modRevision);
    assert.equal(await backend.compactedRevision(), a2.modRevision);
    assert.deepEqual((await backend.get(`${p}a`)).kv, a3);
    assert.deepEqual((await backend.get(`${p}a`, { revision: a2.modRevision })).kv, a2, 'the compacted revision itself is readable');
    await assert.rejects(backend.get(`${p}a`, { revision: a1.modRevision }), (err: unknown) =>
      err instanceof CompactedError && err.requested === a1.modRevision && err.compacted === a2.modRevision);
    await assert.rejects(backend.list(p, { revision: a1.modRevision }), CompactedError);
    await assert.rejects(backend.count(p, { revision: a1.modRevision }), CompactedError);
    const w = record(backend, p, a1.modRevision - 1);
    await until(() => w.seen.errors.length === 1, 'the watch error');
    assert.ok(w.seen.errors[0] instanceof CompactedError);
    assert.equal((w.seen.errors[0] as CompactedError).compacted, a2.modRevision);
    assert.deepEqual(w.seen.events, []);
    const edge = record(backend, p, a2.modRevision);
    t.after(() => edge.watcher.close());
    await until(() => edge.seen.events.length === 1, 'the update after the compacted revision');
    assert.deepEqual(edge.seen.events, [{ type: 'put', kv: a3, prevKv: a2 }]);
    await backend.compact(a1.modRevision);
    assert.equal(await backend.compactedRevision(), a2.modRevision, 'compaction never goes back');
  });
}
