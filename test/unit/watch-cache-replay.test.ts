/**
 * A watch from an older resourceVersion is replayed from the watch cache's ring
 * (registry/watch-cache/ring.ts). Every replay must be what a watcher that was open all along
 * received: the same events, in order, each with the version of the object at that event (its
 * data and resourceVersion), ADDED/DELETED where a label change moves the object into or out of
 * a selector, DELETED with the last state; 410 Expired once the ring has dropped the events after
 * the resourceVersion asked for. (Written for a ring that held superseded versions as stored bytes,
 * tried on issue 19 and not kept: bench/RESULTS.md `bystander-attack4-ring`.) On SQLite and on a
 * real etcd, whose feed watch asks for no previous values (prev_kv): a DELETED event's last state
 * and a selector's leaving events come from the cache's own copy.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { Registry } from '../../src/registry/registry.js';
import type { Store } from '../../src/registry/store.js';
import type { WatchEventOut } from '../../src/registry/types.js';
import { StatusError } from '../../src/api/status.js';
import type { Backend } from '../../src/storage/backend.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { openEtcdBackend } from '../../src/storage/etcd/index.js';
import { startEtcd, type PrivateEtcd } from '../e2e/etcd.js';
import { realClock } from '../../src/util/clock.js';
import { silentLogger as quiet } from '../../src/util/log.js';

const capacity = 8;
const selectors = [undefined, 'tier=web', 'tier=db', 'tier'];

interface Seen { type: string; name: string; rv: string; data?: Record<string, string>; labels?: Record<string, string> }

const seen = (e: WatchEventOut): Seen => {
  const cm = e.object as ConfigMap;
  return { type: e.type, name: cm.metadata!.name!, rv: cm.metadata!.resourceVersion!, data: cm.data, labels: cm.metadata!.labels };
};

let etcd: Promise<PrivateEtcd> | undefined;
after(async () => { if (etcd) await (await etcd).stop(); });

type Storage = 'sqlite' | 'etcd';

async function open(storage: Storage): Promise<Backend> {
  if (storage === 'sqlite') return openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: quiet });
  etcd ??= startEtcd();
  // Each test its own prefix of one private etcd.
  return openEtcdBackend({ servers: [(await etcd).url], prefix: `/t${Date.now()}-${Math.random().toString(36).slice(2)}`, compactIntervalMs: 0, logger: quiet });
}

async function setup(t: { after(fn: () => Promise<void>): void }, storage: Storage): Promise<{ cms: Store; registry: Registry }> {
  const backend = await open(storage);
  const registry = new Registry(backend, realClock);
  t.after(async () => { registry.closeWatchCache(); await backend.close(); });
  await registry.namespaces.create(undefined, { metadata: { name: 'ns1' } });
  await registry.namespaces.create(undefined, { metadata: { name: 'ns2' } });
  const cms = registry.store('', 'v1', 'configmaps')!;
  // Listed by the cache at its start: its first update's previous version is not an event of the ring.
  await cms.create('ns1', { metadata: { name: 'listed', labels: { tier: 'web' } }, data: { v: '0' } });
  await registry.startWatchCache({ capacity, logger: quiet });
  return { cms, registry };
}

/** Opens a watch; a replay is delivered before watch() resolves, live events as the cache applies them. */
async function watch(cms: Store, namespace: string | undefined, rv: string, labelSelector?: string): Promise<{ events: Seen[]; close(): void }> {
  const events: Seen[] = [];
  const w = await cms.watch(namespace, { resourceVersion: rv, labelSelector }, (e) => { events.push(seen(e)); }, () => {});
  return { events, close: w.close };
}

for (const storage of ['sqlite', 'etcd'] as const) {
test(`${storage}: a replay from every resourceVersion the ring holds is what a watcher open all along received, for each selector`, async (t) => {
  const { cms } = await setup(t, storage);
  const start = String(cms.watchCache!.revision);
  const live = new Map<string, { events: Seen[]; close(): void }>();
  for (const ns of [undefined, 'ns1']) for (const sel of selectors) live.set(`${ns}|${sel}`, await watch(cms, ns, start, sel));

  const cm = (name: string, tier: string | undefined, v: string) => ({ metadata: { name, labels: tier ? { tier } : {} }, data: { v } });
  const revs: string[] = [];
  const write = async (p: Promise<ConfigMap>) => { revs.push((await p).metadata!.resourceVersion!); };
  await write(cms.update('ns1', 'listed', cm('listed', 'db', '1'))); // leaves tier=web, joins tier=db
  await write(cms.create('ns1', cm('a', 'web', '1')));
  await write(cms.create('ns2', cm('b', 'web', '1')));
  await write(cms.update('ns1', 'a', cm('a', 'web', '2')));
  await write(cms.update('ns1', 'a', cm('a', 'db', '3'))); // leaves tier=web
  await write(cms.update('ns1', 'a', cm('a', 'db', '4')));
  await write(cms.update('ns1', 'a', cm('a', 'web', '5'))); // back into tier=web
  await write(cms.update('ns2', 'b', cm('b', undefined, '2'))); // leaves tier (exists)
  await write(cms.delete('ns2', 'b').then((r) => r.obj));
  await write(cms.create('ns2', cm('b', 'db', '3'))); // the same name again: ADDED
  for (let i = 0; i < capacity; i++) await write(cms.update('ns1', 'a', cm('a', i % 2 ? 'web' : 'db', `x${i}`)));
  // Its previous event has left the ring: its previous version is the cache's own copy (the feed asks etcd for no prevKv).
  await write(cms.update('ns2', 'b', cm('b', 'web', '4')));
  await write(cms.update('ns1', 'a', cm('a', 'db', 'last')));
  await write(cms.delete('ns1', 'a').then((r) => r.obj));
  assert.ok(await cms.watchCache!.waitFor(Number(revs[revs.length - 1]), 5_000));

  const oldest = cms.watchCache!.oldest;
  let replays = 0;
  for (const [k, w] of live) {
    const [ns, sel] = k.split('|');
    const namespace = ns === 'undefined' ? undefined : ns;
    const selector = sel === 'undefined' ? undefined : sel;
    for (const rv of revs) {
      if (Number(rv) < oldest) {
        await assert.rejects(watch(cms, namespace, rv, selector), (err: unknown) => err instanceof StatusError && err.code === 410 && /^too old resource version: /.test(err.message));
        continue;
      }
      const replay = await watch(cms, namespace, rv, selector);
      replay.close();
      assert.deepEqual(replay.events, w.events.filter((e) => Number(e.rv) > Number(rv)), `namespace ${namespace}, selector ${selector}, from ${rv}`);
      replays++;
    }
  }
  assert.ok(replays >= selectors.length * 2 * capacity, `${replays} replays`);
  for (const w of live.values()) w.close();

  // What those live watchers got, spelled out for two of them (so the comparison above cannot pass on two equal mistakes).
  const web = live.get('undefined|tier=web')!.events;
  assert.deepEqual(web.slice(0, 8).map((e) => [e.type, e.name, e.data?.v]), [
    ['DELETED', 'listed', '1'], ['ADDED', 'a', '1'], ['ADDED', 'b', '1'], ['MODIFIED', 'a', '2'], ['DELETED', 'a', '3'],
    ['ADDED', 'a', '5'], ['DELETED', 'b', '2'], ['DELETED', 'a', 'x0'],
  ]);
  const all = live.get('ns1|undefined')!.events;
  assert.deepEqual(all.slice(-2).map((e) => [e.type, e.name, e.data?.v, e.rv]), [['MODIFIED', 'a', 'last', revs[revs.length - 2]], ['DELETED', 'a', 'last', revs[revs.length - 1]]]);
});

test(`${storage}: the versions a replay decodes are the ones at each event, also across many updates of one object`, async (t) => {
  const { cms } = await setup(t, storage);
  await cms.create('ns1', { metadata: { name: 'hot' }, data: { v: '0' } });
  const revs: string[] = [];
  for (let i = 1; i <= capacity * 3; i++) {
    const cm = await cms.update('ns1', 'hot', { metadata: { name: 'hot', labels: { odd: String(i % 2 === 1) } }, data: { v: String(i) } }) as ConfigMap;
    revs.push(cm.metadata!.resourceVersion!);
  }
  assert.ok(await cms.watchCache!.waitFor(Number(revs[revs.length - 1]), 5_000));
  const from = revs[revs.length - capacity];
  const replay = await watch(cms, 'ns1', from);
  replay.close();
  assert.deepEqual(replay.events.map((e) => [e.type, e.rv, e.data?.v]),
    revs.slice(-capacity + 1).map((rv, i) => ['MODIFIED', rv, String(capacity * 2 + 2 + i)]));
  const odd = await watch(cms, 'ns1', from, 'odd=true');
  odd.close();
  assert.deepEqual(odd.events.map((e) => [e.type, e.data?.v]),
    revs.slice(-capacity + 1).map((_, i) => capacity * 2 + 2 + i).map((v) => [v % 2 === 1 ? 'ADDED' : 'DELETED', String(v)]));
  await assert.rejects(watch(cms, 'ns1', revs[revs.length - capacity - 2]), (err: unknown) => err instanceof StatusError && err.code === 410);
});
}
