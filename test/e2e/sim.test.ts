/**
 * Simulated nodes against the real server, checked with the real kubectl:
 * registration and heartbeats, pods moving through their lifecycle on a
 * simulated node, graceful deletion completed by the agent, nodes joining,
 * going silent and leaving, 200 nodes at once, and `k8ts agent` as a process.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startCluster, eventually, repoRoot, type Cluster } from './harness.js';
import { Clientset, loadKubeconfig } from '../../src/client/index.js';
import { NodeSimulator } from '../../src/kubelet/index.js';
import { silentLogger } from '../../src/util/log.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `kubectl get <what> --no-headers` as rows of columns. */
async function rows(cluster: Cluster, args: string[]): Promise<string[][]> {
  const { stdout } = await cluster.kubectl(['get', ...args, '--no-headers']);
  return stdout.trim().split('\n').filter(Boolean).map((l) => l.trim().split(/\s+/));
}

/** A pod manifest pinned to a node. */
function podYAML(name: string, node: string, annotations: Record<string, string> = {}, requests?: Record<string, string>): string {
  return stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, annotations },
    spec: { nodeName: node, containers: [{ name: 'app', image: 'nginx:1.27', ...(requests ? { resources: { requests } } : {}) }] },
  });
}

describe('simulated nodes (NodeSimulator, k8ts agent)', () => {
  let cluster: Cluster;
  let clients: Clientset;
  let sim: NodeSimulator;

  before(async () => {
    cluster = await startCluster();
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
    sim = new NodeSimulator(clients, { count: 3, renewIntervalMs: 1000, logger: silentLogger });
    await sim.start();
  });

  after(async () => {
    await sim?.close();
    clients?.close();
    await cluster?.cleanup();
  });

  it('kubectl get nodes shows three Ready nodes at v1.32.0, with their simulated runtime', async () => {
    const nodes = await rows(cluster, ['nodes', '-o', 'wide']);
    assert.deepEqual(nodes.map((r) => r[0]), ['sim-node-0', 'sim-node-1', 'sim-node-2']);
    for (const r of nodes) {
      assert.equal(r[1], 'Ready');
      assert.equal(r[4], 'v1.32.0');
      assert.match(r[5], /^172\.16\.0\.1[0-2]$/);
      assert.equal(r.at(-1), 'k8ts-sim://0.1.0');
    }
    const leases = await rows(cluster, ['leases', '-n', 'kube-node-lease']);
    assert.deepEqual(leases.map((r) => [r[0], r[1]]), [['sim-node-0', 'sim-node-0'], ['sim-node-1', 'sim-node-1'], ['sim-node-2', 'sim-node-2']]);
  });

  it('a pod bound to a simulated node becomes Running 1/1, and kubectl delete completes', async () => {
    await cluster.kubectl(['apply', '-f', '-'], { input: podYAML('web', 'sim-node-0') });
    const row = await eventually(async () => {
      const [r] = await rows(cluster, ['pod', 'web', '-o', 'wide']);
      return r[1] === '1/1' && r[2] === 'Running' ? r : undefined;
    }, 10_000, 'pod web Running 1/1');
    assert.match(row[5], /^10\.244\.0\.\d+$/, 'pod IP from the node CIDR');
    assert.equal(row[6], 'sim-node-0');
    const pod = await clients.pods.get('default', 'web');
    assert.deepEqual(pod.status.conditions.map((c: any) => `${c.type}=${c.status}`),
      ['PodReadyToStartContainers=True', 'Initialized=True', 'Ready=True', 'ContainersReady=True', 'PodScheduled=True']);
    assert.equal(pod.status.hostIP, '172.16.0.10');
    assert.match(pod.status.containerStatuses[0].containerID, /^sim:\/\//);
    assert.equal(pod.status.containerStatuses[0].image, 'docker.io/library/nginx:1.27');
    const started = Date.now();
    await cluster.kubectl(['delete', 'pod', 'web', '--timeout=20s']);
    assert.ok(Date.now() - started < 10_000);
    const gone = await cluster.kubectl(['get', 'pod', 'web'], { allowFail: true });
    assert.match(gone.stderr, /pods "web" not found/);
  });

  it('injected outcomes: sim-complete-after → Completed, sim-fail-after → CrashLoopBackOff (restartPolicy Always), sim-ready "false" → 0/1', async () => {
    await cluster.kubectl(['apply', '-f', '-'], {
      input: [
        podYAML('done', 'sim-node-1', { 'k8ts.io/sim-complete-after': '1s' }),
        podYAML('broken', 'sim-node-1', { 'k8ts.io/sim-fail-after': '1s' }),
        podYAML('unready', 'sim-node-2', { 'k8ts.io/sim-ready': 'false' }),
      ].join('---\n'),
    });
    await eventually(async () => {
      const byName = Object.fromEntries((await rows(cluster, ['pods'])).map((r) => [r[0], `${r[1]} ${r[2]}`]));
      return byName.done === '0/1 Completed' && byName.broken === '0/1 CrashLoopBackOff' && byName.unready === '0/1 Running' ? byName : undefined;
    }, 20_000, 'Completed, CrashLoopBackOff and 0/1 Running');
    const broken = JSON.parse((await cluster.kubectl(['get', 'pod', 'broken', '-o', 'json'])).stdout);
    assert.ok(broken.status.containerStatuses[0].restartCount >= 1);
    assert.equal(broken.status.containerStatuses[0].lastState.terminated.reason, 'Error');
    assert.match(broken.status.containerStatuses[0].state.waiting.message, /^back-off \d+s restarting failed container=app pod=broken_default\(/);
    await cluster.kubectl(['annotate', 'pod', 'unready', 'k8ts.io/sim-ready-']);
    await eventually(async () => (await rows(cluster, ['pod', 'unready']))[0][1] === '1/1', 5_000, 'unready turns 1/1');
    await cluster.kubectl(['delete', 'pod', 'done', 'broken', 'unready', '--timeout=20s']);
  });

  it('activeDeadlineSeconds ends a pod Failed with DeadlineExceeded', async () => {
    const manifest = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'deadline' }, spec: { nodeName: 'sim-node-1', activeDeadlineSeconds: 3, containers: [{ name: 'app', image: 'nginx:1.27' }] } };
    await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify(manifest) });
    const pod = await eventually(async () => {
      const p = JSON.parse((await cluster.kubectl(['get', 'pod', 'deadline', '-o', 'json'])).stdout);
      return p.status.phase === 'Failed' ? p : undefined;
    }, 30_000, 'deadline pod Failed');
    assert.equal(pod.status.reason, 'DeadlineExceeded');
    assert.equal(pod.status.message, 'Pod was active on the node longer than the specified deadline');
    assert.ok(pod.status.containerStatuses[0].state.terminated);
    assert.ok(Date.parse(pod.status.containerStatuses[0].state.terminated.finishedAt) - Date.parse(pod.status.startTime) >= 3000);
    await cluster.kubectl(['delete', 'pod', 'deadline', '--timeout=20s']);
  });

  it('a readinessProbe holds Ready until its first probe at or after initialDelaySeconds', async () => {
    const probe = { tcpSocket: { port: 80 }, initialDelaySeconds: 2, periodSeconds: 1 };
    const manifest = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'probed' }, spec: { nodeName: 'sim-node-2', containers: [{ name: 'app', image: 'nginx:1.27', readinessProbe: probe }] } };
    await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify(manifest) });
    await cluster.kubectl(['wait', '--for=condition=Ready', 'pod/probed', '--timeout=60s']);
    const pod = JSON.parse((await cluster.kubectl(['get', 'pod', 'probed', '-o', 'json'])).stdout);
    const ready = pod.status.conditions.find((c: any) => c.type === 'Ready');
    const started = Date.parse(pod.status.containerStatuses[0].state.running.startedAt);
    // Ready 2 s after the start (the probe at t=2 s); both RFC 3339 times are cut to whole seconds alike.
    assert.ok(Date.parse(ready.lastTransitionTime) - started >= 2000, `Ready at ${ready.lastTransitionTime}, started ${pod.status.containerStatuses[0].state.running.startedAt}`);
    await cluster.kubectl(['delete', 'pod', 'probed', '--timeout=20s']);
  });

  it('a pod that does not fit is rejected as the kubelet rejects it (OutOfcpu)', async () => {
    await cluster.kubectl(['apply', '-f', '-'], { input: podYAML('huge', 'sim-node-2', {}, { cpu: '64' }) });
    const pod = await eventually(async () => {
      const p = await clients.pods.get('default', 'huge');
      return p.status.phase === 'Failed' ? p : undefined;
    }, 5_000, 'huge rejected');
    assert.equal(pod.status.reason, 'OutOfcpu');
    assert.equal(pod.status.message, "Pod was rejected: Node didn't have enough resource: cpu, requested: 64000, used: 0, capacity: 4000");
    await cluster.kubectl(['delete', 'pod', 'huge']);
  });

  it('a stopped node stops renewing its Lease; started again, it renews', async () => {
    const renewTime = async (n: string) => (await clients.leases.get('kube-node-lease', n)).spec.renewTime as string;
    sim.stopNode('sim-node-1');
    await sleep(300);
    const frozen = await renewTime('sim-node-1');
    const other = await renewTime('sim-node-0');
    await sleep(2_500);
    assert.equal(await renewTime('sim-node-1'), frozen, 'stopped node: renewTime frozen');
    assert.ok(await renewTime('sim-node-0') > other, 'running node: renewTime advances');
    sim.startNode('sim-node-1');
    await eventually(async () => (await renewTime('sim-node-1')) > frozen, 3_000, 'renewals resume');
  });

  it('a control-plane node joins labelled and tainted; a node leaves with its Node and Lease', async () => {
    await sim.addNode('cp-0', { controlPlane: true });
    const cp = (await rows(cluster, ['node', 'cp-0']))[0];
    assert.deepEqual([cp[1], cp[2]], ['Ready', 'control-plane']);
    const { stdout } = await cluster.kubectl(['get', 'node', 'cp-0', '-o', 'jsonpath={.spec.taints}']);
    assert.deepEqual(JSON.parse(stdout), [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]);
    await sim.removeNode('cp-0', { deleteNodeObject: true });
    assert.match((await cluster.kubectl(['get', 'node', 'cp-0'], { allowFail: true })).stderr, /nodes "cp-0" not found/);
    assert.match((await cluster.kubectl(['get', 'lease', '-n', 'kube-node-lease', 'cp-0'], { allowFail: true })).stderr, /not found/);
  });

  it('a Node deleted under a running agent is not re-registered (upstream registers only at start)', async () => {
    await sim.addNode('doomed');
    await cluster.kubectl(['delete', 'node', 'doomed']);
    await sleep(2_500);
    assert.match((await cluster.kubectl(['get', 'node', 'doomed'], { allowFail: true })).stderr, /nodes "doomed" not found/);
    await sim.removeNode('doomed', { deleteNodeObject: true });
  });

  it('200 nodes come up and are all Ready', async (t) => {
    const bulk = new NodeSimulator(clients, { count: 200, namePrefix: 'bulk-', startIndex: 1000, events: false, logger: silentLogger });
    try {
      const started = Date.now();
      await bulk.start();
      // Reported, not asserted: how fast is bench/sim.ts's to measure (this took 69 s at machine load 39, 2 cores).
      t.diagnostic(`200 nodes registered in ${Date.now() - started} ms`);
      const nodes = (await rows(cluster, ['nodes'])).filter((r) => r[0].startsWith('bulk-'));
      assert.equal(nodes.length, 200);
      assert.ok(nodes.every((r) => r[1] === 'Ready'));
      const leases = (await clients.leases.list('kube-node-lease')).items.filter((l) => l.metadata.name.startsWith('bulk-'));
      assert.equal(leases.length, 200);
    } finally {
      await bulk.close({ deleteNodes: true });
    }
  });

  it('k8ts agent registers its node, runs a pod, and exits 0 on SIGTERM', async () => {
    // The compiled tree's module (the bundle has no agent.js of its own name).
    const runner = `import { runAgent } from ${JSON.stringify(join(repoRoot, 'dist', 'src', 'cli', 'agent.js'))};
      runAgent(process.argv.slice(1)).then((c) => { process.exitCode = c; }, (e) => { console.error(e); process.exitCode = 1; });`;
    const proc = spawn(process.execPath, ['--input-type=module', '-e', runner, '--', '--kubeconfig', cluster.kubeconfig, '--node-name', 'agent-1',
      '--runtime', 'simulated', '--labels', 'tier=edge', '--register-with-taints', 'dedicated=edge:NoSchedule', '--max-pods', '20', '--cpu', '2', '--memory', '4Gi'],
    { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr!.on('data', (d) => { stderr += d; });
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    try {
      const node = await eventually(async () => {
        const [r] = await rows(cluster, ['node', 'agent-1']);
        return r[1] === 'Ready' ? await clients.nodes.get(undefined, 'agent-1') : undefined;
      }, 10_000, 'agent-1 Ready');
      assert.equal(node.metadata.labels.tier, 'edge');
      assert.deepEqual(node.spec.taints, [{ key: 'dedicated', value: 'edge', effect: 'NoSchedule' }]);
      assert.deepEqual([node.status.capacity.cpu, node.status.capacity.memory, node.status.capacity.pods], ['2', '4Gi', '20']);
      await cluster.kubectl(['apply', '-f', '-'], { input: podYAML('on-agent', 'agent-1') });
      await eventually(async () => (await rows(cluster, ['pod', 'on-agent']))[0][2] === 'Running', 10_000, 'on-agent Running');
      await cluster.kubectl(['delete', 'pod', 'on-agent', '--timeout=20s']);
    } finally {
      proc.kill('SIGTERM');
    }
    assert.equal(await exited, 0, stderr);
    assert.match(stderr, /"msg":"shutting down"/);
  });
});
