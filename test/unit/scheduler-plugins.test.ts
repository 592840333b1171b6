/**
 * Every scheduler plugin, table-driven: filter verdicts with upstream's
 * reasons and codes, scores, normalization and queueing hints.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CycleState, defaultNormalizeScore, type NodeScore, type Status } from '../../src/scheduler/framework.js';
import { NodeUnschedulable } from '../../src/scheduler/plugins/nodeunschedulable.js';
import { NodeName } from '../../src/scheduler/plugins/nodename.js';
import { TaintToleration } from '../../src/scheduler/plugins/tainttoleration.js';
import { NodeAffinity, nodeNamesFromAffinity } from '../../src/scheduler/plugins/nodeaffinity.js';
import { NodePorts } from '../../src/scheduler/plugins/nodeports.js';
import { NodeResourcesFit, leastAllocatedScore } from '../../src/scheduler/plugins/noderesourcesfit.js';
import { BalancedAllocation, balancedResourceScore } from '../../src/scheduler/plugins/balancedallocation.js';
import { HostPortInfo } from '../../src/scheduler/nodeinfo.js';
import { controlPlaneTaint, makeNode, makePod, nodeInfo } from '../../src/scheduler/testing/wrappers.js';

const ok: Status = { code: 'Success' };
const unresolvable = (...reasons: string[]): Status => ({ code: 'UnschedulableAndUnresolvable', reasons });
const unschedulable = (...reasons: string[]): Status => ({ code: 'Unschedulable', reasons });

describe('NodeUnschedulable filter', () => {
  const p = new NodeUnschedulable();
  const cases: [string, any, any, Status][] = [
    ['schedulable node', makeNode('n'), makePod('p'), ok],
    ['cordoned node', makeNode('n', { unschedulable: true }), makePod('p'), unresolvable('node(s) were unschedulable')],
    ['cordoned node, pod tolerates the unschedulable taint', makeNode('n', { unschedulable: true }),
      makePod('p', { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] }), ok],
    ['cordoned node, pod tolerates everything', makeNode('n', { unschedulable: true }), makePod('p', { tolerations: [{ operator: 'Exists' }] }), ok],
    ['cordoned node, a NoExecute toleration does not cover it', makeNode('n', { unschedulable: true }),
      makePod('p', { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoExecute' }] }),
      unresolvable('node(s) were unschedulable')],
  ];
  for (const [name, node, pod, want] of cases) it(name, () => assert.deepEqual(p.filter(new CycleState(), pod, nodeInfo(node)), want));

  it('hints: uncordon and schedulable additions retry, cordoning does not', () => {
    const pod = makePod('p');
    assert.equal(p.queueingHint({ type: 'NodeUpdate', oldNode: makeNode('n', { unschedulable: true }), newNode: makeNode('n') }, pod), 'Queue');
    assert.equal(p.queueingHint({ type: 'NodeUpdate', oldNode: makeNode('n'), newNode: makeNode('n', { unschedulable: true }) }, pod), 'QueueSkip');
    assert.equal(p.queueingHint({ type: 'NodeAdd', node: makeNode('n') }, pod), 'Queue');
    assert.equal(p.queueingHint({ type: 'NodeAdd', node: makeNode('n', { unschedulable: true }) }, pod), 'QueueSkip');
  });
});

describe('NodeName filter', () => {
  const p = new NodeName();
  const cases: [string, string | undefined, Status][] = [
    ['no nodeName', undefined, ok],
    ['the same node', 'n1', ok],
    ['another node', 'n2', unresolvable("node(s) didn't match the requested node name")],
  ];
  for (const [name, nodeName, want] of cases) {
    it(name, () => assert.deepEqual(p.filter(new CycleState(), makePod('p', { nodeName }), nodeInfo(makeNode('n1'))), want));
  }
});

describe('TaintToleration filter', () => {
  const p = new TaintToleration();
  const cases: [string, any[], any[] | undefined, Status][] = [
    ['no taints', [], undefined, ok],
    ['control-plane taint, no toleration', [controlPlaneTaint], undefined,
      unresolvable('node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }')],
    ['control-plane taint tolerated', [controlPlaneTaint], [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }], ok],
    ['valued taint shows its value', [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }], undefined,
      unresolvable('node(s) had untolerated taint {dedicated: gpu}')],
    ['NoExecute counts', [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }], undefined,
      unresolvable('node(s) had untolerated taint {node.kubernetes.io/not-ready: }')],
    ['PreferNoSchedule does not filter', [{ key: 'k', effect: 'PreferNoSchedule' }], undefined, ok],
    ['the first untolerated taint is reported', [{ key: 'a', effect: 'NoSchedule' }, { key: 'b', value: 'x', effect: 'NoSchedule' }],
      [{ key: 'a', operator: 'Exists' }], unresolvable('node(s) had untolerated taint {b: x}')],
    ['empty key with Exists tolerates all', [{ key: 'a', effect: 'NoSchedule' }, { key: 'b', effect: 'NoExecute' }], [{ operator: 'Exists' }], ok],
    ['Equal toleration with a different value', [{ key: 'k', value: 'v', effect: 'NoSchedule' }], [{ key: 'k', operator: 'Equal', value: 'w' }],
      unresolvable('node(s) had untolerated taint {k: v}')],
    ['toleration for another effect', [{ key: 'k', effect: 'NoSchedule' }], [{ key: 'k', operator: 'Exists', effect: 'NoExecute' }],
      unresolvable('node(s) had untolerated taint {k: }')],
  ];
  for (const [name, taints, tolerations, want] of cases) {
    it(name, () => assert.deepEqual(p.filter(new CycleState(), makePod('p', { tolerations }), nodeInfo(makeNode('n', { taints }))), want));
  }
});

describe('TaintToleration score', () => {
  const p = new TaintToleration();
  const score = (taints: any[], tolerations?: any[]) => {
    const state = new CycleState();
    const pod = makePod('p', { tolerations });
    p.preScore(state, pod);
    return p.score(state, pod, nodeInfo(makeNode('n', { taints })));
  };
  const prefer = (key: string, value?: string) => ({ key, value, effect: 'PreferNoSchedule' });
  const cases: [string, any[], any[] | undefined, number][] = [
    ['no taints', [], undefined, 0],
    ['one intolerable PreferNoSchedule taint', [prefer('a')], undefined, 1],
    ['two, one tolerated', [prefer('a'), prefer('b')], [{ key: 'a', operator: 'Exists', effect: 'PreferNoSchedule' }], 1],
    ['a toleration without effect counts', [prefer('a')], [{ key: 'a', operator: 'Exists' }], 0],
    ['a NoSchedule toleration does not', [prefer('a')], [{ key: 'a', operator: 'Exists', effect: 'NoSchedule' }], 1],
    ['NoSchedule taints are not counted', [{ key: 'a', effect: 'NoSchedule' }], undefined, 0],
  ];
  for (const [name, taints, tolerations, want] of cases) it(name, () => assert.equal(score(taints, tolerations), want));

  it('normalizes in reverse: fewer intolerable taints score higher', () => {
    const scores: NodeScore[] = [{ name: 'a', score: 0 }, { name: 'b', score: 1 }, { name: 'c', score: 2 }];
    p.normalizeScore(new CycleState(), makePod('p'), scores);
    assert.deepEqual(scores.map((s) => s.score), [100, 50, 0]);
  });

  it('hints: a removed taint retries, an added one does not', () => {
    const pod = makePod('p');
    const tainted = makeNode('n', { taints: [controlPlaneTaint] });
    assert.equal(p.queueingHint({ type: 'NodeUpdate', oldNode: tainted, newNode: makeNode('n') }, pod), 'Queue');
    assert.equal(p.queueingHint({ type: 'NodeUpdate', oldNode: makeNode('n'), newNode: tainted }, pod), 'QueueSkip');
    assert.equal(p.queueingHint({ type: 'NodeAdd', node: tainted }, pod), 'QueueSkip');
    assert.equal(p.queueingHint({ type: 'NodeAdd', node: makeNode('m') }, pod), 'Queue');
    const tolerating = makePod('p', { tolerations: [{ operator: 'Exists' }] });
    assert.equal(p.queueingHint({ type: 'UnscheduledPodUpdate', oldPod: pod, newPod: tolerating }, tolerating), 'Queue');
  });
});

describe('defaultNormalizeScore', () => {
  const cases: [string, number[], boolean, number[]][] = [
    ['scales to the maximum', [1, 2, 4], false, [25, 50, 100]],
    ['integer division', [1, 3], false, [33, 100]],
    ['reversed', [1, 2, 4], true, [75, 50, 0]],
    ['all zero stays zero', [0, 0], false, [0, 0]],
    ['all zero reversed is the maximum', [0, 0], true, [100, 100]],
  ];
  for (const [name, input, reverse, want] of cases) {
    it(name, () => {
      const scores = input.map((score, i) => ({ name: `n${i}`, score }));
      defaultNormalizeScore(100, reverse, scores);
      assert.deepEqual(scores.map((s) => s.score), want);
    });
  }
});

describe('NodeAffinity', () => {
  const p = new NodeAffinity();
  const term = (...matchExpressions: any[]) => ({ matchExpressions });
  const required = (...nodeSelectorTerms: any[]) => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms } } });
  const reject = unresolvable("node(s) didn't match Pod's node affinity/selector");
  const node = makeNode('n1', { labels: { disktype: 'ssd', zone: 'a', gen: '5' } });
  const cases: [string, any, Status][] = [
    ['nothing asked', makePod('p'), ok],
    ['nodeSelector matches', makePod('p', { nodeSelector: { disktype: 'ssd' } }), ok],
    ['nodeSelector does not match', makePod('p', { nodeSelector: { disktype: 'hdd' } }), reject],
    ['nodeSelector on a missing label', makePod('p', { nodeSelector: { gpu: 'true' } }), reject],
    ['In matches', makePod('p', { affinity: required(term({ key: 'zone', operator: 'In', values: ['a', 'b'] })) }), ok],
    ['NotIn rejects', makePod('p', { affinity: required(term({ key: 'zone', operator: 'NotIn', values: ['a'] })) }), reject],
    ['Exists', makePod('p', { affinity: required(term({ key: 'disktype', operator: 'Exists' })) }), ok],
    ['DoesNotExist', makePod('p', { affinity: required(term({ key: 'disktype', operator: 'DoesNotExist' })) }), reject],
    ['Gt', makePod('p', { affinity: required(term({ key: 'gen', operator: 'Gt', values: ['4'] })) }), ok],
    ['Lt', makePod('p', { affinity: required(term({ key: 'gen', operator: 'Lt', values: ['4'] })) }), reject],
    ['terms are ORed', makePod('p', { affinity: required(term({ key: 'zone', operator: 'In', values: ['x'] }), term({ key: 'zone', operator: 'In', values: ['a'] })) }), ok],
    ['expressions in a term are ANDed', makePod('p', { affinity: required(term({ key: 'zone', operator: 'In', values: ['a'] }, { key: 'disktype', operator: 'In', values: ['hdd'] })) }), reject],
    ['matchFields metadata.name', makePod('p', { affinity: required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }) }), ok],
    ['matchFields another name', makePod('p', { affinity: required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }) }), reject],
    ['an empty term matches nothing', makePod('p', { affinity: required({}) }), reject],
    ['nodeSelector and affinity both apply', makePod('p', { nodeSelector: { disktype: 'hdd' }, affinity: required(term({ key: 'zone', operator: 'In', values: ['a'] })) }), reject],
  ];
  for (const [name, pod, want] of cases) it(`filter: ${name}`, () => assert.deepEqual(p.filter(new CycleState(), pod, nodeInfo(node)), want));

  const preFilterCases: [string, any, string, string[] | undefined][] = [
    ['nothing asked: Skip', makePod('p'), 'Skip', undefined],
    ['a nodeSelector: all nodes', makePod('p', { nodeSelector: { a: 'b' } }), 'Success', undefined],
    ['DaemonSet pin: one node', makePod('p', { affinity: required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }) }), 'Success', ['n1']],
    ['union over terms', makePod('p', { affinity: required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a'] }] }, { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['b'] }] }) }), 'Success', ['a', 'b']],
    ['a term without names allows all', makePod('p', { affinity: required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a'] }] }, term({ key: 'x', operator: 'Exists' })) }), 'Success', undefined],
    ['intersection within a term, empty: conflict', makePod('p', { affinity: required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a'] }, { key: 'metadata.name', operator: 'In', values: ['b'] }] }) }), 'UnschedulableAndUnresolvable', undefined],
  ];
  for (const [name, pod, code, names] of preFilterCases) {
    it(`preFilter: ${name}`, () => {
      const r = p.preFilter(new CycleState(), pod);
      assert.equal(r.status.code, code);
      assert.deepEqual(r.result?.nodeNames ? [...r.result.nodeNames].sort() : undefined, names);
      if (code === 'UnschedulableAndUnresolvable') assert.deepEqual(r.status, unresolvable('pod affinity terms conflict'));
    });
  }

  it('nodeNamesFromAffinity ignores NotIn', () => {
    assert.equal(nodeNamesFromAffinity([{ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['a'] }] }]), undefined);
  });

  it('score: the summed weights of matching preferred terms, normalized', () => {
    const pod = makePod('p', { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [
      { weight: 10, preference: term({ key: 'zone', operator: 'In', values: ['a'] }) },
      { weight: 5, preference: term({ key: 'disktype', operator: 'In', values: ['ssd'] }) },
    ] } } });
    const state = new CycleState();
    assert.equal(p.preScore(state, pod).code, 'Success');
    const nodes = [node, makeNode('n2', { labels: { zone: 'a' } }), makeNode('n3')];
    const scores = nodes.map((n) => ({ name: n.metadata.name, score: p.score(state, pod, nodeInfo(n)) }));
    assert.deepEqual(scores.map((s) => s.score), [15, 10, 0]);
    p.normalizeScore(state, pod, scores);
    assert.deepEqual(scores.map((s) => s.score), [100, 66, 0]);
    assert.equal(p.preScore(new CycleState(), makePod('q')).code, 'Skip');
  });

  it('hints: a node that starts matching retries', () => {
    const pod = makePod('p', { nodeSelector: { disktype: 'ssd' } });
    assert.equal(p.queueingHint({ type: 'NodeUpdate', oldNode: makeNode('m'), newNode: node }, pod), 'Queue');
    assert.equal(p.queueingHint({ type: 'NodeUpdate', oldNode: node, newNode: node }, pod), 'QueueSkip');
    assert.equal(p.queueingHint({ type: 'NodeAdd', node: makeNode('m') }, pod), 'QueueSkip');
  });
});

describe('NodePorts', () => {
  const p = new NodePorts();
  const reject = unschedulable("node(s) didn't have free ports for the requested pod ports");
  const existing = makePod('e', { hostPorts: [{ hostPort: 8080 }, { hostPort: 53, protocol: 'UDP', hostIP: '10.0.0.1' }] });
  const cases: [string, { hostPort: number; protocol?: string; hostIP?: string }[], Status][] = [
    ['a free port', [{ hostPort: 9090 }], ok],
    ['the same TCP port', [{ hostPort: 8080 }], reject],
    ['the same port, UDP', [{ hostPort: 8080, protocol: 'UDP' }], ok],
    ['the same port on a specific IP clashes with 0.0.0.0', [{ hostPort: 8080, hostIP: '10.0.0.2' }], reject],
    ['0.0.0.0 clashes with a specific IP', [{ hostPort: 53, protocol: 'UDP' }], reject],
    ['another IP, same port', [{ hostPort: 53, protocol: 'UDP', hostIP: '10.0.0.2' }], ok],
    ['the same IP and port', [{ hostPort: 53, protocol: 'UDP', hostIP: '10.0.0.1' }], reject],
  ];
  for (const [name, ports, want] of cases) {
    it(name, () => {
      const state = new CycleState();
      const pod = makePod('p', { hostPorts: ports });
      assert.equal(p.preFilter(state, pod).status.code, 'Success');
      assert.deepEqual(p.filter(state, pod, nodeInfo(makeNode('n'), [existing])), want);
    });
  }
  it('a pod without host ports skips the filter', () => assert.equal(p.preFilter(new CycleState(), makePod('p')).status.code, 'Skip'));
  it('hints: deleting the pod holding the port retries', () => {
    const pod = makePod('p', { hostPorts: [{ hostPort: 8080 }] });
    assert.equal(p.queueingHint({ type: 'AssignedPodDelete', pod: existing }, pod), 'Queue');
    assert.equal(p.queueingHint({ type: 'AssignedPodDelete', pod: makePod('x', { hostPorts: [{ hostPort: 1 }] }) }, pod), 'QueueSkip');
  });
  it('HostPortInfo counts repeated use', () => {
    const h = new HostPortInfo();
    h.add('', 'TCP', 80);
    h.add('0.0.0.0', '', 80);
    h.remove('', '', 80);
    assert.equal(h.checkConflict('1.2.3.4', 'TCP', 80), true);
    h.remove('', '', 80);
    assert.equal(h.checkConflict('1.2.3.4', 'TCP', 80), false);
  });
});

describe('NodeResourcesFit filter', () => {
  const p = new NodeResourcesFit();
  const filter = (pod: any, node: any, pods: any[] = []) => {
    const state = new CycleState();
    p.preFilter(state, pod);
    return p.filter(state, pod, nodeInfo(node, pods));
  };
  const cases: [string, any, any, any[], Status][] = [
    ['fits', makePod('p', { cpu: '1', memory: '1Gi' }), makeNode('n'), [], ok],
    ['exactly fits', makePod('p', { cpu: '2', memory: '4Gi' }), makeNode('n'), [], ok],
    ['too much cpu', makePod('p', { cpu: '3' }), makeNode('n'), [], unschedulable('Insufficient cpu')],
    ['cpu taken by pods on the node', makePod('p', { cpu: '1' }), makeNode('n'), [makePod('a', { cpu: '1500m' })], unschedulable('Insufficient cpu')],
    ['cpu and memory both short: two reasons', makePod('p', { cpu: '3', memory: '5Gi' }), makeNode('n'), [], unschedulable('Insufficient cpu', 'Insufficient memory')],
    ['too many pods', makePod('p'), makeNode('n', { pods: '1' }), [makePod('a')], unschedulable('Too many pods')],
    ['too many pods comes first', makePod('p', { cpu: '3' }), makeNode('n', { pods: '1' }), [makePod('a')], unschedulable('Too many pods', 'Insufficient cpu')],
    ['a pod asking nothing fits a full node', makePod('p'), makeNode('n'), [makePod('a', { cpu: '2', memory: '4Gi' })], ok],
    ['extended resource missing', makePod('p', { requests: { 'example.com/gpu': '1' } }), makeNode('n'), [], unschedulable('Insufficient example.com/gpu')],
    ['extended resource present', makePod('p', { requests: { 'example.com/gpu': '1' } }), makeNode('n', { extra: { 'example.com/gpu': '2' } }), [], ok],
    ['ephemeral storage', makePod('p', { requests: { 'ephemeral-storage': '1Gi' } }), makeNode('n'), [], unschedulable('Insufficient ephemeral-storage')],
    ['pods without requests do not use cpu', makePod('p', { cpu: '2' }), makeNode('n'), [makePod('a'), makePod('b')], ok],
  ];
  for (const [name, pod, node, pods, want] of cases) it(name, () => assert.deepEqual(filter(pod, node, pods), want));

  it('hints', () => {
    const big = makePod('p', { cpu: '3' });
    assert.equal(p.queueingHint({ type: 'AssignedPodDelete', pod: makePod('a') }, big), 'Queue');
    assert.equal(p.queueingHint({ type: 'NodeAdd', node: makeNode('n') }, big), 'QueueSkip');
    assert.equal(p.queueingHint({ type: 'NodeAdd', node: makeNode('n', { cpu: '4' }) }, big), 'Queue');
    assert.equal(p.queueingHint({ type: 'NodeUpdate', oldNode: makeNode('n'), newNode: makeNode('n', { cpu: '4' }) }, big), 'Queue');
    assert.equal(p.queueingHint({ type: 'NodeUpdate', oldNode: makeNode('n', { cpu: '4' }), newNode: makeNode('n', { cpu: '4' }) }, big), 'QueueSkip');
  });
});

describe('NodeResourcesFit score (LeastAllocated)', () => {
  const p = new NodeResourcesFit();
  const score = (pod: any, node: any, pods: any[] = []) => {
    const state = new CycleState();
    p.preScore(state, pod);
    return p.score(state, pod, nodeInfo(node, pods));
  };
  const cases: [string, any, any, any[], number][] = [
    // cpu (2000-1000)*100/2000 = 50, memory (4Gi-1Gi)*100/4Gi = 75 -> (50+75)/2 = 62
    ['half cpu, quarter memory', makePod('p', { cpu: '1', memory: '1Gi' }), makeNode('n'), [], 62],
    // non-zero defaults: 100m and 200Mi -> cpu 95, memory (4096-200)*100/4096 = 95 -> 95
    ['a pod without requests counts 100m/200Mi', makePod('p'), makeNode('n'), [], 95],
    ['existing pods count', makePod('p', { cpu: '1', memory: '1Gi' }), makeNode('n'), [makePod('a', { cpu: '1', memory: '1Gi' })], 25],
    ['over capacity scores 0 for that resource', makePod('p', { cpu: '3', memory: '2Gi' }), makeNode('n'), [], 25],
  ];
  for (const [name, pod, node, pods, want] of cases) it(name, () => assert.equal(score(pod, node, pods), want));
  it('resources with no allocatable are left out', () => assert.equal(leastAllocatedScore([500, 0], [1000, 0]), 50));
});

describe('NodeResourcesBalancedAllocation score', () => {
  const p = new BalancedAllocation();
  const cases: [string, any, any, any[], number][] = [
    // cpu 1/2 = 0.5, memory 2Gi/4Gi = 0.5 -> std 0 -> 100
    ['balanced', makePod('p', { cpu: '1', memory: '2Gi' }), makeNode('n'), [], 100],
    // cpu 0.5, memory 0.25 -> std 0.125 -> 87
    ['unbalanced', makePod('p', { cpu: '1', memory: '1Gi' }), makeNode('n'), [], 87],
    // actual requests, not non-zero: 0 and 0 -> 100
    ['no requests', makePod('p'), makeNode('n'), [], 100],
    // fractions capped at 1: cpu 3/2 -> 1, memory 0 -> std 0.5 -> 50
    ['fractions are capped at 1', makePod('p', { cpu: '3' }), makeNode('n'), [], 50],
  ];
  for (const [name, pod, node, pods, want] of cases) it(name, () => assert.equal(p.score(new CycleState(), pod, nodeInfo(node, pods)), want));
  it('three resources use the standard deviation', () => {
    // fractions 0.2, 0.4, 0.6: mean 0.4, std sqrt(0.08/3) = 0.1633 -> 83
    assert.equal(balancedResourceScore([2, 4, 6], [10, 10, 10]), 83);
  });
});
