/**
 * @kubernetes/client-node, unmodified, against the API server: an informer
 * (list, then watch from the list's resourceVersion) sees the adds, updates
 * and deletes that kubectl makes, and a label-selected informer sees a pod
 * leave its selection as a delete; the Watch example (examples/typescript/watch)
 * streams namespace and ConfigMap events with bookmarks allowed.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, KubeConfig, Watch, makeInformer, type Informer, type ObjectCache, type V1Pod } from './client-node-package.js';
import { startCluster, eventually, Cluster } from './harness.js';
import { apiServerOnly } from './helpers.js';

let cluster: Cluster;
let kc: KubeConfig;
const informers: (Informer<V1Pod> & ObjectCache<V1Pod>)[] = [];

before(async () => {
  cluster = await startCluster(apiServerOnly);
  kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfig);
});
after(async () => {
  for (const i of informers) await i.stop();
  await cluster?.cleanup();
});

const pod = (name: string, labels: Record<string, string>) =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  labels: ${JSON.stringify(labels)}\nspec:\n  containers:\n  - name: c\n    image: nginx\n`;

/** Starts a pod informer on the default namespace that records "<event> <name> <resourceVersion>". */
async function podInformer(labelSelector?: string): Promise<{ events: string[]; errors: unknown[]; informer: Informer<V1Pod> & ObjectCache<V1Pod> }> {
  const core = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer<V1Pod>(kc, '/api/v1/namespaces/default/pods',
    () => core.listNamespacedPod({ namespace: 'default', labelSelector }), labelSelector);
  informers.push(informer);
  const events: string[] = [];
  const errors: unknown[] = [];
  for (const verb of ['add', 'update', 'delete'] as const) {
    informer.on(verb, (p) => { events.push(`${verb} ${p.metadata!.name} ${p.metadata!.resourceVersion}`); });
  }
  informer.on('error', (err) => { errors.push(err); });
  await informer.start();
  return { events, errors, informer };
}

const rvOf = async (name: string) => (await cluster.kubectl(['get', 'pod', name, '-o', 'jsonpath={.metadata.resourceVersion}'])).stdout;

describe('client-node informer', () => {
  test('sees add, update and delete of pods changed with kubectl', async () => {
    await cluster.kubectl(['create', '-f', '-'], { input: pod('before-start', { app: 'web' }) });
    const rv0 = await rvOf('before-start');
    const { events, errors, informer } = await podInformer();
    await eventually(async () => events.length === 1, 10_000, 'the listed pod');
    assert.deepEqual(events, [`add before-start ${rv0}`]);

    await cluster.kubectl(['create', '-f', '-'], { input: pod('p1', { app: 'web' }) });
    const rv1 = await rvOf('p1');
    await eventually(async () => events.includes(`add p1 ${rv1}`), 10_000, 'add of p1');
    assert.equal(informer.get('p1', 'default')?.metadata?.resourceVersion, rv1);

    await cluster.kubectl(['label', 'pod', 'p1', 'tier=front']);
    const rv2 = await rvOf('p1');
    await eventually(async () => events.includes(`update p1 ${rv2}`), 10_000, 'update of p1');
    assert.deepEqual(informer.get('p1', 'default')?.metadata?.labels, { app: 'web', tier: 'front' });

    await cluster.kubectl(['delete', 'pod', 'p1']);
    await eventually(async () => events.some((e) => e.startsWith('delete p1 ')), 10_000, 'delete of p1');
    assert.equal(informer.get('p1', 'default'), undefined);
    assert.deepEqual(informer.list('default').map((p) => p.metadata!.name), ['before-start']);

    assert.deepEqual(events.map((e) => e.split(' ').slice(0, 2).join(' ')), ['add before-start', 'add p1', 'update p1', 'delete p1']);
    // Resource versions only grow along the stream.
    const rvs = events.map((e) => Number(e.split(' ')[2]));
    assert.deepEqual([...rvs].sort((a, b) => a - b), rvs);
    assert.deepEqual(errors, []);
  });

  test('a label-selected informer sees a pod leave its selection as a delete', async () => {
    const { events, errors, informer } = await podInformer('app=api');
    await cluster.kubectl(['create', '-f', '-'], { input: pod('api-1', { app: 'api' }) });
    await eventually(async () => events.some((e) => e.startsWith('add api-1 ')), 10_000, 'add of api-1');
    await cluster.kubectl(['label', 'pod', 'api-1', 'app=retired', '--overwrite']);
    await eventually(async () => events.some((e) => e.startsWith('delete api-1 ')), 10_000, 'api-1 leaving the selection');
    await cluster.kubectl(['label', 'pod', 'before-start', 'app=api', '--overwrite']);
    await eventually(async () => events.some((e) => e.startsWith('add before-start ')), 10_000, 'before-start entering the selection');
    assert.deepEqual(events.map((e) => e.split(' ').slice(0, 2).join(' ')), ['add api-1', 'delete api-1', 'add before-start']);
    assert.deepEqual(informer.list().map((p) => p.metadata!.name), ['before-start']);
    assert.deepEqual(errors, []);
  });
});

describe('client-node Watch, as its watch example uses it', () => {
  test('streams the existing namespaces, then a ConfigMap created and deleted with kubectl, until aborted', async () => {
    const seen: string[] = [];
    let ended: unknown = 'still running';
    const watch = new Watch(kc);
    const req = await watch.watch('/api/v1/namespaces/default/configmaps', { allowWatchBookmarks: true },
      (type, obj) => { if (type !== 'BOOKMARK') seen.push(`${type} ${obj.metadata.name}`); },
      (err) => { ended = err; });
    await cluster.kubectl(['create', 'configmap', 'watched', '--from-literal=a=1']);
    await eventually(async () => seen.includes('ADDED watched'), 10_000, 'ADDED watched');
    await cluster.kubectl(['delete', 'configmap', 'watched']);
    await eventually(async () => seen.includes('DELETED watched'), 10_000, 'DELETED watched');
    req.abort();
    await eventually(async () => ended !== 'still running', 10_000, 'the watch to end');

    const namespaces: string[] = [];
    const nsReq = await new Watch(kc).watch('/api/v1/namespaces', {}, (type, obj) => { namespaces.push(`${type} ${obj.metadata.name}`); }, () => {});
    await eventually(async () => namespaces.includes('ADDED default'), 10_000, 'the default namespace');
    nsReq.abort();
  });
});
