/**
 * What an update to one object keeps of its versions (issue 19, attack 4: sixteen applies to one
 * ConfigMap in a loop; bench/apply-alloc.ts):
 *  - A version the next one replaced keeps no JSON text in the watch cache (rendered-json.ts):
 *    the current version's text stays (its GETs, watchers and the next write's answer use it), a
 *    replay from an older resourceVersion renders the old version again, the same text.
 *  - The managedFields entries a write left as they were are the previous version's objects.
 *  - A server-side apply to a kind whose strategy copies nothing of the old object (a ConfigMap)
 *    starts from the watch cache's shared copy, not a private parse of it, and leaves that copy as
 *    it was; a kind whose update keeps the old status (a Service) still gets a private copy.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap, Service } from 'kubernetes-types/core/v1.js';
import { Registry } from '../../src/registry/registry.js';
import type { Store } from '../../src/registry/store.js';
import { applyConfiguration, type ApplyContext } from '../../src/api/managedfields/index.js';
import { hasRenderedJSON, renderedJSON } from '../../src/registry/watch-cache/rendered-json.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { realClock } from '../../src/util/clock.js';
import { silentLogger as quiet } from '../../src/util/log.js';
import type { WatchEventOut } from '../../src/registry/types.js';

async function setup(t: { after(fn: () => Promise<void>): void }): Promise<Registry> {
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: quiet });
  const registry = new Registry(backend, realClock);
  t.after(async () => { registry.closeWatchCache(); await backend.close(); });
  await registry.startWatchCache({ capacity: 1024, logger: quiet });
  await registry.namespaces.create(undefined, { metadata: { name: 'default' } });
  return registry;
}

/** As apiserver/handlers/apply.ts calls the store; `seen` gets each live object the merge starts from. */
function apply(store: Store, name: string, config: object, manager: string, seen: unknown[] = []): Promise<any> {
  const ctx: ApplyContext = { kindKey: store.info.group ? `${store.info.group}/${store.apiVersion}/${store.info.kind}` : `${store.apiVersion}/${store.info.kind}`, apiVersion: store.apiVersion, manager, force: false, now: new Date(), ignoredFields: store.strategy.hasStatus ? ['status'] : [] };
  return store.guaranteedUpdate('default', name, (live: unknown) => {
    seen.push(live);
    // resourceVersion last, as the handler puts it: the answer's text is then the stored value's.
    const out = applyConfiguration(live, config, ctx);
    const { resourceVersion, ...rest } = out.metadata;
    if (resourceVersion !== undefined) out.metadata = { ...rest, resourceVersion };
    return out;
  }, { mutateCopies: true, resultShared: true });
}

test("a replaced version keeps no text; the current one does; a replay renders the old one's as it was", async (t) => {
  const registry = await setup(t);
  const cms = registry.store('', 'v1', 'configmaps')!;
  await cms.create('default', { metadata: { name: 'ssa' } } satisfies ConfigMap);
  const versions: ConfigMap[] = [];
  for (let i = 0; i < 3; i++) {
    versions.push(await apply(cms, 'ssa', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { [`k${i}`]: `v${i}` } }, `m${i}`));
  }
  const [first, second, third] = versions;
  // Written with resultShared: each answer is the cache's own object.
  assert.equal(cms.watchCache!.current(cms.key('default', 'ssa')), third);
  assert.equal(hasRenderedJSON(first!), false);
  assert.equal(hasRenderedJSON(second!), false);
  assert.equal(hasRenderedJSON(third!), true);
  assert.equal(renderedJSON(third!), JSON.stringify(third));
  const texts: string[] = [];
  const w = await cms.watch('default', { resourceVersion: String(Number(first!.metadata!.resourceVersion) - 1) }, (e: WatchEventOut) => { texts.push(JSON.stringify(e.object)); }, () => {});
  w.close();
  assert.deepEqual(texts, versions.map((v) => JSON.stringify(v)));
  assert.deepEqual(Object.keys(third!.data!), ['k0', 'k1', 'k2']);
  assert.deepEqual(third!.metadata!.managedFields!.map((e) => e.manager), ['m0', 'm1', 'm2']);
  // The entries the last apply left alone are the previous version's own objects (frozen), not copies.
  const [m0, m1] = third!.metadata!.managedFields!;
  assert.equal(m0, second!.metadata!.managedFields![0]);
  assert.equal(m0, first!.metadata!.managedFields![0]);
  assert.equal(m1, second!.metadata!.managedFields![1]);
  assert.ok(Object.isFrozen(m0) && Object.isFrozen(m1));
  assert.notEqual(third!.metadata!.managedFields![2], undefined);
  assert.equal(Object.isFrozen(third!.metadata!.managedFields![2]), false);
});

test('an apply to a ConfigMap starts from the cached copy and leaves it unchanged; a Service gets a private copy', async (t) => {
  const registry = await setup(t);
  const cms = registry.store('', 'v1', 'configmaps')!;
  await cms.create('default', { metadata: { name: 'ssa', labels: { a: 'b' } }, data: { x: '1' } } satisfies ConfigMap);
  const cached = await apply(cms, 'ssa', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { k: 'v' } }, 'first');
  const before = JSON.stringify(cached);
  const seen: unknown[] = [];
  const next = await apply(cms, 'ssa', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa', labels: { c: 'd' } }, data: { k: 'w', y: '2' } }, 'first', seen);
  assert.equal(seen.length, 1);
  assert.equal(seen[0], cached, 'the merge read the watch cache\'s copy');
  assert.equal(JSON.stringify(cached), before, 'the cached copy is as it was');
  assert.notEqual(next, cached);
  assert.deepEqual(next.data, { x: '1', k: 'w', y: '2' });
  assert.deepEqual(next.metadata.labels, { a: 'b', c: 'd' });
  // A conflict leaves the cached copy alone too.
  await assert.rejects(apply(cms, 'ssa', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { k: 'other' } }, 'second'), (e: any) => e.code === 409);
  assert.deepEqual(next.data, { x: '1', k: 'w', y: '2' });

  const svcs = registry.store('', 'v1', 'services')!;
  await svcs.create('default', { metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } } satisfies Service);
  const svc = await apply(svcs, 's', { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80, protocol: 'TCP' }] } }, 'first');
  const svcSeen: unknown[] = [];
  await apply(svcs, 's', { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', labels: { e: 'f' } }, spec: { ports: [{ port: 80, protocol: 'TCP' }] } }, 'first', svcSeen);
  assert.equal(svcSeen.length, 1);
  assert.notEqual(svcSeen[0], svc, 'a kind whose update keeps the old status merges into a private copy');
  assert.deepEqual(svcSeen[0], svc);
});

test("an apply writes the cached version's frozen entries of the other managers as those objects, checked once", async (t) => {
  const registry = await setup(t);
  const cms = registry.store('', 'v1', 'configmaps')!;
  await cms.create('default', { metadata: { name: 'ssa' } } satisfies ConfigMap);
  for (let i = 0; i < 4; i++) await apply(cms, 'ssa', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { [`k${i}`]: `v${i}` } }, `m${i}`);
  const live = cms.watchCache!.current(cms.key('default', 'ssa')) as ConfigMap;
  const before = live.metadata!.managedFields!;
  assert.ok(before.filter((e) => e.manager !== 'm3').every((e) => Object.isFrozen(e)));
  // The merge's own result, before the cache compacts it: m0..m2's entries are the live ones, not copies.
  const ctx: ApplyContext = { kindKey: 'v1/ConfigMap', apiVersion: 'v1', manager: 'm3', force: false, now: new Date(), ignoredFields: [] };
  const out = applyConfiguration(live, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { k3: 'changed' } }, ctx);
  for (const m of ['m0', 'm1', 'm2']) assert.equal(out.metadata.managedFields.find((e: { manager: string }) => e.manager === m), before.find((e) => e.manager === m), m);
  assert.deepEqual(out.data, { k0: 'v0', k1: 'v1', k2: 'v2', k3: 'changed' });
  // A frozen entry is still checked as decoding checks it: a malformed one drops the live entries (upstream).
  const bad = Object.freeze({ manager: 'x', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: Object.freeze({ 'bad-element': Object.freeze({}) }) });
  const malformed = { ...live, metadata: { ...live.metadata, managedFields: [...before, bad] } };
  const dropped = applyConfiguration(malformed, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { k3: 'v3' } }, ctx);
  assert.deepEqual(dropped.metadata.managedFields.map((e: { manager: string }) => e.manager), ['m3']);
});
