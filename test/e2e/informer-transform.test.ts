/**
 * The control loops' informers drop managedFields (client-go's SetTransform with
 * TransformStripManagedFields, as kube-controller-manager and kube-scheduler set it), against a
 * real server: the informer's copy has none while the server's object keeps them, and an update
 * sent from the informer's copy keeps the live object's managed fields (upstream's field manager
 * takes the live ones when an update carries none).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
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
