/** Preemption's victim selection and node choice (upstream framework/preemption, defaultpreemption). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Framework } from '../../src/scheduler/runtime.js';
import { defaultProfile } from '../../src/scheduler/profile.js';
import { makeNode, makePod, nodeInfo, snapshot } from '../../src/scheduler/testing/wrappers.js';
import { pickOneNodeForPreemption, selectVictimsOnNode, splitByBudgetViolation, type Victims } from '../../src/scheduler/plugins/preemption-victims.js';
import { NodeResourcesFit } from '../../src/scheduler/plugins/noderesourcesfit.js';
import { CycleState } from '../../src/scheduler/framework.js';
import type { NodeInfo } from '../../src/scheduler/nodeinfo.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';

const fit = new NodeResourcesFit();
const filters = (pod: any, node: NodeInfo) => {
  const state = new CycleState();
  fit.preFilter(state, pod);
  return fit.filter(state, pod, node);
};
const names = (pods: any[]) => pods.map((p) => p.metadata.name);
const started = (pod: any, t: string) => ({ ...pod, status: { ...pod.status, startTime: t } });
// Preemption reads disruptionsAllowed and disruptedPods; the other counts are required by the type.
const counts = { currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
const budget = (app: string, allowed: number): PodDisruptionBudget => ({
  metadata: { name: `pdb-${app}`, namespace: 'default' }, spec: { selector: { matchLabels: { app } } }, status: { ...counts, disruptionsAllowed: allowed },
});

describe('selectVictimsOnNode', () => {
  const node = makeNode('n', { cpu: '4' });

  it('evicts only what the preemptor needs, reprieving the more important pods first', () => {
    const info = nodeInfo(node, [makePod('p1', { cpu: '1', priority: 1 }), makePod('p5', { cpu: '1', priority: 5 }), makePod('p3', { cpu: '2', priority: 3 })]);
    const r = selectVictimsOnNode(makePod('hp', { cpu: '2', priority: 10 }), info, filters, []);
    assert.ok('victims' in r);
    // p5 and p3 are given back in that order; p3 (2 cpu) no longer fits beside the preemptor, p1 does.
    assert.deepEqual(names(r.victims.pods), ['p3']);
  });

  it('pods of equal or higher priority are never victims; none possible is "no victims"', () => {
    const info = nodeInfo(node, [makePod('same', { cpu: '4', priority: 10 })]);
    const r = selectVictimsOnNode(makePod('hp', { cpu: '1', priority: 10 }), info, filters, []);
    assert.ok('status' in r && r.noVictims);
  });

  it('a node where even all lower-priority pods gone is not enough gives the filter rejection', () => {
    const info = nodeInfo(node, [makePod('hi', { cpu: '3', priority: 100 }), makePod('lo', { cpu: '1', priority: 1 })]);
    const r = selectVictimsOnNode(makePod('hp', { cpu: '2', priority: 10 }), info, filters, []);
    assert.ok('status' in r && !r.noVictims);
  });

  it('pods whose eviction would break a budget are reprieved first and counted when they must go', () => {
    const info = nodeInfo(node, [makePod('guarded', { cpu: '2', priority: 1, labels: { app: 'db' } }), makePod('free', { cpu: '2', priority: 1, labels: { app: 'web' } })]);
    const r = selectVictimsOnNode(makePod('hp', { cpu: '2', priority: 10 }), info, filters, [budget('db', 0)]);
    assert.ok('victims' in r);
    assert.deepEqual([names(r.victims.pods), r.victims.numPDBViolations], [['free'], 0]);
    const both = selectVictimsOnNode(makePod('hp', { cpu: '4', priority: 10 }), info, filters, [budget('db', 0)]);
    assert.ok('victims' in both);
    assert.equal(both.victims.numPDBViolations, 1);
  });
});

describe('splitByBudgetViolation', () => {
  it('spends each budget in order; pods already disrupted are not counted again', () => {
    const pods = ['a', 'b', 'c'].map((n) => [n, makePod(n, { labels: { app: 'db' } })] as [string, any]);
    const b = budget('db', 1);
    assert.deepEqual(splitByBudgetViolation(pods, [b]).violating.map(([k]) => k), ['b', 'c']);
    const disrupted: PodDisruptionBudget = { ...b, status: { ...counts, disruptionsAllowed: 1, disruptedPods: { a: '2026-01-01T00:00:00Z' } } };
    assert.deepEqual(splitByBudgetViolation(pods, [disrupted]).violating.map(([k]) => k), ['c']);
  });
});

describe('pickOneNodeForPreemption', () => {
  const v = (node: string, prios: number[], violations = 0, start = '2026-01-01T00:00:00Z'): Victims =>
    ({ node, pods: prios.map((p, i) => started(makePod(`${node}-${i}`, { priority: p }), start)), numPDBViolations: violations });
  const table: [string, Victims[], string][] = [
    ['fewest budget violations', [v('a', [1], 1), v('b', [5, 5])], 'b'],
    ['lowest highest priority', [v('a', [5]), v('b', [1, 2])], 'b'],
    ['smallest sum (more victims weigh more)', [v('a', [1, 1]), v('b', [1])], 'b'],
    ['fewest victims when sums tie', [v('a', [2, 2]), v('b', [2, 2])], 'a'],
    ['latest start of the highest-priority victims', [v('a', [3], 0, '2026-01-01T00:00:00Z'), v('b', [3], 0, '2026-01-02T00:00:00Z')], 'b'],
  ];
  for (const [name, candidates, want] of table) it(name, () => assert.equal(pickOneNodeForPreemption(candidates)?.node, want));
});

describe('DefaultPreemption through the framework', () => {
  it('nominates the node and names the victims', () => {
    const fw = new Framework(defaultProfile().plugins);
    const nodes = snapshot([nodeInfo(makeNode('a', { cpu: '2' }), [makePod('lp', { cpu: '2', priority: 1 })]), nodeInfo(makeNode('b', { cpu: '2' }), [makePod('hp2', { cpu: '2', priority: 100 })])]);
    const r = fw.schedulePod(makePod('hp', { cpu: '1', priority: 10 }), nodes);
    assert.equal(r.kind, 'Unschedulable');
    if (r.kind === 'Unschedulable') {
      assert.equal(r.nomination?.nodeName, 'a');
      assert.deepEqual(names([...(r.nomination?.victims ?? [])]), ['lp']);
    }
  });

  it('preemptionPolicy Never nominates nothing', () => {
    const fw = new Framework(defaultProfile().plugins);
    const r = fw.schedulePod(makePod('hp', { cpu: '1', priority: 10, preemptionPolicy: 'Never' }), snapshot([nodeInfo(makeNode('a', { cpu: '1' }), [makePod('lp', { cpu: '1' })])]));
    assert.ok(r.kind === 'Unschedulable' && !r.nomination);
  });
});

describe('room kept for nominated pods', () => {
  const nominee = { ...makePod('nominee', { cpu: '1', priority: 100 }), status: { phase: 'Pending', nominatedNodeName: 'a' } };
  const nominated = { size: 1, podsOn: (n: string) => (n === 'a' ? [nominee] : []) };
  const nodes = () => snapshot([nodeInfo(makeNode('a', { cpu: '2' }), [makePod('running', { cpu: '1', priority: 100 })])]);
  const fw = () => new Framework(defaultProfile().plugins, { nominated });

  it('a pod of lower priority does not take the room', () => {
    const r = fw().schedulePod(makePod('low', { cpu: '1', priority: 1, preemptionPolicy: 'Never' }), nodes());
    assert.equal(r.kind, 'Unschedulable');
  });

  it('a pod of higher priority may, and the nominee itself fits', () => {
    assert.equal(fw().schedulePod(makePod('higher', { cpu: '1', priority: 500 }), nodes()).kind, 'Scheduled');
    assert.equal(fw().schedulePod(nominee, nodes()).kind, 'Scheduled');
  });
});
