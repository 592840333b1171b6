/**
 * Inter-pod affinity and topology spreading end to end: a real `k8ts
 * server` running the scheduler and the workload controllers, simulated
 * nodes (one tainted control plane, two workers, zones a and b), and the
 * real kubectl applying the manifests tutorials use:
 *  - a Deployment with required podAntiAffinity on kubernetes.io/hostname
 *    (the ZooKeeper and Redis tutorials' "one per node"): two replicas run,
 *    the third waits with upstream's FailedScheduling message, and runs as
 *    soon as a third worker joins;
 *  - a pod with required podAffinity goes to the node of the pod it follows;
 *  - topologySpreadConstraints maxSkew 1 over zones keeps the counts level;
 *  - `kubectl create deployment --replicas=2` (no constraints at all) puts
 *    its pods on different workers, by the system default spreading.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { startCluster, eventually, type Cluster } from './harness.js';
import { Clientset, loadKubeconfig } from '../../src/client/index.js';
import { NodeSimulator } from '../../src/kubelet/index.js';
import { silentLogger } from '../../src/util/log.js';

const timeout = 30_000;

const deployment = (name: string, replicas: number, spec: Record<string, unknown>) => stringify({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
  spec: {
    replicas, selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }], ...spec } },
  },
});

describe('pod affinity, anti-affinity and topology spread', () => {
  let cluster: Cluster;
  let clients: Clientset;
  let sim: NodeSimulator;

  const kubectl = async (args: string[], input?: string) => (await cluster.kubectl(args, { input })).stdout;
  const pods = async (app: string) => JSON.parse(await kubectl(['get', 'pods', '-l', `app=${app}`, '-o', 'json'])).items as any[];
  const nodesOf = async (app: string) => (await pods(app)).map((p) => p.spec.nodeName || '').sort();

  before(async () => {
    cluster = await startCluster({ controllers: 'replicaset,deployment,garbagecollector,scheduler' });
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
    sim = new NodeSimulator(clients, { count: 0, renewIntervalMs: 1000, logger: silentLogger });
    await sim.start();
    await sim.addNode('control-plane', { controlPlane: true, labels: { 'topology.kubernetes.io/zone': 'a' } });
    await sim.addNode('worker1', { labels: { 'topology.kubernetes.io/zone': 'a' } });
    await sim.addNode('worker2', { labels: { 'topology.kubernetes.io/zone': 'b' } });
  });

  after(async () => {
    await sim?.close();
    clients?.close();
    await cluster?.cleanup();
  });

  it('required anti-affinity: one replica per worker, the third waits with the upstream message, then runs on a new worker', async () => {
    const anti = {
      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'zk' } }, topologyKey: 'kubernetes.io/hostname' }] } },
    };
    assert.match(await kubectl(['apply', '-f', '-'], deployment('zk', 3, anti)), /deployment.apps\/zk created/);
    const pending = await eventually(async () => {
      const ps = await pods('zk');
      const waiting = ps.filter((p) => !p.spec.nodeName);
      return ps.length === 3 && ps.filter((p) => p.spec.nodeName).length === 2 && waiting.length === 1
        && waiting[0].status?.conditions?.find((c: any) => c.type === 'PodScheduled' && c.status === 'False') && waiting[0];
    }, timeout, 'two zk pods scheduled, one pending');
    assert.deepEqual((await nodesOf('zk')).filter(Boolean), ['worker1', 'worker2']);
    const message = "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't match pod anti-affinity rules. "
      + 'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.';
    const condition = pending.status.conditions.find((c: any) => c.type === 'PodScheduled');
    assert.deepEqual([condition.reason, condition.message], ['Unschedulable', message]);
    const described = await kubectl(['describe', 'pod', pending.metadata.name]);
    assert.match(described, /FailedScheduling/);
    assert.ok(described.includes("didn't match pod anti-affinity rules"), described);
    await sim.addNode('worker3', { labels: { 'topology.kubernetes.io/zone': 'b' } });
    await eventually(async () => (await nodesOf('zk')).join(',') === 'worker1,worker2,worker3', timeout, 'third zk pod on worker3');
  });

  it('required affinity: a pod follows the pod it names, whatever the resources say', async () => {
    await kubectl(['apply', '-f', '-'], stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'cache', labels: { app: 'cache' } },
      spec: {
        containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }],
        affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'zk' } }, topologyKey: 'kubernetes.io/hostname' }] } },
        nodeSelector: { 'topology.kubernetes.io/zone': 'b' },
      },
    }));
    const node = await eventually(async () => (await kubectl(['get', 'pod', 'cache', '-o', 'jsonpath={.spec.nodeName}'])) || undefined, timeout, 'cache scheduled');
    assert.ok(node === 'worker2' || node === 'worker3', node);
    await kubectl(['delete', 'deployment', 'zk', '--wait=false']);
  });

  it('topologySpreadConstraints maxSkew 1 over zones keeps the zones level', async () => {
    const spread = {
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'spread' } } }],
      tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }],
    };
    await kubectl(['apply', '-f', '-'], deployment('spread', 6, spread));
    await eventually(async () => (await nodesOf('spread')).filter(Boolean).length === 6, timeout, 'six spread pods scheduled');
    const zoneOf: Record<string, string> = { 'control-plane': 'a', worker1: 'a', worker2: 'b', worker3: 'b' };
    const perZone = { a: 0, b: 0 } as Record<string, number>;
    for (const n of await nodesOf('spread')) perZone[zoneOf[n]]++;
    assert.deepEqual(perZone, { a: 3, b: 3 });
  });

  it('no constraints at all: the replicas of one Deployment land on different workers (system default spreading)', async () => {
    // Ballast on worker2 and worker3, so that resources alone would put both replicas on worker1.
    for (const n of ['worker2', 'worker3']) {
      await kubectl(['apply', '-f', '-'], stringify({
        apiVersion: 'v1', kind: 'Pod', metadata: { name: `ballast-${n}` },
        spec: { nodeName: n, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '2', memory: '4Gi' } } }] },
      }));
    }
    assert.match(await kubectl(['create', 'deployment', 'hello', '--image=nginx', '--replicas=2']), /deployment.apps\/hello created/);
    await eventually(async () => (await nodesOf('hello')).filter(Boolean).length === 2, timeout, 'hello scheduled');
    const nodes = await nodesOf('hello');
    assert.notEqual(nodes[0], nodes[1], `both on ${nodes[0]}`);
  });
});
