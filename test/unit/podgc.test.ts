/** The pod garbage collector's selections (upstream gc_controller.go). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  Quarantine, byEvictionAndCreationTimestamp, isPodTerminated, terminatedPodsToDelete, terminatingPodsOnOutOfServiceNodes,
  unknownNodeNames, unscheduledTerminatingPods,
} from '../../src/controllers/podgc/plan.js';
import type { Pod, PodSpec } from 'kubernetes-types/core/v1.js';

const pod = (name: string, o: { phase?: string; reason?: string; created?: string; node?: string; deleting?: boolean } = {}): Pod => ({
  metadata: { name, namespace: 'default', creationTimestamp: o.created ?? '2025-01-01T00:00:00Z', ...(o.deleting ? { deletionTimestamp: '2025-01-01T01:00:00Z' } : {}) },
  spec: (o.node ? { nodeName: o.node } : {}) as PodSpec,
  status: { phase: o.phase, reason: o.reason },
});

describe('isPodTerminated', () => {
  const table: [string | undefined, boolean][] = [
    ['Pending', false], ['Running', false], ['Unknown', false], ['Succeeded', true], ['Failed', true], [undefined, true],
  ];
  for (const [phase, want] of table) it(`${phase}: ${want}`, () => assert.equal(isPodTerminated(pod('p', { phase })), want));
});

describe('terminatedPodsToDelete', () => {
  const pods = [
    pod('new-ok', { phase: 'Succeeded', created: '2025-01-03T00:00:00Z' }),
    pod('old-fail', { phase: 'Failed', created: '2025-01-01T00:00:00Z' }),
    pod('running', { phase: 'Running', created: '2024-01-01T00:00:00Z' }),
    pod('evicted', { phase: 'Failed', reason: 'Evicted', created: '2025-01-05T00:00:00Z' }),
    pod('b-mid', { phase: 'Succeeded', created: '2025-01-02T00:00:00Z' }),
    pod('a-mid', { phase: 'Succeeded', created: '2025-01-02T00:00:00Z' }),
  ];
  const names = (ps: any[]) => ps.map((p) => p.metadata.name);
  const table: [number, string[]][] = [
    [0, []],
    [5, []],
    [4, ['evicted']],
    [2, ['evicted', 'old-fail', 'a-mid']],
    [1, ['evicted', 'old-fail', 'a-mid', 'b-mid']],
  ];
  for (const [threshold, want] of table) {
    it(`threshold ${threshold}: evicted first, then oldest, then by name`, () => assert.deepEqual(names(terminatedPodsToDelete(pods, threshold)), want));
  }
  it('sort order', () => {
    const sorted = [...pods].sort(byEvictionAndCreationTimestamp);
    assert.deepEqual(names(sorted), ['evicted', 'running', 'old-fail', 'a-mid', 'b-mid', 'new-ok']);
  });
});

describe('terminatingPodsOnOutOfServiceNodes', () => {
  const nodes: Record<string, any> = {
    oos: { spec: { taints: [{ key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' }] }, status: { conditions: [{ type: 'Ready', status: 'False' }] } },
    readyOos: { spec: { taints: [{ key: 'node.kubernetes.io/out-of-service', effect: 'NoExecute' }] }, status: { conditions: [{ type: 'Ready', status: 'True' }] } },
    notReady: { spec: {}, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } },
  };
  const pods = [
    pod('t-oos', { node: 'oos', deleting: true }), pod('live-oos', { node: 'oos' }), pod('t-ready', { node: 'readyOos', deleting: true }),
    pod('t-notready', { node: 'notReady', deleting: true }), pod('t-gone', { node: 'gone', deleting: true }),
  ];
  it('only terminating pods on not-Ready nodes with the out-of-service taint', () => {
    assert.deepEqual(terminatingPodsOnOutOfServiceNodes(pods, (n) => nodes[n]).map((p) => p.metadata!.name), ['t-oos']);
  });
});

describe('orphans and unscheduled terminating pods', () => {
  const pods = [pod('a', { node: 'w1' }), pod('b', { node: 'w2' }), pod('c', { node: 'w2' }), pod('d'), pod('e', { deleting: true }), pod('f', { node: 'w1', deleting: true })];
  it('unknown node names, once each', () => assert.deepEqual(unknownNodeNames(pods, new Set(['w1'])), ['w2']));
  it('unscheduled terminating pods', () => assert.deepEqual(unscheduledTerminatingPods(pods).map((p) => p.metadata!.name), ['e']));
});

describe('Quarantine', () => {
  it('a name is due after the quarantine, counted from when it was first added', () => {
    const q = new Quarantine(40_000);
    q.add('w1', 0);
    q.add('w1', 20_000);
    assert.deepEqual(q.takeDue(39_999), []);
    assert.deepEqual(q.takeDue(40_000), ['w1']);
    assert.deepEqual(q.takeDue(80_000), [], 'taken names are gone');
    assert.equal(q.size, 0);
  });
});
