/**
 * The etcd backend under upstream's key layout, on a real private etcd: the Backend contract
 * under a registry resource's keys (mapped both ways), what lands in etcd (read with a raw etcd
 * client), whole-keyspace pages, and the migration of k8ts's old layout (each object moved in one
 * Txn; idempotent; nothing overwritten).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Etcd3 } from 'etcd3';
import { openEtcdBackend } from '../../src/storage/etcd/index.js';
import { exportStore } from '../../src/storage/dump.js';
import { startEtcd, type PrivateEtcd } from '../e2e/etcd.js';
import { backendContract, ok, record, until } from '../storage/contract.js';

const logged: string[] = [];
const logger = { info(m: string) { logged.push(m); }, error(m: string) { logged.push(m); } };
let etcd: PrivateEtcd;
let raw: Etcd3;
before(async () => { etcd = await startEtcd(); raw = new Etcd3({ hosts: etcd.url }); });
after(async () => { raw.close(); await etcd.stop(); });

const open = (prefix?: string) => openEtcdBackend({ servers: [etcd.url], compactIntervalMs: 0, logger, prefix });

backendContract('etcd under the registry\'s pod keys', async (t) => {
  const backend = open();
  t.after(() => backend.close());
  return backend;
}, '/registry/core/pods/');

test('objects land at upstream\'s keys; gets, lists, watches and conflicts answer with the registry\'s', async (t) => {
  const backend = open();
  t.after(() => backend.close());
  const base = await backend.currentRevision();
  const w = record(backend, '', base);
  t.after(() => w.watcher.close());
  const pod = ok(await backend.create('/registry/core/pods/layout/p1', '{"kind":"Pod"}'));
  const node = ok(await backend.create('/registry/core/nodes/layout-n1', '{"kind":"Node"}'));
  const svc = ok(await backend.create('/registry/core/services/layout/s1', '{"kind":"Service"}'));
  const cr = ok(await backend.create('/registry/example.com/widgets/layout/w1', '{"kind":"Widget"}'));
  assert.equal((await raw.get('/registry/pods/layout/p1').string()), '{"kind":"Pod"}');
  assert.equal((await raw.get('/registry/minions/layout-n1').string()), '{"kind":"Node"}');
  assert.equal((await raw.get('/registry/services/specs/layout/s1').string()), '{"kind":"Service"}');
  assert.equal((await raw.get('/registry/example.com/widgets/layout/w1').string()), '{"kind":"Widget"}');
  assert.deepEqual(await raw.getAll().prefix('/registry/core/').keys(), [], 'nothing under the registry\'s own paths');

  assert.deepEqual((await backend.get('/registry/core/pods/layout/p1')).kv, pod);
  assert.deepEqual((await backend.list('/registry/core/services/layout/')).kvs, [svc]);
  assert.equal(await backend.count('/registry/core/nodes/'), 1);
  assert.deepEqual(await backend.create('/registry/core/pods/layout/p1', '{}'), { ok: false, current: pod });
  assert.deepEqual(await backend.update('/registry/core/pods/layout/p1', '{}', pod.modRevision - 1), { ok: false, current: pod });
  // An older server on the same etcd writing its own layout: its event carries its revision under a key no cache owns.
  await raw.put('/registry/core/pods/layout/from-old-server').value('{"kind":"Pod"}');
  assert.equal(await backend.count('/registry/core/pods/layout/'), 1);
  const deleted = ok(await backend.delete('/registry/core/nodes/layout-n1', node.modRevision));
  assert.equal(deleted.key, '/registry/core/nodes/layout-n1');
  await until(() => w.seen.events.length === 6, 'six events');
  assert.deepEqual(w.seen.events.map((e) => `${e.type} ${e.kv.key}`), [
    'put /registry/core/pods/layout/p1', 'put /registry/core/nodes/layout-n1', 'put /registry/core/services/layout/s1',
    'put /registry/example.com/widgets/layout/w1', 'put /k8ts-old-layout/registry/core/pods/layout/from-old-server',
    'delete /registry/core/nodes/layout-n1',
  ]);
  assert.equal(w.seen.events[5]!.prevKv?.key, '/registry/core/nodes/layout-n1');
  assert.deepEqual(w.seen.events[3]!.kv, cr);
});

test('a whole-keyspace export pages through every key once, in etcd\'s order (pages continue at the registry\'s last key)', async (t) => {
  const backend = open('/paging');
  t.after(() => backend.close());
  // Registry order (apps/replicasets < core/configmaps) and etcd order (configmaps < replicasets) differ: a page must
  // still continue where etcd's ended.
  for (let i = 0; i < 700; i++) ok(await backend.create(`/registry/${i % 2 ? 'apps/replicasets' : 'core/configmaps'}/ns/o${String(i).padStart(4, '0')}`, '{}'));
  const lines: string[] = [];
  const header = await exportStore(backend, async (l) => { lines.push(l); });
  const keys = lines.slice(1).map((l) => (JSON.parse(l) as { key: string }).key).filter((k) => /^\/registry\/(apps\/replicasets|core\/configmaps)\/ns\/o/.test(k));
  assert.equal(keys.length, 700);
  assert.equal(new Set(keys).size, 700);
  assert.equal(lines.length - 1, header.keys);
});

test('migration: k8ts\'s old keys move to upstream\'s, once, keeping every value; an existing new key is never overwritten', async (t) => {
  const root = '/old-a';
  const old: Record<string, string> = {
    '/old-a/core/pods/default/nginx': '{"kind":"Pod","n":1}',
    '/old-a/core/nodes/n1': '{"kind":"Node"}',
    '/old-a/core/services/default/web': '{"kind":"Service"}',
    '/old-a/core/endpoints/default/web': '{"kind":"Endpoints"}',
    '/old-a/apps/deployments/default/web': '{"kind":"Deployment"}',
    '/old-a/networking.k8s.io/ingresses/default/i': '{"kind":"Ingress"}',
    '/old-a/core/replicationcontrollers/default/rc': '{"kind":"ReplicationController"}',
    '/old-a/example.com/widgets/default/w': '{"kind":"Widget"}',
    '/old-a/masterleases/10.0.0.1': '{"ip":"10.0.0.1"}',
  };
  for (let i = 0; i < 1200; i++) old[`/old-a/core/configmaps/many/cm${i}`] = `{"i":${i}}`;
  for (const [k, v] of Object.entries(old)) await raw.put(k).value(v);
  // A run that died after moving one object, and an object an old server wrote after a new one created its key.
  await raw.put('/old-a/core/secrets/default/moved').value('"s"');
  await raw.put('/old-a/core/secrets/default/both').value('"old"');
  await raw.put('/old-a/secrets/default/both').value('"new"');
  await raw.put('/old-a/secrets/default/moved').value('"s"');
  await raw.delete().key('/old-a/core/secrets/default/moved');

  logged.length = 0;
  const backend = open(root);
  t.after(() => backend.close());
  const first = await backend.migrateKeyLayout();
  assert.deepEqual(first, { moved: 1207, left: 1 });
  assert.ok(logged.some((l) => /moving 1208 objects .*resourceVersions change/.test(l)), logged.join('\n'));
  assert.ok(logged.some((l) => /1 objects stay under k8ts's old keys/.test(l)), logged.join('\n'));

  const want: Record<string, string> = {
    '/old-a/pods/default/nginx': old['/old-a/core/pods/default/nginx']!,
    '/old-a/minions/n1': '{"kind":"Node"}',
    '/old-a/services/specs/default/web': '{"kind":"Service"}',
    '/old-a/services/endpoints/default/web': '{"kind":"Endpoints"}',
    '/old-a/deployments/default/web': '{"kind":"Deployment"}',
    '/old-a/ingress/default/i': '{"kind":"Ingress"}',
    '/old-a/controllers/default/rc': '{"kind":"ReplicationController"}',
    '/old-a/example.com/widgets/default/w': '{"kind":"Widget"}',
    '/old-a/masterleases/10.0.0.1': '{"ip":"10.0.0.1"}',
    '/old-a/secrets/default/moved': '"s"',
    '/old-a/secrets/default/both': '"new"',
    '/old-a/core/secrets/default/both': '"old"',
  };
  for (let i = 0; i < 1200; i++) want[`/old-a/configmaps/many/cm${i}`] = `{"i":${i}}`;
  assert.deepEqual(await raw.getAll().prefix('/old-a/').strings(), want);
  // Through the backend: the registry's keys.
  assert.equal((await backend.get('/registry/core/pods/default/nginx')).kv?.value, '{"kind":"Pod","n":1}');
  assert.equal(await backend.count('/registry/core/configmaps/many/'), 1200);

  assert.deepEqual(await backend.migrateKeyLayout(), { moved: 0, left: 1 }, 'a second run moves nothing more');
  const fresh = open('/old-b');
  t.after(() => fresh.close());
  logged.length = 0;
  assert.deepEqual(await fresh.migrateKeyLayout(), { moved: 0, left: 0 });
  assert.deepEqual(logged, [], 'an etcd without old keys: nothing logged');
});

test('migration: two servers starting at once move each object once (one through the etcd3 pool)', async (t) => {
  for (let i = 0; i < 300; i++) await raw.put(`/old-c/core/pods/ns/p${i}`).value(`{"i":${i}}`);
  const one = open('/old-c');
  const two = openEtcdBackend({ servers: [etcd.url, etcd.url], compactIntervalMs: 0, logger, prefix: '/old-c' });
  t.after(() => Promise.all([one.close(), two.close()]));
  const [a, b] = await Promise.all([one.migrateKeyLayout(), two.migrateKeyLayout()]);
  assert.equal(a.moved + b.moved, 300);
  assert.equal(a.left + b.left, 0);
  assert.equal(Object.keys(await raw.getAll().prefix('/old-c/pods/ns/').strings()).length, 300);
  assert.deepEqual(await raw.getAll().prefix('/old-c/core/').keys(), []);
});
