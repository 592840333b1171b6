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

  it('kubectl api-resources lists the groups, and kubectl explain knows their kinds', async () => {
    const { stdout } = await kubectl(['api-resources', '--no-headers']);
    const rowsByName = new Map(stdout.trim().split('\n').map((l) => l.trim().split(/\s+/)).map((r) => [r[0], r]));
    assert.deepEqual(rowsByName.get('poddisruptionbudgets'), ['poddisruptionbudgets', 'pdb', 'policy/v1', 'true', 'PodDisruptionBudget']);
    assert.deepEqual(rowsByName.get('priorityclasses'), ['priorityclasses', 'pc', 'scheduling.k8s.io/v1', 'false', 'PriorityClass']);
    assert.deepEqual(rowsByName.get('endpointslices'), ['endpointslices', 'discovery.k8s.io/v1', 'true', 'EndpointSlice']);
    assert.match((await kubectl(['explain', 'pdb.spec.unhealthyPodEvictionPolicy'])).stdout, /FIELD: unhealthyPodEvictionPolicy <string>/);
    assert.match((await kubectl(['explain', 'priorityclass.preemptionPolicy'])).stdout, /FIELD: preemptionPolicy <string>/);
    assert.match((await kubectl(['explain', 'endpointslices.endpoints.conditions'])).stdout, /FIELD: conditions <EndpointConditions>/);
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
  it('kubectl create priorityclass; get pc lists it beside the two system classes', async () => {
    assert.match((await kubectl(['create', 'priorityclass', 'high', '--value=1000', '--description=important'])).stdout, /priorityclass.scheduling.k8s.io\/high created/);
    const { stdout } = await kubectl(['get', 'pc']);
    assert.match(stdout.split('\n')[0], /^NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY$/);
    const table = stdout.trim().split('\n').slice(1).map(cells).map((r) => [r[0], r[1], r[2], r[4]]);
    assert.deepEqual(table, [
      ['high', '1000', 'false', 'PreemptLowerPriority'],
      ['system-cluster-critical', '2000000000', 'false', 'PreemptLowerPriority'],
      ['system-node-critical', '2000001000', 'false', 'PreemptLowerPriority'],
    ]);
    const missing = await cluster.kubectl(['run', 'nope', '--image=nginx:1.27', '--overrides={"spec":{"priorityClassName":"missing"}}'], { allowFail: true });
    assert.match(missing.stderr, /pods "nope" is forbidden: no PriorityClass with name missing was found/);
    await kubectl(['create', 'priorityclass', 'never', '--value=1000', '--preemption-policy=Never']);
  });

  it('a higher-priority pod preempts a lower one on a full node', async () => {
    const onSmall = (name: string, priorityClassName?: string) => stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name },
      spec: { nodeSelector: { size: 'small' }, ...(priorityClassName ? { priorityClassName } : {}), containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests: { cpu: '800m' } } }] },
    });
    await kubectl(['apply', '-f', '-'], onSmall('victim'));
    await eventually(async () => (await json(['get', 'pod', 'victim'])).status.phase === 'Running', 30_000, 'victim Running');
    await kubectl(['apply', '-f', '-'], onSmall('polite', 'never'));
    const polite = await eventually(async () => {
      const p = await json(['get', 'pod', 'polite']);
      return p.status.conditions?.find((c: any) => c.type === 'PodScheduled' && c.status === 'False') ? p : undefined;
    }, 30_000, 'the Never pod unschedulable');
    assert.match(polite.status.conditions.find((c: any) => c.type === 'PodScheduled').message, /preemption: not eligible due to preemptionPolicy=Never\./);
    assert.equal((await json(['get', 'pod', 'victim'])).metadata.deletionTimestamp, undefined, 'a Never pod preempts nobody');
    await kubectl(['delete', 'pod', 'polite', '--wait=true']);
    const { items: [before] } = await json(['get', 'pods', '--field-selector=metadata.name=victim']);
    await kubectl(['apply', '-f', '-'], onSmall('important', 'high'));
    const nominated = await eventually(async () => (await json(['get', 'pod', 'important'])).status.nominatedNodeName, 30_000, 'nominatedNodeName');
    assert.equal(nominated, 'small-node-0');
    await eventually(async () => (await cluster.kubectl(['get', 'pod', 'victim', '-o', 'jsonpath={.metadata.uid}'], { allowFail: true })).stdout !== before.metadata.uid, 30_000, 'victim deleted');
    const events = await eventually(async () => {
      const found = (await json(['get', 'events'])).items.filter((e: any) => e.involvedObject.name === 'victim' && e.reason === 'Preempted');
      return found.length ? found : undefined;
    }, 30_000, 'a Preempted event');
    assert.match(events[0]?.message ?? '', /^Preempted by pod [0-9a-f-]+ on node small-node-0$/);
    const important = await eventually(async () => {
      const p = await json(['get', 'pod', 'important']);
      return p.spec.nodeName ? p : undefined;
    }, 30_000, 'the preemptor scheduled');
    assert.equal(important.spec.nodeName, 'small-node-0');
    assert.equal(important.spec.priority, 1000);
  });

  it('kubectl get endpointslices for a Service', async () => {
    await kubectl(['apply', '-f', '-'], stringify({
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'web-svc' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' }] },
    }));
    const pods = (await json(['get', 'pods', '-l', 'app=web'])).items;
    const ips = pods.map((p: any) => p.status.podIP).sort();
    const slice = await eventually(async () => {
      const list = (await json(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web-svc'])).items;
      return list.length === 1 && list[0].endpoints?.length === 3 ? list[0] : undefined;
    }, 30_000, 'a slice with three endpoints');
    assert.equal(slice.metadata.labels['endpointslice.kubernetes.io/managed-by'], 'endpointslice-controller.k8s.io');
    assert.equal(slice.metadata.ownerReferences[0].kind, 'Service');
    assert.deepEqual(slice.ports, [{ name: '', port: 80, protocol: 'TCP' }]);
    assert.ok(slice.endpoints.every((e: any) => e.conditions.ready && e.targetRef.kind === 'Pod' && e.nodeName));
    const { stdout } = await kubectl(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web-svc']);
    assert.match(stdout.split('\n')[0], /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE$/);
    const row = cells(stdout.split('\n')[1]);
    assert.match(row[0], /^web-svc-[a-z0-9]{5}$/);
    assert.deepEqual([row[1], row[2], row[3].split(',').sort()], ['IPv4', '80', ips]);
  });

  it('Endpoints of a selector-less Service are mirrored', async () => {
    await kubectl(['apply', '-f', '-'], stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'external' }, spec: { ports: [{ port: 443 }] } }));
    await kubectl(['apply', '-f', '-'], stringify({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'external' }, subsets: [{ addresses: [{ ip: '192.0.2.10' }], ports: [{ port: 443 }] }] }));
    const slice = await eventually(async () => (await json(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=external'])).items[0], 30_000, 'a mirrored slice');
    assert.equal(slice.metadata.labels['endpointslice.kubernetes.io/managed-by'], 'endpointslicemirroring-controller.k8s.io');
    assert.deepEqual(slice.endpoints.map((e: any) => e.addresses[0]), ['192.0.2.10']);
  });
});
