/**
 * A DaemonSet's first sync on 300 nodes, as `k8ts server --controllers all` runs it: the
 * DaemonSet controller creates 250 pods (burstReplicas) in slow-start batches 1, 2, 4, ...,
 * 128, 123, so up to 123 creates of the controller manager's user are in flight at once,
 * and the scheduler binds each pod as its create's event arrives. kube-apiserver queues
 * such a burst (its default priority levels give a lone flow a hand of 6 queues of 50),
 * so none is answered 429; a 429 costs the rollout a second (client-go waits Retry-After).
 * The server counts every answer by code (apiserver_request_total), so the test reads
 * the 429s it sent for pods and bindings, not the clients' retries.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, type Cluster } from './harness.js';
import { requestCounts } from '../../bench/lib/request-counts.js';
import { Clientset, loadKubeconfig } from '../../src/client/index.js';
import { NodeSimulator } from '../../src/kubelet/index.js';
import { silentLogger } from '../../src/util/log.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';

const nodes = 300;

/** "VERB resource[/subresource] code" → count, from the server's apiserver_request_total. */
const answersByCode = (clients: Clientset) => requestCounts(clients, { byCode: true });

describe('a DaemonSet burst on 300 nodes (the controller manager\'s and the scheduler\'s flows)', () => {
  let cluster: Cluster;
  let clients: Clientset;
  let sim: NodeSimulator;

  before(async () => {
    cluster = await startCluster({ controllers: 'all' });
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig), { qps: 0 });
    sim = new NodeSimulator(clients, { count: nodes, namePrefix: 'burst-node-', renewIntervalMs: 10_000, events: false, lightWrites: true, logger: silentLogger });
    await sim.start();
  });

  after(async () => {
    await sim?.close();
    clients?.close();
    await cluster?.cleanup();
  });

  it('queues the slow-start batches of creates and the bindings: no 429, one create and one binding per pod', async () => {
    await clients.daemonsets.create('default', {
      apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'burst' },
      spec: { selector: { matchLabels: { app: 'burst' } }, template: { metadata: { labels: { app: 'burst' } }, spec: { containers: [{ name: 'c', image: 'gasbugs/http-go' }] } } },
    });
    await eventually(async () => {
      const ds: DaemonSet = await clients.daemonsets.get('default', 'burst');
      return ds.status?.desiredNumberScheduled === nodes && ds.status.currentNumberScheduled === nodes;
    }, 120_000, `${nodes} daemon pods scheduled`);
    // currentNumberScheduled counts a pod on the node its affinity names, bound or not (as
    // upstream's), and the server counts an answer once written: wait for every binding's.
    await eventually(async () => ((await answersByCode(clients)).get('POST pods/binding 201') ?? 0) >= nodes, 60_000, `${nodes} bindings answered`);
    const answers = await answersByCode(clients);
    const shown = JSON.stringify(Object.fromEntries([...answers].filter(([k]) => /pods|429/.test(k))));
    assert.deepEqual([...answers].filter(([k]) => k.endsWith(' 429')), [], `no request answered 429: ${shown}`);
    assert.equal(answers.get('POST pods 201'), nodes, `one create per pod: ${shown}`);
    assert.equal(answers.get('POST pods/binding 201'), nodes, `one binding per pod: ${shown}`);
  });
});
