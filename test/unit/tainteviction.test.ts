/**
 * The taint-eviction decision (upstream processPodOnNode and
 * getMinTolerationTime) and its timed queue.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getNoExecuteTaints, planPodEviction, taintsEqual, tolerationsEqual } from '../../src/controllers/tainteviction/eviction.js';
import type { EvictionPlan, ScheduledEviction } from '../../src/controllers/tainteviction/eviction.js';
import { TimedWorkerQueue } from '../../src/controllers/tainteviction/timed-queue.js';
import { updatePodCondition } from '../../src/api/pods.js';
import type { Taint, Toleration } from '../../src/api/tolerations.js';

const now = new Date('2025-01-01T00:00:00Z');
const at = (s: number) => new Date(now.getTime() + s * 1000);
const unreachable: Taint = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' };
const notReady: Taint = { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' };
const kv: Taint = { key: 'k', value: 'v', effect: 'NoExecute' };
const defaults: Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
];

// [description, taints, tolerations, scheduled, expected]
const table: [string, Taint[], Toleration[] | undefined, ScheduledEviction | undefined, EvictionPlan][] = [
  ['no taints cancels', [], defaults, undefined, { action: 'cancel' }],
  ['untolerated taint evicts now', [kv], undefined, undefined, { action: 'evictNow' }],
  ['untolerated taint evicts now even with an eviction pending', [kv], [], { createdAt: at(-5), fireAt: at(10) }, { action: 'evictNow' }],
  ['one of two taints untolerated evicts now', [unreachable, kv], defaults, undefined, { action: 'evictNow' }],
  ['Equal with another value does not tolerate', [kv], [{ key: 'k', operator: 'Equal', value: 'w', effect: 'NoExecute' }], undefined, { action: 'evictNow' }],
  ['a NoSchedule toleration does not tolerate NoExecute', [kv], [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }], undefined, { action: 'evictNow' }],
  ['empty key with Exists tolerates everything forever', [unreachable, kv], [{ operator: 'Exists' }], undefined, { action: 'cancel' }],
  ['empty key with Exists and NoExecute tolerates everything forever', [kv, notReady], [{ operator: 'Exists', effect: 'NoExecute' }], undefined, { action: 'cancel' }],
  ['empty effect tolerates NoExecute', [kv], [{ key: 'k', operator: 'Exists' }], undefined, { action: 'cancel' }],
  ['tolerated without tolerationSeconds cancels a pending eviction', [kv], [{ key: 'k', operator: 'Equal', value: 'v' }], { createdAt: at(-1), fireAt: at(5) }, { action: 'cancel' }],
  ['default tolerations: 300 s', [unreachable], defaults, undefined, { action: 'schedule', createdAt: now, fireAt: at(300), replace: false }],
  ['tolerationSeconds 2', [kv], [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 2 }], undefined,
    { action: 'schedule', createdAt: now, fireAt: at(2), replace: false }],
  ['the smallest tolerationSeconds of the used tolerations', [unreachable, kv],
    [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 60 }, { key: 'k', operator: 'Exists', tolerationSeconds: 10 }], undefined,
    { action: 'schedule', createdAt: now, fireAt: at(10), replace: false }],
  ['one forever and one timed: the timed one counts', [unreachable, kv],
    [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists' }, { key: 'k', operator: 'Exists', tolerationSeconds: 30 }], undefined,
    { action: 'schedule', createdAt: now, fireAt: at(30), replace: false }],
  ['only the first matching toleration of a taint is used', [kv],
    [{ key: 'k', operator: 'Exists' }, { key: 'k', operator: 'Exists', tolerationSeconds: 1 }], undefined, { action: 'cancel' }],
  ['tolerationSeconds 0 is now', [kv], [{ key: 'k', operator: 'Exists', tolerationSeconds: 0 }], undefined,
    { action: 'schedule', createdAt: now, fireAt: now, replace: false }],
  ['negative tolerationSeconds is now', [kv], [{ key: 'k', operator: 'Exists', tolerationSeconds: -5 }], undefined,
    { action: 'schedule', createdAt: now, fireAt: now, replace: false }],
  ['negative wins over a larger one', [unreachable, kv],
    [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 100 }, { key: 'k', operator: 'Exists', tolerationSeconds: -1 }], undefined,
    { action: 'schedule', createdAt: now, fireAt: now, replace: false }],
  ['an earlier scheduled eviction is kept', [kv], [{ key: 'k', operator: 'Exists', tolerationSeconds: 10 }], { createdAt: at(-3), fireAt: at(7) }, { action: 'keep' }],
  ['a scheduled eviction is kept even when the pod now tolerates for less', [kv], [{ key: 'k', operator: 'Exists', tolerationSeconds: 1 }],
    { createdAt: at(-3), fireAt: at(7) }, { action: 'keep' }],
  ['a scheduled eviction created now is replaced', [kv], [{ key: 'k', operator: 'Exists', tolerationSeconds: 10 }], { createdAt: now, fireAt: at(10) },
    { action: 'schedule', createdAt: now, fireAt: at(10), replace: true }],
];

describe('planPodEviction', () => {
  for (const [name, taints, tolerations, scheduled, want] of table) {
    it(name, () => assert.deepEqual(planPodEviction(taints, tolerations, now, scheduled), want));
  }
});

describe('getNoExecuteTaints', () => {
  it('keeps only NoExecute, in order', () => {
    const taints: Taint[] = [{ key: 'a', effect: 'NoSchedule' }, kv, { key: 'b', effect: 'PreferNoSchedule' }, unreachable];
    assert.deepEqual(getNoExecuteTaints(taints), [kv, unreachable]);
  });
  it('handles none', () => assert.deepEqual(getNoExecuteTaints(undefined), []));
});

describe('taintsEqual / tolerationsEqual', () => {
  it('timeAdded counts', () => {
    assert.equal(taintsEqual([{ ...kv, timeAdded: '2025-01-01T00:00:00Z' }], [{ ...kv, timeAdded: '2025-01-01T00:00:01Z' }]), false);
    assert.equal(taintsEqual([{ ...kv, timeAdded: '2025-01-01T00:00:00Z' }], [{ ...kv, timeAdded: '2025-01-01T00:00:00Z' }]), true);
  });
  it('order counts', () => assert.equal(taintsEqual([kv, unreachable], [unreachable, kv]), false));
  it('absent and empty values are equal', () => assert.equal(taintsEqual([{ key: 'k', effect: 'NoExecute' }], [{ key: 'k', value: '', effect: 'NoExecute' }]), true));
  it('tolerationSeconds counts', () => {
    assert.equal(tolerationsEqual([{ key: 'k', tolerationSeconds: 1 }], [{ key: 'k', tolerationSeconds: 2 }]), false);
    assert.equal(tolerationsEqual(undefined, []), true);
  });
});

describe('updatePodCondition', () => {
  const cond = { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint' };
  it('adds a missing condition with lastTransitionTime now', () => {
    const status: any = {};
    assert.equal(updatePodCondition(status, cond, now), true);
    assert.deepEqual(status.conditions, [{ ...cond, lastTransitionTime: '2025-01-01T00:00:00Z' }]);
  });
  it('an identical condition is no change and keeps its transition time', () => {
    const status: any = { conditions: [{ ...cond, lastTransitionTime: '2024-01-01T00:00:00Z' }] };
    assert.equal(updatePodCondition(status, cond, now), false);
    assert.equal(status.conditions[0].lastTransitionTime, '2024-01-01T00:00:00Z');
  });
  it('a status change moves the transition time', () => {
    const status: any = { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' }] };
    assert.equal(updatePodCondition(status, { type: 'Ready', status: 'False' }, now), true);
    assert.equal(status.conditions[0].lastTransitionTime, '2025-01-01T00:00:00Z');
  });
});

describe('TimedWorkerQueue', () => {
  // A frozen clock: the queue reads it only to turn fireAt into a timer's
  // delay, so the delays stay 30 and 20 ms however long a loaded machine
  // stalls between the test's statements (a real clock made 'later' due at
  // once when it stalled over 30 ms, and the test failed under load).
  const frozen = new Date();
  const clock = { now: () => frozen };
  it('runs due work at once, later work after its delay, and cancels pending work', async () => {
    const ran: string[] = [];
    const q = new TimedWorkerQueue(async (key) => { ran.push(key); }, clock);
    const t = clock.now();
    q.addWork('now', t, t);
    q.addWork('later', t, new Date(t.getTime() + 30));
    q.addWork('cancelled', t, new Date(t.getTime() + 30));
    assert.equal(q.getWorker('now'), undefined, 'running work has no timer');
    assert.ok(q.getWorker('later'));
    assert.equal(q.cancelWork('cancelled'), true);
    assert.equal(q.cancelWork('cancelled'), false);
    await new Promise((r) => setTimeout(r, 80));
    assert.deepEqual(ran, ['now', 'later']);
    assert.equal(q.has('later'), false, 'finished work is removed');
  });
  it('does not add work twice', async () => {
    let n = 0;
    const q = new TimedWorkerQueue(async () => { n++; }, clock);
    const t = clock.now();
    q.addWork('a', t, new Date(t.getTime() + 20));
    q.addWork('a', t, new Date(t.getTime() + 20));
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(n, 1);
    q.cancelAll();
  });
});
