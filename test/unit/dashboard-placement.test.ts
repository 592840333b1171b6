/**
 * The dashboard's placement verdicts (src/dashboard/placement.ts) cannot
 * disagree with the scheduler: for each case the scheduler's own Framework
 * schedules the same pod on the same nodes, and
 *  - a scheduled pod's node is among the nodes the verdicts say fit;
 *  - an unschedulable pod fits no node, and the FitError built from each
 *    node's first failing verdict (the scheduler stops at the first) is the
 *    scheduler's message up to its preemption part.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { explainPlacement, nodeInfosFor } from '../../src/dashboard/placement.js';
import { Framework } from '../../src/scheduler/runtime.js';
import { defaultProfile } from '../../src/scheduler/profile.js';
import { fitErrorMessage } from '../../src/scheduler/fiterror.js';
import { controlPlaneTaint, firstOfTies, makeNode, makePod, snapshot } from '../../src/scheduler/testing/wrappers.js';

const cluster = () => [
  makeNode('cp', { taints: [controlPlaneTaint], labels: { 'node-role.kubernetes.io/control-plane': '' } }),
  makeNode('w1', { cpu: '2', labels: { disk: 'ssd' } }),
  makeNode('w2', { cpu: '4', unschedulable: true }),
  makeNode('w3', { cpu: '1', taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoExecute' }] }),
];
const on = (node: string, ...pods: any[]) => pods.map((p) => ({ ...p, spec: { ...p.spec, nodeName: node } }));

const cases: [string, any, any[], any[]][] = [
  ['a plain pod', makePod('p'), cluster(), []],
  ['too much cpu everywhere', makePod('big', { cpu: '100' }), cluster(), []],
  ['cpu taken by other pods', makePod('p', { cpu: '1500m' }), cluster(), on('w1', makePod('o', { cpu: '1' }))],
  ['a node selector no node matches', makePod('p', { nodeSelector: { disk: 'hdd' } }), cluster(), []],
  ['a node selector one node matches', makePod('p', { nodeSelector: { disk: 'ssd' } }), cluster(), []],
  ['tolerating the control plane and the gpu taint', makePod('p', { tolerations: [{ operator: 'Exists' }] }), cluster(), []],
  ['a host port in use', makePod('p', { hostPorts: [{ hostPort: 80 }], tolerations: [{ operator: 'Exists' }] }), cluster(),
    [...on('w1', makePod('o1', { hostPorts: [{ hostPort: 80 }] })), ...on('cp', makePod('o2', { hostPorts: [{ hostPort: 80 }] })), ...on('w3', makePod('o3', { hostPorts: [{ hostPort: 80 }] }))]],
];

describe('placement verdicts agree with the scheduler', () => {
  for (const [name, pod, nodes, assigned] of cases) {
    it(name, () => {
      const placement = explainPlacement(pod, nodes, assigned);
      const fits = placement.nodes.filter((n) => n.fits).map((n) => n.node);
      const r = new Framework(defaultProfile().plugins, { random: firstOfTies }).schedulePod(pod, snapshot(nodeInfosFor(pod, nodes, assigned)));
      if (r.kind === 'Scheduled') {
        assert.ok(fits.includes(r.node.name), `scheduler chose ${r.node.name}, verdicts say ${fits}`);
        return;
      }
      assert.equal(r.kind, 'Unschedulable');
      assert.deepEqual(fits, []);
      const nodeToStatus = new Map(placement.nodes.map((n) => {
        const first = n.filters.find((f) => f.verdict === 'Fail')!;
        return [n.node, { status: { code: 'Unschedulable' as const, reasons: first.reasons }, plugin: first.filter }];
      }));
      if (r.kind === 'Unschedulable') assert.equal(r.message.split(' preemption:')[0], fitErrorMessage(nodes.length, { nodeToStatus }));
    });
  }

  it('names each failing filter with upstream\'s reason, every filter on every node', () => {
    const p = explainPlacement(makePod('big', { cpu: '100' }), cluster(), []);
    const reasons = Object.fromEntries(p.nodes.map((n) => [n.node, n.filters.filter((f) => f.verdict === 'Fail').map((f) => `${f.filter}: ${f.reasons.join(', ')}`)]));
    assert.deepEqual(reasons, {
      cp: ['TaintToleration: node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }', 'NodeResourcesFit: Insufficient cpu'],
      w1: ['NodeResourcesFit: Insufficient cpu'],
      w2: ['NodeUnschedulable: node(s) were unschedulable', 'NodeResourcesFit: Insufficient cpu'],
      w3: ['TaintToleration: node(s) had untolerated taint {dedicated: gpu}', 'NodeResourcesFit: Insufficient cpu'],
    });
  });

  it('judges a bound pod as if pending again: off its node, its nodeName cleared', () => {
    const pod = { ...makePod('p', { cpu: '1500m' }), spec: { ...makePod('p', { cpu: '1500m' }).spec, nodeName: 'w1' } };
    const p = explainPlacement(pod, cluster(), [pod]);
    assert.equal(p.pod.nodeName, 'w1');
    assert.deepEqual(p.nodes.filter((n) => n.fits).map((n) => n.node), ['w1']);
  });

  it('a selector mismatch reads as upstream\'s NodeAffinity reason', () => {
    const p = explainPlacement(makePod('p', { nodeSelector: { disk: 'hdd' } }), cluster(), []);
    assert.deepEqual(p.nodes.find((n) => n.node === 'w1')!.filters.find((f) => f.filter === 'NodeAffinity'),
      { filter: 'NodeAffinity', verdict: 'Fail', reasons: ["node(s) didn't match Pod's node affinity/selector"] });
  });
});
