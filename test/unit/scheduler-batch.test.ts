/**
 * The batch forms of the hot plugins against their node-by-node forms: filterNodes gives
 * exactly filter()'s statuses and returns how many are not Success (0, with `out` possibly
 * unwritten, when all pass); normalizeScores gives normalizeScore's scores; and the cycle
 * breaks ties among equally scored nodes uniformly with one draw.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CycleState, defaultNormalizeScore, defaultNormalizeScores, type FilterPlugin, type NodeScore, type Status } from '../../src/scheduler/framework.js';
import { NodeTable, hotFields, type NodeInfo } from '../../src/scheduler/nodeinfo.js';
import { NodeUnschedulable } from '../../src/scheduler/plugins/nodeunschedulable.js';
import { NodeName } from '../../src/scheduler/plugins/nodename.js';
import { TaintToleration } from '../../src/scheduler/plugins/tainttoleration.js';
import { NodeResourcesFit } from '../../src/scheduler/plugins/noderesourcesfit.js';
import { Framework } from '../../src/scheduler/runtime.js';
import { defaultProfile } from '../../src/scheduler/profile.js';
import { controlPlaneTaint, makeNode, makePod, nodeInfo, snapshot, type TestPod } from '../../src/scheduler/testing/wrappers.js';

/** The nodes as a NodeBatch over a copy of their Hot rows, as the cycle hands them. */
function batchOf(nodes: NodeInfo[]) {
  const table = new NodeTable(nodes.length);
  const slots = new Int32Array(nodes.length);
  nodes.forEach((n, i) => {
    slots[i] = table.alloc();
    for (let f = 0; f < hotFields; f++) table.data[slots[i] * hotFields + f] = n.hot(f);
  });
  return { nodes, slots, data: table.data, count: nodes.length };
}

const mixed = () => [
  nodeInfo(makeNode('plain')),
  nodeInfo(makeNode('cordoned', { unschedulable: true })),
  nodeInfo(makeNode('tainted', { taints: [controlPlaneTaint] })),
  nodeInfo(makeNode('full', { pods: '1' }), [makePod('x')]),
  nodeInfo(makeNode('small', { cpu: '100m' })),
  nodeInfo(makeNode('gpu', { extra: { 'example.com/gpu': '1' } })),
  nodeInfo(makeNode('busy', { cpu: '1' }), [makePod('y', { cpu: '900m' })]),
];

const uniform = () => Array.from({ length: 40 }, (_, i) => nodeInfo(makeNode(`n${i}`, { cpu: '4', memory: '8Gi' })));

const pods: [string, TestPod][] = [
  ['no requests', makePod('p')],
  ['cpu and memory', makePod('p', { cpu: '500m', memory: '1Gi' })],
  ['an extended resource', makePod('p', { cpu: '100m', requests: { 'example.com/gpu': '1' } })],
  ['tolerating everything', makePod('p', { cpu: '500m', tolerations: [{ operator: 'Exists' }] })],
  ['named node', makePod('p', { nodeName: 'busy' })],
  ['named absent node', makePod('p', { nodeName: 'elsewhere' })],
];

const plugins: [string, () => FilterPlugin][] = [
  ['NodeUnschedulable', () => new NodeUnschedulable()], ['NodeName', () => new NodeName()],
  ['TaintToleration', () => new TaintToleration()], ['NodeResourcesFit', () => new NodeResourcesFit()],
];

describe('filterNodes is filter() node by node', () => {
  for (const [pluginName, make] of plugins) {
    for (const [nodesName, nodes] of [['mixed nodes', mixed], ['uniform nodes', uniform]] as const) {
      for (const [podName, pod] of pods) {
        it(`${pluginName}, ${nodesName}, pod with ${podName}`, () => {
          const plugin = make();
          const state = new CycleState();
          (plugin as Partial<{ preFilter(s: CycleState, p: TestPod): unknown }>).preFilter?.(state, pod);
          const infos = nodes();
          const want = infos.map((n) => plugin.filter(state, pod, n));
          const out = new Array<Status>(infos.length);
          const rejected = plugin.filterNodes!(state, pod, batchOf(infos), out);
          const wantRejected = want.filter((s) => s.code !== 'Success').length;
          assert.equal(rejected, wantRejected);
          if (rejected > 0) assert.deepEqual(out, want);
        });
      }
    }
  }
});

describe('normalizeScores is normalizeScore over an array', () => {
  const cases: [string, number[]][] = [['all zero', [0, 0, 0]], ['mixed', [3, 0, 7, 7, 1]], ['one', [5]]];
  for (const [name, raw] of cases) {
    for (const reverse of [false, true]) {
      it(`${name}, reverse ${reverse}`, () => {
        const objects: NodeScore[] = raw.map((score, i) => ({ name: `n${i}`, score }));
        defaultNormalizeScore(100, reverse, objects);
        const values = new Float64Array([...raw, 42]);
        defaultNormalizeScores(100, reverse, values, raw.length);
        assert.deepEqual([...values.slice(0, raw.length)], objects.map((o) => o.score));
        assert.equal(values[raw.length], 42, 'past count untouched');
      });
    }
  }
});

describe('tie-breaking among equally scored nodes', () => {
  it('each of k tied nodes is chosen for one k-th of the draws', () => {
    const infos = ['a', 'b', 'c', 'd'].map((n) => nodeInfo(makeNode(n)));
    const chosen: string[] = [];
    for (let i = 0; i < 4; i++) {
      const draw = (i + 0.5) / 4;
      const r = new Framework(defaultProfile().plugins, { random: () => draw }).schedulePod(makePod('p'), snapshot(infos));
      assert.ok(r.kind === 'Scheduled');
      chosen.push(r.node.name);
    }
    assert.deepEqual(chosen.sort(), ['a', 'b', 'c', 'd']);
  });

  it('only the best total is drawn from', () => {
    // 'loaded' scores lower (less free cpu): never chosen, whatever the draw.
    const infos = [nodeInfo(makeNode('a')), nodeInfo(makeNode('loaded'), [makePod('x', { cpu: '1' })]), nodeInfo(makeNode('b'))];
    const seen = new Set<string>();
    for (const draw of [0, 0.3, 0.6, 0.999]) {
      const r = new Framework(defaultProfile().plugins, { random: () => draw }).schedulePod(makePod('p', { cpu: '100m' }), snapshot(infos));
      assert.ok(r.kind === 'Scheduled');
      seen.add(r.node.name);
    }
    assert.deepEqual([...seen].sort(), ['a', 'b']);
  });
});
