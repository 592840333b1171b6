/**
 * The scheduler end to end: a real `k8ts server` (without its in-process
 * controllers), the real kubectl, and the Scheduler running in this process
 * against the server over HTTPS with the admin kubeconfig.
 *
 * Nodes: `control-plane` tainted node-role.kubernetes.io/control-plane:NoSchedule,
 * `worker1` and `worker2`, each 2 cpu, 4Gi, 110 pods, Ready. Checked:
 * pods land on nodes they tolerate only; a pod too big gets PodScheduled=False
 * with upstream's message and a FailedScheduling event (`kubectl describe`);
 * removing a taint gets a pending pod scheduled by the node event (well before
 * any periodic flush); nodeSelector and node affinity; a PreferNoSchedule
 * taint steers pods to the untainted worker.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { startCluster, eventually } from './harness.js';
import type { Cluster } from './harness.js';
import { Clientset, loadKubeconfig } from '../../src/client/index.js';
import type { Scheduler } from '../../src/scheduler/scheduler.js';
import { runScheduler, type RunningScheduler } from './scheduler-in-process.js';

const controlPlaneTaint = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };
const tooBigMessage = '0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. '
  + 'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.';

function node(name: string, extra: { labels?: Record<string, string>; taints?: any[] } = {}): any {
  const resources = { cpu: '2', memory: '4Gi', pods: '110' };
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', ...(extra.labels ?? {}) } },
    spec: extra.taints ? { taints: extra.taints } : {},
    status: {
      capacity: resources, allocatable: resources,
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now }],
    },
  };
}

function pod(name: string, spec: Record<string, unknown> = {}, cpu?: string): string {
  return stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', ...(cpu ? { resources: { requests: { cpu } } } : {}) }], ...spec },
  });
}

describe('scheduler against a real API server', () => {
  let cluster: Cluster;
  let clients: Clientset;
  let running: RunningScheduler;
  let scheduler: Scheduler;

  const kubectl = (args: string[], input?: string) => cluster.kubectl(args, { input });
  const nodeOf = async (name: string) => (await kubectl(['get', 'pod', name, '-o', 'jsonpath={.spec.nodeName}'])).stdout;
  const scheduledTo = (name: string, what = `${name} scheduled`) => eventually(async () => (await nodeOf(name)) || undefined, 15_000, what);

  before(async () => {
    cluster = await startCluster({ extraArgs: ['--controllers', 'none'] });
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig), { qps: 0, userAgent: 'k8ts-scheduler-e2e' });
    await clients.nodes.create(undefined, node('control-plane', { labels: { 'node-role.kubernetes.io/control-plane': '' }, taints: [controlPlaneTaint] }));
    await clients.nodes.create(undefined, node('worker1'));
    await clients.nodes.create(undefined, node('worker2'));
    running = runScheduler(clients);
    scheduler = running.scheduler;
  });

  after(async () => {
    running?.stop();
    clients?.close();
    await cluster?.cleanup();
  });

  it('places pods only on nodes whose taints they tolerate, with a Scheduled event', async () => {
    const names = ['web-1', 'web-2', 'web-3', 'web-4'];
    await kubectl(['apply', '-f', '-'], names.map((n) => pod(n)).join('---\n'));
    for (const n of names) assert.match(await scheduledTo(n), /^worker[12]$/);
    await kubectl(['apply', '-f', '-'], pod('admin', {
      nodeSelector: { 'node-role.kubernetes.io/control-plane': '' }, tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }],
    }));
    assert.equal(await scheduledTo('admin'), 'control-plane');
    const cond = JSON.parse((await kubectl(['get', 'pod', 'web-1', '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")]}'])).stdout);
    assert.equal(cond.status, 'True');
    const events = await eventually(async () => {
      const out = (await kubectl(['get', 'events', '--field-selector', 'involvedObject.name=web-1,reason=Scheduled', '-o', 'jsonpath={.items[*].message}'])).stdout;
      return out || undefined;
    }, 10_000, 'Scheduled event');
    assert.match(events, /^Successfully assigned default\/web-1 to worker[12]$/);
    const describe = (await kubectl(['describe', 'pod', 'web-1'])).stdout;
    assert.match(describe, /Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned default\/web-1 to worker[12]/);
  });

  it('a pod too big for any node gets PodScheduled=False with upstream\'s message and a FailedScheduling event', async () => {
    await kubectl(['apply', '-f', '-'], pod('big', {}, '3'));
    const cond = await eventually(async () => {
      const out = (await kubectl(['get', 'pod', 'big', '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")]}'])).stdout;
      return out ? JSON.parse(out) : undefined;
    }, 10_000, 'PodScheduled condition');
    assert.equal(cond.status, 'False');
    assert.equal(cond.reason, 'Unschedulable');
    assert.equal(cond.message, tooBigMessage);
    assert.equal((await kubectl(['get', 'pod', 'big', '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}'])).stdout, tooBigMessage);
    const describe = await eventually(async () => {
      const out = (await kubectl(['describe', 'pod', 'big'])).stdout;
      return out.includes('FailedScheduling') ? out : undefined;
    }, 10_000, 'FailedScheduling in describe');
    assert.match(describe, /Warning\s+FailedScheduling\s+\S+\s+default-scheduler\s+0\/3 nodes are available: 1 node\(s\) had untolerated taint/);
    assert.ok(describe.replace(/\s+/g, ' ').includes(tooBigMessage), describe);
    assert.equal(await nodeOf('big'), '');
    await kubectl(['delete', 'pod', 'big', '--wait=false']);
  });

  it('removing a taint schedules the pending pod at once (a node event, not a periodic retry)', async () => {
    await kubectl(['apply', '-f', '-'], pod('cp-only', { nodeSelector: { 'node-role.kubernetes.io/control-plane': '' } }));
    const msg = await eventually(async () => (await kubectl(['get', 'pod', 'cp-only', '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}'])).stdout || undefined,
      10_000, 'cp-only unschedulable');
    assert.equal(msg, "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't match Pod's node affinity/selector. "
      + 'preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.');
    // Several seconds without a change: the pod stays where it is (no busy retry).
    const before = scheduler.stats.unschedulable;
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal(scheduler.stats.unschedulable, before, 'no retries without cluster events');
    assert.equal(await nodeOf('cp-only'), '');
    const t0 = Date.now();
    await kubectl(['taint', 'nodes', 'control-plane', 'node-role.kubernetes.io/control-plane:NoSchedule-']);
    assert.equal(await scheduledTo('cp-only'), 'control-plane');
    // Generous for a loaded CI machine, and still far from the 5-minute flush it tells apart.
    assert.ok(Date.now() - t0 < 60_000, 'scheduled within the back-off, long before the 5-minute flush');
    await kubectl(['taint', 'nodes', 'control-plane', 'node-role.kubernetes.io/control-plane:NoSchedule']);
  });

  it('honours nodeSelector and required node affinity', async () => {
    await kubectl(['label', 'nodes', 'worker2', 'disktype=ssd']);
    await kubectl(['apply', '-f', '-'], [
      pod('ssd', { nodeSelector: { disktype: 'ssd' } }),
      pod('not-worker2', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [
        { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'NotIn', values: ['worker2'] }] }] } } } }),
      pod('pinned', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['worker1'] }] }] } } } }),
    ].join('---\n'));
    assert.equal(await scheduledTo('ssd'), 'worker2');
    assert.equal(await scheduledTo('not-worker2'), 'worker1');
    assert.equal(await scheduledTo('pinned'), 'worker1');
    await kubectl(['apply', '-f', '-'], pod('hdd', { nodeSelector: { disktype: 'hdd' } }));
    await eventually(async () => (await kubectl(['get', 'pod', 'hdd', '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].reason}'])).stdout === 'Unschedulable',
      10_000, 'hdd unschedulable');
    await kubectl(['label', 'nodes', 'worker1', 'disktype=hdd']);
    assert.equal(await scheduledTo('hdd', 'hdd scheduled after labelling worker1'), 'worker1');
  });

  it('prefers the node without a PreferNoSchedule taint', async () => {
    await kubectl(['taint', 'nodes', 'worker1', 'maintenance=soon:PreferNoSchedule']);
    const taints = JSON.parse((await kubectl(['get', 'nodes', 'worker1', '-o', 'jsonpath={.spec.taints}'])).stdout);
    assert.deepEqual(taints, [{ effect: 'PreferNoSchedule', key: 'maintenance', value: 'soon' }]);
    const names = ['soft-1', 'soft-2', 'soft-3'];
    await kubectl(['apply', '-f', '-'], names.map((n) => pod(n)).join('---\n'));
    for (const n of names) assert.equal(await scheduledTo(n), 'worker2');
  });
});
