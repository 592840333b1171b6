/**
 * An informer whose objects go cold (client/cold-objects.ts, cold-sweep.ts, as the control loops'
 * pod informer does), against a real server: once every pod is cold, list, get and byIndex give
 * what the server has (without managedFields, as the transform drops them); a label filter skips
 * a pod before it is decoded; get warms a pod again; an update of a cold pod reaches the
 * handlers with its previous version and moves it in the index; a delete takes it out.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
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
