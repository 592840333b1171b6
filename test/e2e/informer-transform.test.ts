/**
 * The control loops' informers drop managedFields (client-go's SetTransform with
 * TransformStripManagedFields, as kube-controller-manager and kube-scheduler set it), against a
 * real server: the informer's copy has none while the server's object keeps them, and an update
 * sent from the informer's copy keeps the live object's managed fields (upstream's field manager
 * takes the live ones when an update carries none).
 *
 * An informer whose objects go cold (client/cold-objects.ts, as the control loops' pod informer
 * does): once every pod is cold, list, get and byIndex give what the server has (without
 * managedFields); a label filter skips a pod before it is decoded; get warms a pod again; an
 * update of a cold pod reaches the handlers with its previous version and moves it in the
 * index; a delete takes it out.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap, Pod } from 'kubernetes-types/core/v1.js';
import { startCluster, eventually, type Cluster } from './harness.js';
import { apiServerOnly } from './helpers.js';
import { Clientset, Informer, loadKubeconfig, stripManagedFields } from '../../src/client/index.js';

let cluster: Cluster;
let clients: Clientset;

before(async () => {
  cluster = await startCluster(apiServerOnly);
  clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
});
after(async () => {
  clients?.close();
  await cluster?.cleanup();
});

test('an informer with stripManagedFields holds objects without managedFields; an update from its copy keeps the server\'s', async () => {
  const cms = clients.resource('configmaps');
  await cms.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'listed' }, data: { a: '1' } } satisfies ConfigMap);
  const informer = new Informer(cms, { namespace: 'default', transform: stripManagedFields });
  const seen: ConfigMap[] = [];
  informer.addEventHandler({ add: (o) => seen.push(o), update: (_old, o) => seen.push(o) });
  informer.start();
  try {
    await informer.waitForSync();
    await cms.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched' }, data: { a: '1' } } satisfies ConfigMap);
    const watched = await eventually(async () => informer.get('default/watched') as ConfigMap | undefined, undefined, 'the watched ConfigMap in the informer');
    for (const name of ['listed', 'watched']) {
      assert.equal((informer.get(`default/${name}`) as ConfigMap).metadata?.managedFields, undefined, name);
      assert.ok(((await cms.get('default', name)) as ConfigMap).metadata?.managedFields?.length, `${name} keeps its managedFields on the server`);
    }
    assert.ok(seen.every((o) => o.metadata?.managedFields === undefined), 'handlers get the transformed objects');

    const updated = (await cms.update({ ...watched, data: { a: '2' } })) as ConfigMap;
    assert.deepEqual(updated.metadata?.managedFields?.map((m) => [m.manager, m.operation]), [[(await cms.get('default', 'listed') as ConfigMap).metadata!.managedFields![0]!.manager, 'Update']]);
    await eventually(async () => (informer.get('default/watched') as ConfigMap | undefined)?.data?.a === '2', undefined, 'the update in the informer');
    assert.equal((informer.get('default/watched') as ConfigMap).metadata?.managedFields, undefined);
  } finally {
    informer.stop();
  }
});

test('an informer decoding watch events without managedFields holds exactly what one parsing them whole and stripping holds', async () => {
  const cms = clients.resource('configmaps');
  const whole = new Informer(cms, { namespace: 'default', transform: stripManagedFields });
  const skipping = new Informer(cms, { namespace: 'default', transform: stripManagedFields, skipManagedFields: true });
  for (const i of [whole, skipping]) i.start();
  try {
    await Promise.all([whole.waitForSync(), skipping.waitForSync()]);
    // Text that looks like the member, in a label-free annotation and in data: escaped inside strings, never cut.
    const tricky = { 'k8ts.test/x': '{"managedFields":[{"manager":"x"}]}', 'k8ts.test/y': '\\"]}' };
    await cms.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'skipped', annotations: tricky }, data: { managedFields: '[]' } } satisfies ConfigMap);
    const created = (await cms.get('default', 'skipped')) as ConfigMap;
    await cms.patch('default', 'skipped', { data: { b: '2' } }, 'merge');
    const patched = (await cms.get('default', 'skipped')) as ConfigMap;
    assert.ok((patched.metadata?.managedFields?.length ?? 0) >= 1, 'the server keeps managedFields');
    const { managedFields: _m, ...metadata } = patched.metadata!;
    await eventually(async () => (skipping.get('default/skipped') as ConfigMap | undefined)?.data?.b === '2' && (whole.get('default/skipped') as ConfigMap | undefined)?.data?.b === '2', undefined, 'the patch in both informers');
    // As JSON: the strip leaves the member undefined, the cut text never has it; both read the same.
    const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
    assert.deepEqual(plain(skipping.get('default/skipped')), plain(whole.get('default/skipped')));
    assert.deepEqual(plain(skipping.get('default/skipped')), { ...patched, metadata });
    assert.notEqual(created.metadata?.resourceVersion, patched.metadata?.resourceVersion);
  } finally {
    whole.stop();
    skipping.stop();
  }
});

const pod = (name: string, app: string): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app }, annotations: { note: 'é 日本' } },
  spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m' } } }] },
});

/** The server's pod as the informer should give it: JSON without managedFields. */
async function served(name: string): Promise<unknown> {
  const p = (await clients.pods.get('default', name)) as Pod;
  const { managedFields: _m, ...metadata } = p.metadata!;
  return JSON.parse(JSON.stringify({ ...p, metadata }));
}

const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

test('cold pods read, update and delete as decoded ones', async () => {
  const names = ['a-0', 'a-1', 'b-0'];
  for (const n of names) await clients.pods.create('default', pod(n, n[0]!));
  const informer = new Informer(clients.resource('pods'), {
    namespace: 'default', transform: stripManagedFields, cold: () => ({ afterMs: 0, tickMs: 10, budgetMs: 50 }),
  });
  informer.addIndex('app', (p: Pod) => [p.metadata?.labels?.app ?? '']);
  const updates: [Pod, Pod][] = [];
  const deletes: Pod[] = [];
  informer.addEventHandler({ update: (o, n) => updates.push([o, n]), delete: (p) => deletes.push(p) });
  informer.start();
  try {
    await informer.waitForSync();
    await eventually(async () => informer.core.coldCount() === 3, undefined, 'every pod cold');
    const listed = informer.list() as Pod[];
    assert.deepEqual(plain(listed.map((p) => p.metadata!.name).sort()), names);
    for (const p of listed) assert.deepEqual(plain(p), await served(p.metadata!.name!));
    assert.equal(informer.core.coldCount(), 3, 'a list decodes for itself: the pods stay cold');

    let asked = 0;
    const onlyB = informer.byIndex('app', 'a', (labels) => { asked++; return labels?.app === 'b'; });
    assert.deepEqual([onlyB.length, asked], [0, 2], 'the label filter is asked of both a pods and decodes neither');
    assert.equal(informer.core.coldCount(), 3);
    const byApp = informer.byIndex('app', 'a') as Pod[];
    assert.deepEqual(byApp.map((p) => p.metadata!.name).sort(), ['a-0', 'a-1']);
    assert.equal(informer.core.coldCount(), 1, 'a keyed read keeps the pods decoded again');
    assert.deepEqual(plain(informer.get('default/b-0')), await served('b-0'));

    await eventually(async () => informer.core.coldCount() === 3, undefined, 'cold again');
    const before = await served('a-1');
    await clients.pods.patch('default', 'a-1', { metadata: { labels: { app: 'c' } } }, 'merge');
    await eventually(async () => updates.length === 1, undefined, 'the update of a cold pod');
    assert.deepEqual(plain(updates[0]![0]), before, 'the handler gets the cold pod\'s version as it was');
    assert.equal(updates[0]![1].metadata!.labels!.app, 'c');
    assert.deepEqual((informer.byIndex('app', 'a') as Pod[]).map((p) => p.metadata!.name), ['a-0']);
    assert.deepEqual((informer.byIndex('app', 'c') as Pod[]).map((p) => p.metadata!.name), ['a-1']);

    await eventually(async () => informer.core.coldCount() === 3, undefined, 'cold again');
    await clients.pods.delete('default', 'b-0', { gracePeriodSeconds: 0 });
    await eventually(async () => deletes.length === 1, undefined, 'the delete of a cold pod');
    assert.equal(informer.get('default/b-0'), undefined);
    assert.deepEqual(informer.byIndex('app', 'b'), []);
    assert.equal(informer.size, 2);
  } finally {
    informer.stop();
  }
});
