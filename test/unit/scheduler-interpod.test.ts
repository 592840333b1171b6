/**
 * InterPodAffinity and PodTopologySpread in the default profile: where a pod
 * goes given the pods already running, and upstream's FailedScheduling words
 * when it cannot go anywhere.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Framework } from '../../src/scheduler/runtime.js';
import { defaultProfile, type ProfileListers } from '../../src/scheduler/profile.js';
import { firstOfTies, makeNode, makePod, nodeInfo, snapshot } from '../../src/scheduler/testing/wrappers.js';
import { selectorFromSet } from '../../src/api/labels.js';

const schedule = (pod: any, snap: ReturnType<typeof snapshot>, listers: ProfileListers = {}) =>
  new Framework(defaultProfile(undefined, listers).plugins, { random: firstOfTies }).schedulePod(pod, snap);

const nodeOf = (r: ReturnType<typeof schedule>) => (r.kind === 'Scheduled' ? r.node.name : `${r.kind}: ${r.message}`);

const web = (name: string, extra: any = {}) => makePod(name, { labels: { app: 'web' }, ...extra });
const db = (name: string, ns = 'default') => makePod(name, { labels: { app: 'db' }, namespace: ns });

const antiWeb = (topologyKey = 'kubernetes.io/hostname') => ({
  podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey }] },
});
const withDb = (term: any = {}) => ({
  podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'kubernetes.io/hostname', ...term }] },
});

const three = (pods: Record<string, any[]> = {}, labels: Record<string, Record<string, string>> = {}) => snapshot(
  ['n1', 'n2', 'n3'].map((n) => nodeInfo(makeNode(n, { labels: labels[n] }), pods[n])),
);

describe('InterPodAffinity: required anti-affinity', () => {
  it('one replica per node: the nodes already running one are refused', () => {
    const r = schedule(web('w3', { affinity: antiWeb() }), three({ n1: [web('w1')], n2: [web('w2')] }));
    assert.equal(nodeOf(r), 'n3');
  });

  it('no node left: upstream message, and preemption cannot help pods of equal priority', () => {
    const r = schedule(web('w4', { affinity: antiWeb() }), three({ n1: [web('w1')], n2: [web('w2')], n3: [web('w3')] }));
    assert.equal(r.kind, 'Unschedulable');
    assert.equal(r.kind === 'Unschedulable' && r.message,
      "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.");
  });

  it('by zone: a whole zone is refused once one matching pod runs in it', () => {
    const zones = { n1: { 'topology.kubernetes.io/zone': 'a' }, n2: { 'topology.kubernetes.io/zone': 'a' }, n3: { 'topology.kubernetes.io/zone': 'b' } };
    const r = schedule(web('w2', { affinity: antiWeb('topology.kubernetes.io/zone') }), three({ n2: [web('w1')] }, zones));
    assert.equal(nodeOf(r), 'n3');
  });

  it("an existing pod's anti-affinity keeps matching pods off its node (symmetry)", () => {
    const guard = makePod('guard', { labels: { app: 'guard' }, affinity: antiWeb() });
    const r = schedule(web('w1'), snapshot([nodeInfo(makeNode('n1'), [guard]), nodeInfo(makeNode('n2', { cpu: '1' }))]));
    assert.equal(nodeOf(r), 'n2');
    const refused = schedule(web('w1'), snapshot([nodeInfo(makeNode('n1'), [guard])]));
    assert.equal(refused.kind === 'Unschedulable' && refused.message.split('. preemption')[0],
      "0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules");
  });

  it('terms see only their namespaces: a web pod in another namespace does not count', () => {
    const r = schedule(web('w2', { affinity: antiWeb() }), snapshot([nodeInfo(makeNode('n1'), [web('w1', { namespace: 'other' })])]));
    assert.equal(nodeOf(r), 'n1');
  });
});

describe('InterPodAffinity: required affinity', () => {
  it('goes where a matching pod runs', () => {
    assert.equal(nodeOf(schedule(web('w', { affinity: withDb() }), three({ n2: [db('db')] }))), 'n2');
  });

  it('nothing matching anywhere: unresolvable, upstream message, no preemption', () => {
    const r = schedule(web('w', { affinity: withDb() }), three());
    assert.equal(r.kind === 'Unschedulable' && r.message,
      "0/3 nodes are available: 3 node(s) didn't match pod affinity rules. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.");
  });

  it('the first pod of a group attracted to itself may go anywhere', () => {
    const self = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' }] } };
    assert.equal(nodeOf(schedule(web('w1', { affinity: self }), three())), 'n1');
    assert.equal(nodeOf(schedule(web('w2', { affinity: self }), three({ n3: [web('w1')] }))), 'n3');
  });

  it('namespaceSelector: namespaces chosen by their labels, {} meaning all', () => {
    const labels = (ns: string): Record<string, string> => (ns === 'prod' ? { env: 'prod' } : {});
    const snap = three({ n1: [db('a', 'dev')], n3: [db('b', 'prod')] });
    assert.equal(nodeOf(schedule(web('w', { affinity: withDb({ namespaceSelector: { matchLabels: { env: 'prod' } } }) }), snap, { namespaceLabels: labels })), 'n3');
    assert.equal(nodeOf(schedule(web('w', { affinity: withDb({ namespaceSelector: {} }) }), snap, { namespaceLabels: labels })), 'n1');
    assert.equal(nodeOf(schedule(web('w', { affinity: withDb({ namespaces: ['dev'] }) }), snap)), 'n1');
  });

  it('a node without the topology label never satisfies a term', () => {
    const snap = snapshot([nodeInfo(makeNode('n1'), [db('db')]), nodeInfo(makeNode('n2', { labels: { rack: 'r1' } }))]);
    const r = schedule(web('w', { affinity: withDb({ topologyKey: 'rack' }) }), snap);
    assert.equal(r.kind, 'Unschedulable');
  });
});

describe('InterPodAffinity: preferences', () => {
  it('preferred anti-affinity spreads, preferred affinity packs', () => {
    const term = { weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' } };
    const snap = () => three({ n1: [web('w1')], n2: [web('w2')] });
    assert.equal(nodeOf(schedule(web('x', { affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [term] } } }), snap())), 'n3');
    const packed = nodeOf(schedule(web('x', { affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [term] } } }), snap()));
    assert.ok(packed === 'n1' || packed === 'n2', packed);
  });

  it("an existing pod's required affinity draws matching pods (hardPodAffinityWeight)", () => {
    const follower = makePod('f', { labels: { app: 'f' }, affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' }] } } });
    assert.equal(nodeOf(schedule(web('w'), three({ n3: [follower] }))), 'n3');
  });
});

describe('PodTopologySpread', () => {
  const spread = (maxSkew: number, topologyKey = 'kubernetes.io/hostname', extra: any = {}) => [{ maxSkew, topologyKey, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } }, ...extra }];
  const withSpread = (name: string, constraints: any[]) => {
    const p = web(name);
    p.spec.topologySpreadConstraints = constraints;
    return p;
  };

  it('maxSkew 1: only the emptiest nodes are allowed', () => {
    const r = schedule(withSpread('w', spread(1)), three({ n1: [web('a'), web('b')], n2: [web('c')] }));
    assert.equal(nodeOf(r), 'n3');
  });

  it('the skew past maxSkew everywhere but one domain; nodes without the key are unresolvable', () => {
    const zones = { n1: { zone: 'a' }, n2: { zone: 'b' } };
    const r = schedule(withSpread('w', spread(1, 'zone')), three({ n1: [web('a')], n2: [web('b'), web('c')] }, zones));
    assert.equal(nodeOf(r), 'n1');
    const taint = { key: 'dedicated', value: 'x', effect: 'NoSchedule' };
    const none = schedule(withSpread('w', spread(1, 'zone')), snapshot([
      nodeInfo(makeNode('n1', { labels: { zone: 'a' } }), [web('a'), web('b')]),
      nodeInfo(makeNode('n2', { labels: { zone: 'b' }, taints: [taint] })),
      nodeInfo(makeNode('n3')),
    ]));
    assert.equal(none.kind === 'Unschedulable' && none.message.split('. preemption')[0],
      "0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints, 1 node(s) didn't match pod topology spread constraints (missing required label), 1 node(s) had untolerated taint {dedicated: x}");
  });

  it('minDomains: fewer domains than asked counts the global minimum as 0', () => {
    const zones = { n1: { zone: 'a' }, n2: { zone: 'b' } };
    const pods = { n1: [web('a')], n2: [web('b')] };
    assert.equal(nodeOf(schedule(withSpread('w', spread(1, 'zone')), three(pods, zones))), 'n1');
    const r = schedule(withSpread('w', spread(1, 'zone', { minDomains: 3 })), three(pods, zones));
    assert.equal(r.kind, 'Unschedulable');
  });

  it('ScheduleAnyway prefers the emptier domain without refusing any', () => {
    const r = schedule(withSpread('w', [{ ...spread(1)[0], whenUnsatisfiable: 'ScheduleAnyway' }]), three({ n1: [web('a'), web('b')], n3: [web('c')] }));
    assert.equal(nodeOf(r), 'n2');
  });

  it('matchLabelKeys narrows the selector to pods sharing the label values (rollout revisions)', () => {
    const rev = (name: string, h: string) => makePod(name, { labels: { app: 'web', hash: h } });
    const p = rev('w', 'new');
    p.spec.topologySpreadConstraints = spread(1, 'kubernetes.io/hostname', { matchLabelKeys: ['hash'] });
    // Old-revision pods on n1 and n2 do not count; the one new pod on n3 does.
    assert.notEqual(nodeOf(schedule(p, three({ n1: [rev('a', 'old')], n2: [rev('b', 'old')], n3: [rev('c', 'new')] }))), 'n3');
  });

  it('system defaults spread the pods of one workload (DefaultSelector), and do nothing without one', () => {
    // Resources alone favour n1 (the others carry a 1-cpu pod); spreading the web pods moves the next one away from it.
    const ballast = (name: string) => makePod(name, { cpu: '1', memory: '1Gi' });
    const pods = () => ({ n1: [web('a'), web('b')], n2: [ballast('x2')], n3: [ballast('x3')] });
    const listers = { defaultSelector: () => selectorFromSet({ app: 'web' }) };
    assert.equal(nodeOf(schedule(web('x'), three(pods()))), 'n1');
    assert.equal(nodeOf(schedule(web('x'), three(pods()), listers)), 'n2');
    // Without a workload selector the pod is placed by resources alone: first of the equally scored nodes.
    assert.equal(nodeOf(schedule(makePod('y'), three({}))), 'n1');
  });

  it('counts follow the nodes from one pod to the next: each placement, relabel and deletion is seen (the per-node count cache)', () => {
    // One snapshot for a whole Deployment's pods, as the scheduler's cache is: every placement changes one node.
    // Resources alone would put every pod on n1 (n2 and n3 carry a 1-cpu pod): only the counts move them.
    const ballast = (name: string) => makePod(name, { cpu: '1', memory: '1Gi' });
    const infos = [nodeInfo(makeNode('n1')), nodeInfo(makeNode('n2'), [ballast('b2')]), nodeInfo(makeNode('n3'), [ballast('b3')])];
    const snap = snapshot(infos);
    const placed: string[] = [];
    for (let i = 0; i < 6; i++) {
      const p = withSpread(`w${i}`, spread(1));
      const node = nodeOf(schedule(p, snap));
      placed.push(node);
      snap.get(node)!.addPod(`default/w${i}`, { ...p, spec: { ...p.spec, nodeName: node } });
    }
    // maxSkew 1 over three nodes: two rounds, each node once per round.
    assert.deepEqual([...placed.slice(0, 3)].sort(), ['n1', 'n2', 'n3']);
    assert.deepEqual([...placed.slice(3)].sort(), ['n1', 'n2', 'n3']);
    // A pod relabelled away from the selector no longer counts; a deleted one neither.
    const n1 = snap.get('n1')!;
    const first = [...n1.pods.entries()][0]!;
    n1.addPod(first[0], { ...first[1], metadata: { ...first[1].metadata, labels: { app: 'other' } } });
    assert.equal(nodeOf(schedule(withSpread('x', spread(1)), snap)), 'n1');
    const n2 = snap.get('n2')!;
    for (const k of [...n2.pods.keys()]) n2.removePod(k);
    assert.equal(nodeOf(schedule(withSpread('y', spread(1)), snap)), 'n2');
  });
});
