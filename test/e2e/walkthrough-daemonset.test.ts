/**
 * The seed notes' DaemonSet and taint walkthroughs on the whole system: the
 * server with its in-process controllers and scheduler, simulated nodes
 * (one tainted control-plane node and workers), driven with the real kubectl.
 * Grace periods are scaled down through the server's flags.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCluster, eventually, seedsDir, type Cluster } from './harness.js';
import { seedManifests } from './seed-manifests.js';
import { Clientset, loadKubeconfig } from '../../src/client/index.js';
import { NodeSimulator } from '../../src/kubelet/index.js';
import { silentLogger } from '../../src/util/log.js';

interface PodRow { name: string; ready: string; status: string; node: string }

async function pods(cluster: Cluster, ns: string, selector?: string): Promise<PodRow[]> {
  const args = ['get', 'pods', '-n', ns, '-o', 'wide', '--no-headers', ...(selector ? ['-l', selector] : [])];
  const { stdout } = await cluster.kubectl(args);
  return stdout.trim().split('\n').filter((l) => l && !l.startsWith('No resources')).map((l) => {
    const c = l.trim().split(/\s+/);
    return { name: c[0], ready: c[1], status: c[2], node: c[6] };
  });
}

const nodesOf = (rows: PodRow[]) => rows.map((r) => r.node).sort();
const allRunning = (rows: PodRow[]) => rows.every((r) => r.status === 'Running' && r.ready === '1/1');

describe('seed walkthrough: DaemonSets, node join/leave, taints, heartbeats (whole system)', () => {
  let cluster: Cluster;
  let clients: Clientset;
  let sim: NodeSimulator;
  const manifests = seedManifests(seedsDir);
  const file = (kind: string, name: string) => {
    const m = manifests.find((x) => x.obj.kind === kind && x.obj.metadata.name === name)!;
    const path = join(cluster.dataDir, `${kind}-${name}.yaml`);
    writeFileSync(path, m.yaml);
    return path;
  };

  before(async () => {
    cluster = await startCluster({
      controllers: 'all',
      extraArgs: ['--node-monitor-grace-period', '3s', '--pod-gc-quarantine', '1s',
        '--default-not-ready-toleration-seconds', '2', '--default-unreachable-toleration-seconds', '2'],
    });
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
    sim = new NodeSimulator(clients, { count: 0, renewIntervalMs: 500, events: false, logger: silentLogger });
    await sim.start();
    await sim.addNode('control-plane', { controlPlane: true });
    await sim.addNode('worker1');
    await sim.addNode('worker2');
  });

  after(async () => {
    await sim?.close();
    clients?.close();
    await cluster?.cleanup();
  });

  it('the fluentd DaemonSet runs one pod on every node, the control plane included', async () => {
    const out = await cluster.kubectl(['create', '-f', file('DaemonSet', 'fluentd-elasticsearch')]);
    assert.match(out.stdout, /daemonset.apps\/fluentd-elasticsearch created/);
    const rows = await eventually(async () => {
      const r = await pods(cluster, 'kube-system', 'name=fluentd-elasticsearch');
      return r.length === 3 && allRunning(r) && r;
    }, 20_000, 'three running fluentd pods');
    assert.deepEqual(nodesOf(rows), ['control-plane', 'worker1', 'worker2']);
    const ds = await cluster.kubectl(['get', 'ds', '-n', 'kube-system', '--no-headers']);
    assert.match(ds.stdout, /^fluentd-elasticsearch\s+3\s+3\s+3\s+3\s+3\s+<none>/);
  });

  it('a DaemonSet without the control-plane toleration skips the control-plane node', async () => {
    await cluster.kubectl(['create', '-f', file('DaemonSet', 'monitoring-daemon')]);
    const rows = await eventually(async () => {
      const r = await pods(cluster, 'default', 'app=monitoring-agent');
      return r.length === 2 && allRunning(r) && r;
    }, 20_000, 'two monitoring pods');
    assert.deepEqual(nodesOf(rows), ['worker1', 'worker2']);
    const ds = await cluster.kubectl(['get', 'ds', 'monitoring-daemon', '--no-headers']);
    assert.match(ds.stdout, /^monitoring-daemon\s+2\s+2\s+2\s+2\s+2\s+/);
  });

  it('kubectl delete node worker1 removes its pods; the node rejoins and gets them back', async () => {
    await sim.removeNode('worker1');
    await cluster.kubectl(['delete', 'node', 'worker1']);
    await eventually(async () => {
      const r = await pods(cluster, 'kube-system', 'name=fluentd-elasticsearch');
      return r.length === 2 && !r.some((p) => p.node === 'worker1');
    }, 20_000, 'worker1 pod garbage-collected');
    await sim.addNode('worker1');
    const rows = await eventually(async () => {
      const r = await pods(cluster, 'kube-system', 'name=fluentd-elasticsearch');
      return r.length === 3 && allRunning(r) && r;
    }, 20_000, 'worker1 pod back');
    assert.deepEqual(nodesOf(rows), ['control-plane', 'worker1', 'worker2']);
  });

  it('a new node joining gets its DaemonSet pods within seconds', async () => {
    await sim.addNode('worker3');
    await eventually(async () => {
      const f = await pods(cluster, 'kube-system', 'name=fluentd-elasticsearch');
      const m = await pods(cluster, 'default', 'app=monitoring-agent');
      return f.some((p) => p.node === 'worker3' && p.status === 'Running') && m.some((p) => p.node === 'worker3' && p.status === 'Running');
    }, 20_000, 'pods on worker3');
  });

  it('a NoExecute taint evicts the DaemonSet pod that does not tolerate it; removing the taint brings it back', async () => {
    await cluster.kubectl(['taint', 'nodes', 'worker3', 'dedicated=infra:NoExecute']);
    await eventually(async () => !(await pods(cluster, 'default', 'app=monitoring-agent')).some((p) => p.node === 'worker3'), 20_000, 'monitoring pod evicted from worker3');
    await cluster.kubectl(['taint', 'nodes', 'worker3', 'dedicated=infra:NoExecute-']);
    await eventually(async () => (await pods(cluster, 'default', 'app=monitoring-agent')).some((p) => p.node === 'worker3' && p.status === 'Running'), 20_000, 'monitoring pod back on worker3');
  });

  it('a plain pod goes to an untainted worker, and the scheduler honours tolerations', async () => {
    const nginx = file('Pod', 'nginx');
    await cluster.kubectl(['taint', 'nodes', 'worker1', 'worker2', 'worker3', 'example-key=x:NoSchedule']);
    await cluster.kubectl(['create', '-f', nginx]);
    // The seed pod tolerates example-key:NoSchedule (operator Exists), not the control-plane taint.
    const row = await eventually(async () => {
      const r = (await pods(cluster, 'default')).find((p) => p.name === 'nginx');
      return r?.status === 'Running' && r;
    }, 20_000, 'nginx running');
    assert.match(row.node, /^worker[123]$/);
    await cluster.kubectl(['taint', 'nodes', 'worker1', 'worker2', 'worker3', 'example-key-']);
  });

  it('deleting the DaemonSet removes all its pods', async () => {
    await cluster.kubectl(['delete', 'ds', 'monitoring-daemon']);
    await eventually(async () => (await pods(cluster, 'default', 'app=monitoring-agent')).length === 0, 20_000, 'monitoring pods gone');
  });

  it('a node that stops heartbeating goes NotReady and its non-DaemonSet pods are evicted, DaemonSet pods stay', async () => {
    const nginxNode = (await pods(cluster, 'default')).find((p) => p.name === 'nginx')!.node;
    sim.stopNode(nginxNode, { freezePods: true });
    await eventually(async () => {
      const { stdout } = await cluster.kubectl(['get', 'node', nginxNode, '--no-headers']);
      return /NotReady/.test(stdout);
    }, 20_000, `${nginxNode} NotReady`);
    // The NoExecute taint goes through the node lifecycle controller's rate-limited eviction queue.
    await eventually(async () => {
      const taints = JSON.parse((await cluster.kubectl(['get', 'node', nginxNode, '-o', 'jsonpath={.spec.taints}'])).stdout || '[]');
      return taints.some((t: any) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute');
    }, 20_000, 'unreachable:NoExecute taint');
    await eventually(async () => {
      const { stdout } = await cluster.kubectl(['get', 'pod', 'nginx', '-o', 'jsonpath={.metadata.deletionTimestamp}']);
      return stdout.trim() !== '';
    }, 20_000, 'nginx marked for deletion');
    const fluentd = (await pods(cluster, 'kube-system', 'name=fluentd-elasticsearch')).find((p) => p.node === nginxNode)!;
    const { stdout } = await cluster.kubectl(['get', 'pod', '-n', 'kube-system', fluentd.name, '-o', 'jsonpath={.metadata.deletionTimestamp}']);
    assert.equal(stdout.trim(), '', 'the DaemonSet pod tolerates unreachable and stays');
  });
});
