/**
 * Cold cached pods (registry/watch-cache/cold.ts, cold-sweep.ts): a pod nobody touched for a
 * while is kept as deflated text plus a stub; everything read from the cache afterwards (list
 * items and their JSON, watch events, the copy an update starts from, selectors, pages) is what
 * the decoded pod gave. The oracle is a second Registry on the same SQLite database without a
 * watch cache: its lists are read from storage.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { Registry } from '../../src/registry/registry.js';
import type { Store } from '../../src/registry/store.js';
import type { ListOptions, WatchEventOut } from '../../src/registry/types.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { openEtcdBackend } from '../../src/storage/etcd/index.js';
import type { Backend } from '../../src/storage/backend.js';
import { startEtcd, type PrivateEtcd } from '../e2e/etcd.js';
import { realClock } from '../../src/util/clock.js';
import { silentLogger as quiet } from '../../src/util/log.js';
import { fieldsForObject } from '../../src/api/fields.js';
import { nodeNameOf } from '../../src/registry/watch-cache/node-index.js';
import { ColdObject, coldFormFor, coldStubFor, isCold } from '../../src/registry/watch-cache/cold.js';
import { coldDictionary } from '../../src/util/cold-sweep.js';
import { objectJSON } from '../../src/registry/watch-cache/rendered-json.js';
import type { Unstructured } from '../../src/api/unstructured.js';

const podsPrefix = '/registry/core/pods/';

/** Pods of two templates over three nodes, some with a status, one with hostNetwork and a nominated node. */
function pod(i: number): Pod {
  const node = i % 4 === 3 ? undefined : `node-${i % 3}`;
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: `p-${String(i).padStart(3, '0')}`, namespace: i % 5 === 0 ? 'ns2' : 'ns1', labels: { app: i % 2 ? 'web' : 'db', tier: `t${i % 3}` } },
    spec: {
      ...(node ? { nodeName: node } : {}),
      ...(i % 7 === 0 ? { hostNetwork: true, serviceAccount: 'legacy' } : {}),
      restartPolicy: i % 2 ? 'Always' : 'OnFailure',
      containers: [{ name: 'c', image: i % 2 ? 'nginx:1.27' : 'postgres:17', env: [{ name: 'N', value: 'ü€ "quoted" \u2028' }] }],
    },
  };
}

let etcd: Promise<PrivateEtcd> | undefined;
after(async () => { if (etcd) await (await etcd).stop(); });

/** SQLite in memory, or a prefix of its own on one private etcd (whose feed watch asks for no prev_kv). */
async function open(storage: 'sqlite' | 'etcd'): Promise<Backend> {
  if (storage === 'sqlite') return openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: quiet });
  etcd ??= startEtcd();
  return openEtcdBackend({ servers: [(await etcd).url], prefix: `/cold${Date.now()}-${Math.random().toString(36).slice(2)}`, compactIntervalMs: 0, logger: quiet });
}

async function cluster(t: { after(fn: () => Promise<void>): void }, storage: 'sqlite' | 'etcd' = 'sqlite') {
  const backend = await open(storage);
  const registry = new Registry(backend, realClock);
  // afterMs 0: every sweep turns the generations, so an object untouched over two sweeps goes cold; no timer.
  await registry.startWatchCache({ capacity: 100, logger: quiet, cold: { afterMs: 0, tickMs: 0, budgetMs: Infinity } });
  const plain = new Registry(backend, realClock);
  t.after(async () => { registry.closeWatchCache(); await backend.close(); });
  for (const ns of ['ns1', 'ns2']) await registry.namespaces.create(undefined, { metadata: { name: ns } });
  const pods = registry.store('', 'v1', 'pods')!;
  const fromStorage = plain.store('', 'v1', 'pods')!;
  const cache = pods.watchCache!;
  const entries = () => (cache as unknown as { objects: Map<string, unknown> }).objects;
  const coldCount = () => [...entries().values()].filter(isCold).length;
  const caughtUp = async () => { assert.ok(await cache.waitFor(Number(await backend.currentRevision()), 5_000)); };
  const coolAll = async () => { await caughtUp(); cache.sweepCold(); cache.sweepCold(); };
  return { backend, pods, fromStorage, cache, entries, coldCount, caughtUp, coolAll };
}

/** A list's items' JSON from the cache and from storage, for the same options (a consistent read). */
async function sameList(c: { pods: Store; fromStorage: Store }, ns: string | undefined, opts: ListOptions): Promise<string[]> {
  const cached = await c.pods.listJSON(ns, opts);
  const stored = await c.fromStorage.listJSON(ns, opts);
  assert.deepEqual(cached.items, stored.items, `list ${JSON.stringify(opts)} in ${ns ?? 'all namespaces'}`);
  const objects = await c.pods.list(ns, opts);
  assert.deepEqual(objects.items.map((o) => JSON.stringify(o)), stored.items, `list of objects ${JSON.stringify(opts)}`);
  return cached.items;
}

test('a pod stub gives selectors and the node index what the whole pod gives', () => {
  const stubOf = coldStubFor(podsPrefix)!;
  const odd: Pod[] = [
    { metadata: { name: 'a', namespace: 'x' } },
    { metadata: { name: 'b', namespace: 'x', labels: {} }, spec: { containers: [], serviceAccountName: '', serviceAccount: 'old' }, status: { podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.2' }] } },
    { metadata: { name: 'c' }, spec: { containers: [], hostNetwork: false, nodeName: '' }, status: { phase: 'Pending', nominatedNodeName: 'n', podIP: '10.0.0.9' } },
  ];
  for (const p of [...odd, ...Array.from({ length: 20 }, (_, i) => pod(i))]) {
    const stub = stubOf(p as unknown as Unstructured);
    assert.deepEqual(fieldsForObject('v1/Pod', stub), fieldsForObject('v1/Pod', p), p.metadata!.name);
    assert.equal(stub.metadata.labels, p.metadata!.labels);
    assert.equal(nodeNameOf(stub), nodeNameOf(p));
  }
  assert.equal(coldStubFor('/registry/configmaps/'), undefined, 'only pods go cold');
});

test('a cold pod is one object: its stub members its own fields, its text the pod\'s', () => {
  const form = coldFormFor(podsPrefix)!;
  const pods = Array.from({ length: 6 }, (_, i) => ({ ...pod(i), metadata: { ...pod(i).metadata, uid: `uid-${i}`, resourceVersion: String(10 + i) } }));
  const dictionary = coldDictionary(pods.slice(0, 2).map((p) => JSON.stringify(p)));
  for (const p of pods) {
    const cold = ColdObject.of(p as unknown as Unstructured, JSON.stringify(p), form, dictionary);
    assert.ok(isCold(cold));
    assert.equal(cold.metadata, cold as unknown, 'metadata is the object itself');
    assert.equal(cold.spec, cold as unknown);
    assert.equal(cold.status, cold as unknown);
    assert.deepEqual([cold.metadata.name, cold.metadata.namespace, cold.metadata.uid, cold.metadata.resourceVersion], [p.metadata.name, p.metadata.namespace, p.metadata.uid, p.metadata.resourceVersion]);
    assert.deepEqual(fieldsForObject('v1/Pod', cold), fieldsForObject('v1/Pod', p));
    assert.equal(cold.text(), JSON.stringify(p));
    assert.deepEqual(cold.decode(), p);
  }
});

test('a pod read after going cold is the pod written: lists, their JSON, updates', async (t) => {
  const c = await cluster(t);
  for (let i = 0; i < 40; i++) await c.pods.create(pod(i).metadata!.namespace, pod(i));
  await c.caughtUp();
  const before = await sameList(c, undefined, {});
  c.cache.sweepCold();
  assert.equal(c.coldCount(), 0, 'a pod written since the last turn stays decoded');
  c.cache.sweepCold();
  assert.equal(c.coldCount(), 40, 'untouched over a turn: cold');
  assert.deepEqual(await sameList(c, undefined, {}), before, 'the list of cold pods is the list of the pods written');
  // An update starts from the cache's copy: the cold pod is decoded and kept decoded.
  const key = `${podsPrefix}ns1/p-001`;
  const updated = await c.pods.guaranteedUpdate('ns1', 'p-001', (p: Pod) => ({ ...p, metadata: { ...p.metadata, labels: { ...p.metadata!.labels, changed: 'yes' } } })) as Pod;
  assert.equal(updated.metadata!.labels!.changed, 'yes');
  await c.caughtUp();
  assert.equal(isCold(c.entries().get(key)), false, 'written: decoded');
  assert.deepEqual(await c.pods.get('ns1', 'p-001'), JSON.parse(objectJSON(c.cache.current(key))));
  // Read for an update (current) after going cold again: equal to storage's, and decoded from then on.
  await c.coolAll();
  assert.equal(isCold(c.entries().get(key)), true);
  assert.deepEqual(c.cache.current(key), await c.pods.get('ns1', 'p-001'));
  assert.equal(isCold(c.entries().get(key)), false);
  await sameList(c, undefined, {});
});

test('selectors and pages over a mix of cold and decoded pods', async (t) => {
  const c = await cluster(t);
  for (let i = 0; i < 60; i++) await c.pods.create(pod(i).metadata!.namespace, pod(i));
  // A status for some: phase and pod IP are selectable fields.
  for (let i = 0; i < 60; i += 4) {
    await c.pods.guaranteedUpdate(pod(i).metadata!.namespace, pod(i).metadata!.name!, (p: Pod) => ({ ...p, status: { phase: 'Running', podIP: `10.1.0.${i}`, podIPs: [{ ip: `10.1.0.${i}` }] } }), { subresource: 'status' });
  }
  await c.coolAll();
  // Every third pod decoded again, as an update's read leaves it.
  for (let i = 0; i < 60; i += 3) c.cache.current(`${podsPrefix}${pod(i).metadata!.namespace}/${pod(i).metadata!.name}`);
  assert.ok(c.coldCount() > 30 && c.coldCount() < 60, `a mix: ${c.coldCount()} of 60 cold`);
  const selections: ListOptions[] = [
    {}, { labelSelector: 'app=web' }, { labelSelector: 'tier in (t0,t2),app!=db' },
    { fieldSelector: 'spec.nodeName=node-1' }, { fieldSelector: 'spec.nodeName=' }, { fieldSelector: 'status.phase=Running' },
    { fieldSelector: 'status.podIP=10.1.0.8' }, { fieldSelector: 'spec.restartPolicy=OnFailure,spec.hostNetwork=true' },
    { fieldSelector: 'spec.serviceAccountName=legacy' }, { fieldSelector: 'metadata.name=p-007' },
    { labelSelector: 'app=db', fieldSelector: 'spec.nodeName=node-2' },
  ];
  for (const sel of selections) {
    await sameList(c, undefined, sel);
    await sameList(c, 'ns1', sel);
  }
  // Pages of 7 from the cache (the first) and storage (the rest, by the continue token): every pod once, in order.
  const all = await sameList(c, undefined, {});
  const paged: string[] = [];
  let cont: string | undefined;
  do {
    const page = await c.pods.listJSON(undefined, { limit: 7, continue: cont });
    paged.push(...page.items);
    cont = page.continue;
  } while (cont);
  assert.deepEqual(paged, all);
  const first = await c.pods.listJSON(undefined, { limit: 7, labelSelector: 'app=web' });
  assert.deepEqual(first.items, (await c.fromStorage.listJSON(undefined, { labelSelector: 'app=web' })).items.slice(0, 7));
});

test('watches over cold pods: initial events, and events whose previous version is cold', async (t) => {
  const c = await cluster(t);
  for (let i = 0; i < 12; i++) await c.pods.create(pod(i).metadata!.namespace, pod(i));
  await c.coolAll();
  assert.equal(c.coldCount(), 12);
  const initial: WatchEventOut[] = [];
  const w0 = await c.pods.watch(undefined, { resourceVersion: '0', labelSelector: 'app=web' }, (ev) => initial.push(ev), () => {});
  w0.close();
  const webs = (await c.fromStorage.list(undefined, { labelSelector: 'app=web' })).items;
  assert.deepEqual(initial.map((e) => e.type), webs.map(() => 'ADDED'));
  assert.deepEqual(initial.map((e) => objectJSON(e.object)), webs.map((o) => JSON.stringify(o)), 'initial events as the pods written');
  // A cold pod leaves the selection through a write by another server (straight to storage): DELETED
  // for the watcher of app=web, MODIFIED for the watcher of its node, as with a decoded previous version.
  const rv = (await c.pods.list(undefined, {})).resourceVersion;
  const web: WatchEventOut[] = [];
  const onNode: WatchEventOut[] = [];
  const w1 = await c.pods.watch(undefined, { resourceVersion: rv, labelSelector: 'app=web' }, (ev) => web.push(ev), () => {});
  const w2 = await c.pods.watch(undefined, { resourceVersion: rv, fieldSelector: 'spec.nodeName=node-1' }, (ev) => onNode.push(ev), () => {});
  t.after(() => { w1.close(); w2.close(); });
  const key = `${podsPrefix}ns1/p-001`;
  assert.equal(isCold(c.entries().get(key)), true);
  const { kv } = await c.backend.get(key);
  const changed = JSON.parse(kv!.value) as Pod;
  changed.metadata!.labels = { app: 'db' };
  assert.ok((await c.backend.update(key, JSON.stringify(changed), kv!.modRevision)).ok);
  await c.caughtUp();
  assert.deepEqual(web.map((e) => [e.type, e.object.metadata.name, e.object.metadata.labels.app]), [['DELETED', 'p-001', 'db']]);
  assert.deepEqual(onNode.map((e) => [e.type, e.object.metadata.name]), [['MODIFIED', 'p-001']]);
  await sameList(c, undefined, { labelSelector: 'app=web' });
});

// On etcd the feed's DELETED event carries no value (no prev_kv): the object sent is the cache's own
// copy, which for a cold pod must be decoded first, not the stub.
for (const storage of ['sqlite', 'etcd'] as const) {
  test(`a cold pod deleted: its watchers get the whole pod as last written (${storage})`, async (t) => {
    const c = await cluster(t, storage);
    for (let i = 0; i < 6; i++) await c.pods.create(pod(i).metadata!.namespace, pod(i));
    await c.coolAll();
    const key = `${podsPrefix}ns1/p-001`;
    assert.equal(isCold(c.entries().get(key)), true);
    const written = (await c.fromStorage.get('ns1', 'p-001')) as Pod;
    const rv = (await c.pods.list(undefined, {})).resourceVersion;
    const seen: WatchEventOut[] = [];
    const w = await c.pods.watch(undefined, { resourceVersion: rv }, (ev) => seen.push(ev), () => {});
    t.after(() => { w.close(); });
    await c.pods.delete('ns1', 'p-001', { gracePeriodSeconds: 0 });
    await c.caughtUp();
    assert.equal(seen.length, 1);
    assert.equal(seen[0].type, 'DELETED');
    const sent = JSON.parse(objectJSON(seen[0].object)) as Pod;
    assert.ok(Number(sent.metadata!.resourceVersion) > Number(written.metadata!.resourceVersion), 'the delete\'s revision');
    assert.deepEqual({ ...sent, metadata: { ...sent.metadata, resourceVersion: undefined } }, { ...written, metadata: { ...written.metadata, resourceVersion: undefined } });
    assert.equal(c.entries().has(key), false);
  });
}
