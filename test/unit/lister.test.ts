/**
 * The watch-fed cache (registry/lister.ts) over a real registry (in-memory
 * SQLite), and the allocator's reservations (registry/reservations.ts).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { Registry } from '../../src/registry/registry.js';
import { Lister } from '../../src/registry/lister.js';
import { Reservations } from '../../src/registry/reservations.js';
import { realClock } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/log.js';

/** Resolves once `check` holds, polling the cache (the watch delivers asynchronously). */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('Lister', () => {
  let registry: Registry;
  const listers: Lister[] = [];

  before(async () => {
    registry = new Registry(openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: silentLogger }), realClock);
    for (const ns of ['a', 'b']) await registry.namespaces.create(undefined, { metadata: { name: ns } });
  });

  after(async () => {
    for (const l of listers) l.close();
    await registry.backend.close();
  });

  it('holds what was stored before start, then follows creates, updates and deletes, by namespace', async () => {
    const cms = registry.store('', 'v1', 'configmaps')!;
    await cms.create('a', { metadata: { name: 'before' }, data: { k: '1' } });
    const lister = new Lister(cms);
    listers.push(lister);
    assert.equal(lister.hasSynced(), false);
    assert.equal(lister.get('a', 'before'), undefined, 'nothing before start');
    await lister.start();
    assert.equal(lister.hasSynced(), true);
    assert.equal(lister.get('a', 'before')?.data.k, '1', 'the replay is complete when start resolves');

    await cms.create('b', { metadata: { name: 'later' } });
    await until(() => !!lister.get('b', 'later'), 'the create');
    assert.deepEqual(lister.list('a').map((o) => o.metadata.name), ['before']);
    assert.deepEqual(lister.list('b').map((o) => o.metadata.name), ['later']);
    assert.deepEqual(lister.list().map((o) => o.metadata.name).sort(), ['before', 'later']);

    await cms.update('a', 'before', { metadata: { name: 'before' }, data: { k: '2' } });
    await until(() => lister.get('a', 'before')?.data.k === '2', 'the update');

    await cms.delete('b', 'later');
    await until(() => !lister.get('b', 'later'), 'the delete');
    assert.deepEqual(lister.list('b'), []);
    assert.deepEqual([...lister.inNamespace('a')].map((o) => o.metadata.name), ['before']);
  });

  it('keys cluster-scoped objects under the empty namespace', async () => {
    const lister = new Lister(registry.namespaces);
    listers.push(lister);
    await lister.start();
    assert.equal(lister.get(undefined, 'a')?.metadata.name, 'a');
    assert.deepEqual(lister.list('').map((o) => o.metadata.name).sort(), ['a', 'b']);
  });

  it('after close it follows nothing more', async () => {
    const cms = registry.store('', 'v1', 'configmaps')!;
    const lister = new Lister(cms);
    await lister.start();
    lister.close();
    await cms.create('a', { metadata: { name: 'after-close' } });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(lister.get('a', 'after-close'), undefined);
  });
});

describe('Reservations', () => {
  it('holds a value for other owners until the cache shows it or it expires', () => {
    let now = 0;
    const r = new Reservations<number>(1000, () => now);
    r.reserve(30080, 'ns/a');
    assert.ok(r.with([], 'ns/b').has(30080), 'another Service may not take it');
    assert.ok(!r.with([], 'ns/a').has(30080), 'the same Service (a retried or dry-run create) may');
    assert.ok(r.with([30080], 'ns/b').has(30080), 'the cache holds it now');
    assert.ok(!r.with([], 'ns/b').has(30080), 'and the reservation ended: a deleted Service frees its port');
    r.reserve(30081, 'ns/a');
    now = 1000;
    assert.ok(!r.with([], 'ns/b').has(30081), 'an expired reservation (a failed create) frees its value');
  });
});
