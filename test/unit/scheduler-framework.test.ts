/**
 * The scheduling cycle over the default profile: upstream's exact
 * FailedScheduling messages (FitError aggregation with the preemption
 * suffix), the adaptive number of nodes to find, scoring choices, and the
 * cache's assumed pods.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Framework, numFeasibleNodesToFind } from '../../src/scheduler/runtime.js';
import { defaultProfile } from '../../src/scheduler/profile.js';
import { fitErrorMessage } from '../../src/scheduler/fiterror.js';
import { SchedulerCache } from '../../src/scheduler/cache.js';
import { Scheduler, truncateMessage } from '../../src/scheduler/scheduler.js';
import type { Controller, ControllerContext } from '../../src/controllers/types.js';
import { controlPlaneTaint, firstOfTies, makeNode, makePod, nodeInfo, snapshot } from '../../src/scheduler/testing/wrappers.js';

const newFramework = (opts: { percentageOfNodesToScore?: number; random?: () => number } = {}) =>
  new Framework(defaultProfile().plugins, { random: firstOfTies, ...opts });

const pin = (node: string) => ({
  nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] } },
});

/** One tainted control-plane node and two 2-cpu workers, as in `k8ts up`. */
const cluster = (pods: Record<string, any[]> = {}) => snapshot([
  nodeInfo(makeNode('control-plane', { taints: [controlPlaneTaint] }), pods['control-plane']),
  nodeInfo(makeNode('worker1'), pods.worker1),
  nodeInfo(makeNode('worker2'), pods.worker2),
]);

describe('FailedScheduling messages', () => {
  const cases: [string, any, ReturnType<typeof snapshot>, string][] = [
    ['too big for the workers, control plane tainted', makePod('big', { cpu: '3' }), cluster(),
      '0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. '
      + 'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.'],
    ['nodeSelector matching nothing', makePod('sel', { nodeSelector: { disktype: 'ssd' } }), cluster(),
      "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't match Pod's node affinity/selector. "
      + 'preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.'],
    ['DaemonSet pod pinned to the tainted control plane', makePod('ds', { affinity: pin('control-plane') }), cluster(),
      "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
      + 'preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.'],
    ['DaemonSet pod pinned to a full worker', makePod('ds', { affinity: pin('worker1'), cpu: '1' }), cluster({ worker1: [makePod('a', { cpu: '1500m' })] }),
      "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
      + 'preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.'],
    ['DaemonSet pod pinned to a node that does not exist', makePod('ds', { affinity: pin('gone') }), cluster(),
      "0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."],
    ['conflicting node name terms (PreFilter rejects)', makePod('c', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [
      { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['worker1'] }, { key: 'metadata.name', operator: 'In', values: ['worker2'] }] }] } } } }), cluster(),
    '0/3 nodes are available: pod affinity terms conflict. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.'],
    ['preemptionPolicy Never', makePod('n', { cpu: '3', preemptionPolicy: 'Never', tolerations: [{ operator: 'Exists' }] }), cluster(),
      '0/3 nodes are available: 3 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.'],
    ['a node short of cpu and memory counts under both', makePod('m', { cpu: '3', memory: '5Gi', tolerations: [{ operator: 'Exists' }] }), cluster(),
      '0/3 nodes are available: 3 Insufficient cpu, 3 Insufficient memory. '
      + 'preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.'],
    ['cordoned and full', makePod('u', { cpu: '1' }), snapshot([
      nodeInfo(makeNode('a', { unschedulable: true })), nodeInfo(makeNode('b', { pods: '1' }), [makePod('x')]),
    ]), '0/2 nodes are available: 1 Too many pods, 1 node(s) were unschedulable. '
      + 'preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.'],
    ['host port in use', makePod('h', { hostPorts: [{ hostPort: 80 }] }), snapshot([nodeInfo(makeNode('a'), [makePod('x', { hostPorts: [{ hostPort: 80 }] })])]),
      "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports. "
      + 'preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.'],
    ['lower-priority victims that would not make room', makePod('hp', { cpu: '3', priority: 100 }), snapshot([nodeInfo(makeNode('a'), [makePod('lp', { cpu: '1' })])]),
      '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Insufficient cpu.'],
    ['lower-priority victims that would make room: no preemption message', makePod('hp', { cpu: '1', priority: 100 }),
      snapshot([nodeInfo(makeNode('a'), [makePod('lp', { cpu: '2' })])]), '0/1 nodes are available: 1 Insufficient cpu.'],
    ['no nodes', makePod('p'), snapshot([]), 'no nodes available to schedule pods'],
  ];
  for (const [name, pod, nodes, want] of cases) {
    it(name, () => {
      const r = newFramework().schedulePod(pod, nodes);
      assert.equal(r.kind, 'Unschedulable');
      if (r.kind === 'Unschedulable') assert.equal(r.message, want);
    });
  }

  it('reasons sort as strings, so "10 ..." comes before "2 ..."', () => {
    const nodeToStatus = new Map<string, any>();
    for (let i = 0; i < 10; i++) nodeToStatus.set(`m${i}`, { status: { code: 'Unschedulable', reasons: ['Insufficient memory'] }, plugin: 'NodeResourcesFit' });
    for (let i = 0; i < 2; i++) nodeToStatus.set(`c${i}`, { status: { code: 'Unschedulable', reasons: ['Insufficient cpu'] }, plugin: 'NodeResourcesFit' });
    assert.equal(fitErrorMessage(12, { nodeToStatus }), '0/12 nodes are available: 10 Insufficient memory, 2 Insufficient cpu.');
  });

  it('records the rejecting plugins for the queue', () => {
    const r = newFramework().schedulePod(makePod('big', { cpu: '3' }), cluster());
    assert.ok(r.kind === 'Unschedulable');
    assert.deepEqual([...r.unschedulablePlugins].sort(), ['NodeResourcesFit', 'TaintToleration']);
  });

  it('events truncate long messages at 1024 characters', () => {
    const long = 'x'.repeat(2000);
    assert.equal(truncateMessage(long).length, 1024);
    assert.ok(truncateMessage(long).endsWith(' ...'));
    assert.equal(truncateMessage('short'), 'short');
  });
});

describe('numFeasibleNodesToFind', () => {
  const cases: [number, number, number][] = [
    [0, 50, 50], [0, 99, 99], [0, 100, 100], [0, 1000, 420], [0, 5000, 500], [0, 6000, 300], [0, 10_000, 500],
    [30, 1000, 300], [100, 5000, 5000], [1, 1000, 100], [50, 150, 100],
  ];
  for (const [pct, n, want] of cases) it(`${pct}% of ${n} nodes -> ${want}`, () => assert.equal(numFeasibleNodesToFind(pct, n), want));
});

describe('filtering and scoring', () => {
  it('stops after enough feasible nodes and starts the next cycle where it stopped', () => {
    const infos = Array.from({ length: 5000 }, (_, i) => nodeInfo(makeNode(`n${i}`)));
    const fw = newFramework();
    const first = fw.schedulePod(makePod('a'), snapshot(infos));
    assert.ok(first.kind === 'Scheduled');
    assert.equal(first.evaluatedNodes, 500);
    assert.equal(first.feasibleNodes, 500);
    assert.equal(first.node.name, 'n0');
    const second = fw.schedulePod(makePod('b'), snapshot(infos));
    assert.ok(second.kind === 'Scheduled');
    assert.equal(second.node.name, 'n500');
  });

  it('stops at the node where enough feasible nodes were found, whatever the chunking', () => {
    // Every third node tainted: the 120th feasible node (48% of 250) is node 178.
    const infos = Array.from({ length: 250 }, (_, i) => nodeInfo(makeNode(`n${i}`, i % 3 === 2 ? { taints: [{ key: 'k', effect: 'NoSchedule' }] } : {})));
    const fw = newFramework();
    const r = fw.schedulePod(makePod('a'), snapshot(infos));
    assert.ok(r.kind === 'Scheduled');
    assert.deepEqual([r.evaluatedNodes, r.feasibleNodes], [179, 120]);
    const all = newFramework().schedulePod(makePod('big', { cpu: '3' }), snapshot(infos));
    assert.ok(all.kind === 'Unschedulable');
    assert.match(all.message, /^0\/250 nodes are available: 167 Insufficient cpu, 83 node\(s\) had untolerated taint \{k: \}\./);
  });

  it('tolerated control plane: pods land on workers only when they do not tolerate it', () => {
    const r = newFramework().schedulePod(makePod('p'), cluster());
    assert.ok(r.kind === 'Scheduled');
    assert.notEqual(r.node.name, 'control-plane');
  });

  it('PreferNoSchedule: the untainted node wins', () => {
    for (const order of [['tainted', 'clean'], ['clean', 'tainted']]) {
      const infos = order.map((n) => nodeInfo(makeNode(n, n === 'tainted' ? { taints: [{ key: 'k', effect: 'PreferNoSchedule' }] } : {})));
      const r = newFramework().schedulePod(makePod('p'), snapshot(infos));
      assert.ok(r.kind === 'Scheduled');
      assert.equal(r.node.name, 'clean');
    }
  });

  it('LeastAllocated: the emptier node wins', () => {
    const r = newFramework().schedulePod(makePod('p', { cpu: '500m' }), snapshot([
      nodeInfo(makeNode('busy'), [makePod('x', { cpu: '1', memory: '1Gi' })]), nodeInfo(makeNode('idle')),
    ]));
    assert.ok(r.kind === 'Scheduled');
    assert.equal(r.node.name, 'idle');
  });

  it('preferred node affinity wins over a little more free room', () => {
    const pod = makePod('p', { cpu: '100m', affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [
      { weight: 50, preference: { matchExpressions: [{ key: 'disktype', operator: 'In', values: ['ssd'] }] } }] } } });
    const r = newFramework().schedulePod(pod, snapshot([
      nodeInfo(makeNode('plain')), nodeInfo(makeNode('ssd', { labels: { disktype: 'ssd' } }), [makePod('x', { cpu: '500m' })]),
    ]));
    assert.ok(r.kind === 'Scheduled');
    assert.equal(r.node.name, 'ssd');
  });

  it('ties are broken at random', () => {
    const infos = [nodeInfo(makeNode('a')), nodeInfo(makeNode('b')), nodeInfo(makeNode('c'))];
    const seen = new Set<string>();
    for (const rnd of [0, 0.999]) {
      const r = new Framework(defaultProfile().plugins, { random: () => rnd }).schedulePod(makePod('p'), snapshot(infos));
      if (r.kind === 'Scheduled') seen.add(r.node.name);
    }
    assert.deepEqual([...seen].sort(), ['a', 'c']);
  });

  it('a cycle with fewer feasible nodes than the last scores only its own (the feasible list is reused)', () => {
    // 4 busy ssd nodes among 246 idle ones: LeastAllocated would pick an idle node if one of the
    // first cycle's 120 feasible nodes were still in the list the second cycle scores.
    const infos = Array.from({ length: 250 }, (_, i) => (i % 80 === 7
      ? nodeInfo(makeNode(`ssd${i}`, { labels: { disktype: 'ssd' } }), [makePod(`busy${i}`, { cpu: '1', memory: '1Gi' })])
      : nodeInfo(makeNode(`n${i}`))));
    const fw = newFramework();
    const wide = fw.schedulePod(makePod('a'), snapshot(infos));
    assert.ok(wide.kind === 'Scheduled');
    assert.equal(wide.feasibleNodes, 120);
    const narrow = fw.schedulePod(makePod('b', { nodeSelector: { disktype: 'ssd' } }), snapshot(infos));
    assert.ok(narrow.kind === 'Scheduled');
    assert.deepEqual([narrow.feasibleNodes, narrow.evaluatedNodes], [4, 250]);
    assert.match(narrow.node.name, /^ssd/);
    const wideAgain = fw.schedulePod(makePod('c'), snapshot(infos));
    assert.ok(wideAgain.kind === 'Scheduled');
    assert.equal(wideAgain.feasibleNodes, 120);
  });

  it('a single feasible node is chosen without scoring', () => {
    const r = newFramework().schedulePod(makePod('p', { affinity: pin('worker2') }), cluster());
    assert.ok(r.kind === 'Scheduled');
    assert.equal(r.node.name, 'worker2');
    assert.equal(r.evaluatedNodes, 1);
  });
});

// The controller manager can run the scheduler as one of its controllers.
export const schedulerFactory: (ctx: ControllerContext) => Controller = (ctx) => new Scheduler(ctx);

describe('SchedulerCache', () => {
  it('assumed pods count at once, are confirmed by the informer, forgotten on failure', () => {
    const cache = new SchedulerCache();
    cache.addNode(makeNode('n'));
    const pod = makePod('p', { cpu: '1500m' });
    cache.assumePod(pod, 'n');
    assert.equal(cache.isAssumed('default/p'), true);
    assert.equal(cache.get('n')!.requested.milliCPU, 1500);
    const r = newFramework().schedulePod(makePod('q', { cpu: '1', tolerations: [{ operator: 'Exists' }] }), cache);
    assert.equal(r.kind, 'Unschedulable');
    cache.forgetPod('default/p');
    assert.equal(cache.get('n')!.requested.milliCPU, 0);
    cache.assumePod(pod, 'n');
    cache.addPod({ ...pod, spec: { ...pod.spec, nodeName: 'n' } });
    assert.equal(cache.isAssumed('default/p'), false);
    assert.equal(cache.get('n')!.requested.milliCPU, 1500);
    cache.forgetPod('default/p');
    assert.equal(cache.get('n')!.requested.milliCPU, 1500, 'a confirmed pod is not forgotten');
    cache.removePod({ ...pod, spec: { ...pod.spec, nodeName: 'n' } });
    assert.equal(cache.get('n')!.pods.size, 0);
  });

  it('a confirmed binding swaps the bound pod in; other updates recount', () => {
    const cache = new SchedulerCache();
    cache.addNode(makeNode('n'));
    cache.addNode(makeNode('m'));
    const pod = makePod('p', { cpu: '500m', hostPorts: [{ hostPort: 8080 }] });
    cache.assumePod(pod, 'n');
    const generation = cache.get('n')!.generation;
    // The informer's bound pod: new labels and a required anti-affinity term, same requests.
    const affinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { a: 'b' } } }] } };
    const bound = { ...pod, metadata: { ...pod.metadata, labels: { a: 'b' } }, spec: { ...pod.spec, nodeName: 'n', affinity } };
    cache.addPod(bound);
    const n = cache.get('n')!;
    // The node holds the bound pod's cached form (cached-pod.ts), not the informer's object: its labels and terms.
    const held = n.pods.get('default/p');
    assert.notEqual(held, bound);
    assert.deepEqual([held.metadata.labels, held.spec.affinity, held.spec.nodeName], [bound.metadata.labels, affinity, 'n']);
    assert.equal(n.podsWithRequiredAntiAffinity.get('default/p'), held);
    assert.deepEqual(cache.havePodsWithRequiredAntiAffinity().map((i) => i.name), ['n']);
    assert.deepEqual([n.requested.milliCPU, n.pods.size, n.usedPorts.checkConflict('', 'TCP', 8080)], [500, 1, true]);
    assert.ok(n.generation > generation);
    // A later update asking for more (a resize) is counted again; one on another node moves it.
    cache.updatePod(bound, { ...bound, spec: { ...bound.spec, containers: [{ name: 'c', image: 'pause', resources: { requests: { cpu: '700m' } } }] } });
    assert.equal(n.requested.milliCPU, 700);
    cache.updatePod(bound, { ...bound, spec: { ...bound.spec, nodeName: 'm' } });
    assert.deepEqual([n.requested.milliCPU, n.pods.size, cache.get('m')!.requested.milliCPU], [0, 0, 500]);
    assert.deepEqual(cache.havePodsWithRequiredAntiAffinity().map((i) => i.name), ['m']);
  });

  it('pods on nodes not yet seen wait in a node-less NodeInfo', () => {
    const cache = new SchedulerCache();
    cache.addPod(makePod('p', { nodeName: 'later', cpu: '1' }));
    assert.equal(cache.list.length, 0);
    cache.addNode(makeNode('later'));
    assert.equal(cache.list.length, 1);
    assert.equal(cache.get('later')!.requested.milliCPU, 1000);
    cache.removeNode(makeNode('later'));
    assert.equal(cache.list.length, 0);
    assert.ok(cache.get('later'), 'kept while pods reference it');
  });
});
