/**
 * Shared informers (src/client/shared-informers.ts), counted at a real server by its
 * apiserver_longrunning_requests gauge (upstream's: open watches by verb and resource):
 *  - the controller manager and the scheduler of `k8ts server --controllers all` read one
 *    pod watch and one node watch between them, not one each;
 *  - scopes of one SharedInformers: one watch for both; a scope started after the informer
 *    synced gets the cached objects once it starts, not while its handlers are added; a
 *    stopped scope's handlers get nothing more while the other's still do; the watch closes
 *    with the last scope; an index added to the running informer covers its cached objects.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { startCluster, eventually, type Cluster } from './harness.js';
import { apiServerOnly } from './helpers.js';
import { Clientset, SharedInformers, loadKubeconfig } from '../../src/client/index.js';
import { NodeSimulator } from '../../src/kubelet/index.js';
import { silentLogger } from '../../src/util/log.js';

/** Open WATCH requests the server counts for a resource (apiserver_longrunning_requests, summed over scopes). */
async function openWatches(clients: Clientset, resource: string): Promise<number> {
  const res = await clients.rest.raw('GET', '/metrics');
  let text = '';
  for await (const c of res) text += c;
  let n = 0;
  for (const m of text.matchAll(/^apiserver_longrunning_requests\{(.*)\} (\d+)$/gm)) {
    const l = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (l.verb === 'WATCH' && l.resource === resource && !l.subresource) n += Number(m[2]);
  }
  return n;
}

const configMap = (name: string): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { a: '1' } });

describe('the control loops of k8ts server share their informers', () => {
  let cluster: Cluster;
  let clients: Clientset;
  before(async () => {
    cluster = await startCluster({ controllers: 'all' });
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
  });
  after(async () => {
    clients?.close();
    await cluster?.cleanup();
  });

  it('one pod watch and one node watch for the controller manager and the scheduler together', async () => {
    // Both components started: each holds its leader Lease and has registered its informers.
    await eventually(async () => {
      const leases = await Promise.all(['kube-controller-manager', 'kube-scheduler'].map((n) => clients.leases.get('kube-system', n).catch(() => undefined)));
      return leases.every((l) => l?.spec?.holderIdentity);
    }, 30_000, 'both leader Leases held');
    await eventually(async () => (await openWatches(clients, 'pods')) >= 1 && (await openWatches(clients, 'nodes')) >= 1, 30_000, 'the loops\' pod and node watches');
    // The scheduler starts once it leads, maybe after the controller manager's informers synced:
    // a second watch of its own would show up here within this wait.
    await eventually(async () => /"msg":"started controller","controller":"default-scheduler"/.test(cluster.serverLog()), 30_000, 'the scheduler started', async () => cluster.serverLog().split('\n').filter((l) => l.includes('started controller')).slice(-3).join('\n'));
    assert.equal(await openWatches(clients, 'pods'), 1, 'one pod watch');
    assert.equal(await openWatches(clients, 'nodes'), 1, 'one node watch');
    // And the one watch feeds both: a pod the scheduler binds (it reads pods and nodes) and a
    // ReplicaSet's pod (the controller manager reads the same pod informer).
    const sim = new NodeSimulator(clients, { count: 1, namePrefix: 'shared-node-', renewIntervalMs: 10_000, events: false, logger: silentLogger });
    try {
      await sim.start();
      await clients.resource('replicasets').create('default', {
        apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'shared-rs' },
        spec: { replicas: 2, selector: { matchLabels: { app: 'shared-rs' } }, template: { metadata: { labels: { app: 'shared-rs' } }, spec: { containers: [{ name: 'c', image: 'k8ts.local/pause:1' }] } } },
      });
      await eventually(async () => {
        const pods = (await clients.pods.list('default', { labelSelector: 'app=shared-rs' })).items;
        return pods.length === 2 && pods.every((p: { spec?: { nodeName?: string } }) => p.spec?.nodeName === 'shared-node-0');
      }, 30_000, 'two pods created by the ReplicaSet controller and bound by the scheduler');
      // The simulated kubelet watches pods too (its own watch, field-selected): two now, one of them the loops'.
      assert.equal(await openWatches(clients, 'pods'), 2, 'the loops\' one pod watch and the node\'s');
    } finally {
      await sim.close();
    }
  });
});

describe('SharedInformers scopes', () => {
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

  it('two scopes read one watch; a late scope gets the cache when it starts; a stopped scope hears nothing; the last stop closes the watch', async () => {
    await clients.resource('configmaps').create('default', configMap('before'));
    const informerClients = new Clientset(loadKubeconfig(cluster.kubeconfig));
    const shared = new SharedInformers(informerClients);
    const a = shared.scope();
    const b = shared.scope();
    const seenA: string[] = [];
    const seenB: string[] = [];
    try {
      a.informer('configmaps').addEventHandler({ add: (o: ConfigMap) => seenA.push(`add ${o.metadata!.name}`), update: (_o, n: ConfigMap) => seenA.push(`update ${n.metadata!.name}`) });
      a.start();
      await a.waitForSync();
      assert.ok(seenA.includes('add before'));
      assert.equal(await openWatches(clients, 'configmaps'), 1);

      // b joins an informer that has synced: its handler sees nothing until b starts, then the cache.
      b.informer('configmaps').addEventHandler({ add: (o: ConfigMap) => seenB.push(`add ${o.metadata!.name}`), update: (_o, n: ConfigMap) => seenB.push(`update ${n.metadata!.name}`) });
      assert.equal(seenB.length, 0, 'no replay while the scope is being built');
      b.start();
      await b.waitForSync();
      assert.ok(seenB.includes('add before'), 'replayed at start');
      assert.equal(b.informer('configmaps').get('default/before')?.metadata?.name, 'before', 'b reads the shared cache');
      // An index added to the running informer covers what its cache already holds (client-go's AddIndexers).
      b.informer('configmaps').addIndex('data-a', (o: ConfigMap) => (o.data?.a ? [o.data.a] : []));
      assert.deepEqual(b.informer('configmaps').byIndex('data-a', '1').filter((o: ConfigMap) => o.metadata?.namespace === 'default').map((o: ConfigMap) => o.metadata?.name), ['before']);

      await clients.resource('configmaps').create('default', configMap('during'));
      await eventually(async () => seenA.includes('add during') && seenB.includes('add during'), 10_000, 'both scopes see the new ConfigMap');
      assert.equal(await openWatches(clients, 'configmaps'), 1, 'one watch for two scopes');

      a.stop();
      await clients.resource('configmaps').create('default', configMap('after-a'));
      await eventually(async () => seenB.includes('add after-a'), 10_000, 'b still sees new objects');
      assert.ok(!seenA.includes('add after-a'), 'a stopped: its handler is off');
      assert.equal(await openWatches(clients, 'configmaps'), 1);

      b.stop();
      await eventually(async () => (await openWatches(clients, 'configmaps')) === 0, 10_000, 'the watch closed with the last scope');

      // A new scope after that starts fresh informers (a new list and watch).
      const c = shared.scope();
      const seenC: string[] = [];
      c.informer('configmaps').addEventHandler({ add: (o: ConfigMap) => { if (o.metadata!.namespace === 'default') seenC.push(o.metadata!.name!); } });
      c.start();
      await c.waitForSync();
      assert.deepEqual(seenC.sort(), ['after-a', 'before', 'during']);
      assert.equal(await openWatches(clients, 'configmaps'), 1);
      c.stop();
    } finally {
      a.stop();
      b.stop();
      informerClients.close();
    }
  });
});
