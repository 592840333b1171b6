/**
 * The HorizontalPodAutoscaler controller against a real `k8ts server` with
 * simulated nodes and the real kubectl. These simulated nodes serve no
 * kubelet API (as `k8ts sim`'s), so the resource metrics API has nothing to
 * say about their pods (kubectl top answers 503 saying so): the HPA
 * reports that as upstream does without metrics-server (ScalingActive False,
 * FailedGetResourceMetric), and still enforces minReplicas and maxReplicas
 * through the target's scale subresource (SuccessfulRescale "New size: N;
 * reason: Current number of replicas below Spec.MinReplicas").
 * Scaling on measured usage is covered by test/unit/podautoscaler.test.ts
 * and, on `k8ts up`'s nodes that model usage, up-hpa-walkthrough.test.ts.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, type Cluster } from './harness.js';
import { Clientset, loadKubeconfig } from '../../src/client/index.js';
import { NodeSimulator } from '../../src/kubelet/index.js';
import { silentLogger } from '../../src/util/log.js';

const timeout = 40_000;

describe('HorizontalPodAutoscaler on simulated nodes', () => {
  let cluster: Cluster;
  let clients: Clientset;
  let sim: NodeSimulator;
  const kubectl = async (...args: string[]) => (await cluster.kubectl(args)).stdout;
  const json = async (...args: string[]) => JSON.parse(await kubectl(...args, '-o', 'json'));

  before(async () => {
    cluster = await startCluster({ controllers: 'replicaset,deployment,horizontalpodautoscaling,scheduler' });
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
    sim = new NodeSimulator(clients, { count: 2, renewIntervalMs: 1000, logger: silentLogger });
    await sim.start();
  });

  after(async () => {
    await sim?.close();
    clients?.close();
    await cluster?.cleanup();
  });

  it('kubectl autoscale below minReplicas: scaled up to the minimum with upstream\'s event', async () => {
    await kubectl('create', 'deployment', 'web', '--image=nginx', '--replicas=1');
    await kubectl('set', 'resources', 'deployment', 'web', '--requests=cpu=100m');
    assert.match(await kubectl('autoscale', 'deployment', 'web', '--min=3', '--max=5', '--cpu-percent=50'), /horizontalpodautoscaler.autoscaling\/web autoscaled/);
    await eventually(async () => (await json('get', 'deployment', 'web')).spec.replicas === 3, timeout, 'web scaled to 3');
    const events = await kubectl('get', 'events', '--field-selector', 'involvedObject.kind=HorizontalPodAutoscaler', '-o', 'custom-columns=REASON:.reason,MESSAGE:.message', '--no-headers');
    assert.match(events, /SuccessfulRescale\s+New size: 3; reason: Current number of replicas below Spec.MinReplicas/);
    const hpa = await eventually(async () => { const h = await json('get', 'hpa', 'web'); return h.status?.currentReplicas === 3 && h; }, timeout, 'status');
    assert.equal(hpa.status.desiredReplicas, 3);
    assert.ok(hpa.status.lastScaleTime);
    const able = hpa.status.conditions.find((c: any) => c.type === 'AbleToScale');
    // Right after the rescale it says so; the next sync (15 s later) reads the scale again and says that.
    assert.ok([['True', 'SucceededRescale', 'the HPA controller was able to update the target scale to 3'], ['True', 'SucceededGetScale', 'the HPA controller was able to get the target\'s current scale']]
      .some((want) => JSON.stringify(want) === JSON.stringify([able.status, able.reason, able.message])), JSON.stringify(able));
  });

  it('no metrics for the pods: ScalingActive False with FailedGetResourceMetric, replicas left alone', async () => {
    const hpa = await eventually(async () => {
      const h = await json('get', 'hpa', 'web');
      return h.status?.conditions?.some((c: any) => c.type === 'ScalingActive' && c.status === 'False') && h;
    }, timeout, 'ScalingActive False');
    const active = hpa.status.conditions.find((c: any) => c.type === 'ScalingActive');
    assert.equal(active.reason, 'FailedGetResourceMetric');
    assert.match(active.message, /^the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu/);
    assert.match(await kubectl('get', 'hpa', 'web', '--no-headers'), /^web\s+Deployment\/web\s+cpu: <unknown>\/50%\s+3\s+5\s+3\s+/);
    assert.match(await kubectl('describe', 'hpa', 'web'), /FailedGetResourceMetric/);
    assert.equal((await json('get', 'deployment', 'web')).spec.replicas, 3);
    // These nodes (NodeSimulator without a kubelet API, as `k8ts sim`'s) report no usage: kubectl top says why, rather than "not available yet".
    const top = await cluster.kubectl(['top', 'pods'], { allowFail: true });
    assert.equal(top.code, 1);
    assert.match(top.stderr, /^Error from server \(ServiceUnavailable\): metrics not available: nodes? "sim-node-\d"(, "sim-node-\d")? (are|is) simulated by k8ts and reports? no usage \(nodes of k8ts sim serve no kubelet API; those of k8ts up model usage\); for a node that runs containers start k8ts with "sudo npm start -- --runtime cri"\n$/);
  });

  it('above maxReplicas: brought down to the maximum', async () => {
    await kubectl('scale', 'deployment', 'web', '--replicas=8');
    await eventually(async () => (await json('get', 'deployment', 'web')).spec.replicas === 5, timeout, 'web back to 5');
    const events = await kubectl('get', 'events', '--field-selector', 'involvedObject.kind=HorizontalPodAutoscaler', '-o', 'custom-columns=MESSAGE:.message', '--no-headers');
    assert.match(events, /New size: 5; reason: Current number of replicas above Spec.MaxReplicas/);
  });
});
