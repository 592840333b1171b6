/**
 * Node lifecycle decisions: heartbeat judgement (tryUpdateNodeHealth), zone
 * states, taint by condition, the controller's taint swaps, the per-zone
 * rate-limited tainting queue, and label reconciliation.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  computeZoneState, getZoneKey, labelsToReconcile, microTimeBefore, tryUpdateNodeHealth,
} from '../../src/controllers/nodelifecycle/health.js';
import type { NodeHealth } from '../../src/controllers/nodelifecycle/health.js';
import { conditionTaintsFor, noScheduleTaintPlan, swapTaints, taintSetDiff } from '../../src/controllers/nodelifecycle/taints.js';
import { RateLimitedTimedQueue, TokenBucket } from '../../src/controllers/nodelifecycle/ratelimited-queue.js';

const t0 = Date.parse('2025-01-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const cfg = { nodeMonitorGracePeriodMs: 50_000, nodeStartupGracePeriodMs: 60_000 };

function node(conditions: any[] | undefined, created = t0 - 3_600_000): any {
  return { metadata: { name: 'n1', uid: 'u1', creationTimestamp: iso(created) }, spec: {}, status: conditions ? { conditions } : {} };
}
const ready = (status: string, hb: number, tr = t0 - 3_600_000) => ({ type: 'Ready', status, reason: 'KubeletReady', message: 'kubelet is posting ready status',
  lastHeartbeatTime: iso(hb), lastTransitionTime: iso(tr) });
const pressure = (type: string) => ({ type, status: 'False', reason: 'KubeletHasSufficient', message: 'ok', lastHeartbeatTime: iso(t0), lastTransitionTime: iso(t0 - 3_600_000) });
const lease = (renew: string) => ({ metadata: { name: 'n1', namespace: 'kube-node-lease' }, spec: { holderIdentity: 'n1', leaseDurationSeconds: 40, renewTime: renew } });
const health = (probe: number, status: any, l?: any): NodeHealth => ({ probeTimestamp: probe, readyTransitionTimestamp: probe, status, lease: l });

describe('tryUpdateNodeHealth', () => {
  it('a node first seen gets a probe time of now and no update', () => {
    const n = node([ready('True', t0 - 10_000)]);
    const r = tryUpdateNodeHealth(n, undefined, undefined, new Date(t0), cfg);
    assert.equal(r.health.probeTimestamp, t0);
    assert.equal(r.update, undefined);
    assert.equal(r.observedReady.status, 'True');
    assert.equal(r.gracePeriodMs, 50_000);
  });

  it('uses the local probe time, not the heartbeat time: an old heartbeat on a first sight is not stale', () => {
    const n = node([ready('True', t0 - 600_000)]);
    assert.equal(tryUpdateNodeHealth(n, undefined, undefined, new Date(t0), cfg).update, undefined);
  });

  it('no new heartbeat or lease past the grace period: conditions become Unknown', () => {
    const n = node([ready('True', t0 - 100_000), pressure('MemoryPressure'), pressure('DiskPressure'), pressure('PIDPressure'),
      { type: 'NetworkUnavailable', status: 'False', lastTransitionTime: iso(t0 - 3_600_000) }]);
    const saved = health(t0 - 60_000, n.status);
    const r = tryUpdateNodeHealth(n, saved, undefined, new Date(t0), cfg);
    assert.ok(r.update, 'the node is written');
    const conds = Object.fromEntries(r.update.status!.conditions!.map((c: any) => [c.type, c]));
    for (const type of ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']) {
      assert.equal(conds[type].status, 'Unknown', type);
      assert.equal(conds[type].reason, 'NodeStatusUnknown');
      assert.equal(conds[type].message, 'Kubelet stopped posting node status.');
      assert.equal(conds[type].lastTransitionTime, iso(t0));
    }
    assert.equal(conds.Ready.lastHeartbeatTime, iso(t0 - 100_000), 'the heartbeat time is kept');
    assert.equal(conds.NetworkUnavailable.status, 'False', 'NetworkUnavailable is left alone');
    assert.equal(r.observedReady.status, 'True');
    assert.equal(r.currentReady?.status, 'Unknown');
    assert.equal(n.status.conditions[0].status, 'True', 'the input is not modified');
  });

  it('exactly at the grace period nothing happens yet', () => {
    const n = node([ready('True', t0 - 100_000)]);
    const r = tryUpdateNodeHealth(n, health(t0 - 50_000, n.status), undefined, new Date(t0), cfg);
    assert.equal(r.update, undefined);
  });

  it('a renewed lease refreshes the probe time', () => {
    const n = node([ready('True', t0 - 100_000)]);
    const saved = health(t0 - 60_000, n.status, lease('2025-01-01T00:00:00.000000Z'));
    const r = tryUpdateNodeHealth(n, saved, lease('2025-01-01T00:00:00.000001Z'), new Date(t0), cfg);
    assert.equal(r.health.probeTimestamp, t0);
    assert.equal(r.update, undefined);
  });

  it('the same lease does not refresh it', () => {
    const n = node([ready('True', t0 - 100_000)]);
    const l = lease('2025-01-01T00:00:00.000000Z');
    const r = tryUpdateNodeHealth(n, health(t0 - 60_000, n.status, l), structuredClone(l), new Date(t0), cfg);
    assert.ok(r.update);
  });

  it('a first lease refreshes it', () => {
    const n = node([ready('True', t0 - 100_000)]);
    const r = tryUpdateNodeHealth(n, health(t0 - 60_000, n.status), lease('2024-01-01T00:00:00.000000Z'), new Date(t0), cfg);
    assert.equal(r.update, undefined);
    assert.equal(r.health.probeTimestamp, t0);
  });

  it('a new heartbeat in the Ready condition refreshes it; a transition moves the transition time', () => {
    const old = node([ready('True', t0 - 100_000)]);
    const saved = { ...health(t0 - 60_000, old.status), readyTransitionTimestamp: t0 - 3_600_000 };
    const beat = node([ready('True', t0 - 1_000)]);
    const r1 = tryUpdateNodeHealth(beat, saved, undefined, new Date(t0), cfg);
    assert.equal(r1.health.probeTimestamp, t0);
    assert.equal(r1.health.readyTransitionTimestamp, t0 - 3_600_000);
    const flipped = node([ready('False', t0 - 1_000, t0 - 1_000)]);
    const r2 = tryUpdateNodeHealth(flipped, saved, undefined, new Date(t0), cfg);
    assert.equal(r2.health.readyTransitionTimestamp, t0);
  });

  it('an already Unknown node is not written again', () => {
    const n = node([{ ...ready('Unknown', t0 - 100_000), reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' }]);
    const r = tryUpdateNodeHealth(n, health(t0 - 60_000, n.status), undefined, new Date(t0), cfg);
    assert.equal(r.update, undefined);
    assert.equal(r.observedReady.status, 'Unknown');
  });

  it('a node that never posted status: startup grace from its creation, then NodeStatusNeverUpdated', () => {
    const young = node(undefined, t0 - 30_000);
    const r1 = tryUpdateNodeHealth(young, undefined, undefined, new Date(t0), cfg);
    assert.equal(r1.update, undefined);
    assert.equal(r1.gracePeriodMs, 60_000);
    assert.equal(r1.currentReady, undefined);
    assert.equal(r1.observedReady.status, 'Unknown');
    const old = node(undefined, t0 - 61_000);
    const r2 = tryUpdateNodeHealth(old, undefined, undefined, new Date(t0), cfg);
    assert.ok(r2.update);
    const c = r2.update.status!.conditions!.find((x: any) => x.type === 'Ready');
    assert.deepEqual(c, { type: 'Ready', status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.',
      lastHeartbeatTime: iso(t0 - 61_000), lastTransitionTime: iso(t0) });
    assert.equal(r2.update.status!.conditions!.length, 4);
  });

  it('a node without status keeps being judged from its creation while it only renews a lease... until the lease is seen', () => {
    const n = node(undefined, t0 - 120_000);
    const r = tryUpdateNodeHealth(n, undefined, lease('2025-01-01T00:00:00.000000Z'), new Date(t0), cfg);
    assert.equal(r.update, undefined, 'a renewed lease counts as a heartbeat');
  });
});

describe('microTimeBefore', () => {
  const table: [string | undefined, string | undefined, boolean][] = [
    ['2025-01-01T00:00:00.000001Z', '2025-01-01T00:00:00.000002Z', true],
    ['2025-01-01T00:00:00.000002Z', '2025-01-01T00:00:00.000001Z', false],
    ['2025-01-01T00:00:00.000001Z', '2025-01-01T00:00:00.000001Z', false],
    ['2025-01-01T00:00:00Z', '2025-01-01T00:00:00.5Z', true],
    [undefined, '2025-01-01T00:00:00Z', false],
  ];
  for (const [a, b, want] of table) it(`${a} < ${b}: ${want}`, () => assert.equal(microTimeBefore(a, b), want));
});

describe('computeZoneState', () => {
  const c = (s: string) => ({ type: 'Ready', status: s });
  const table: [string, any[], [number, string]][] = [
    ['all ready', [c('True'), c('True')], [0, 'Normal']],
    ['none ready: full disruption', [c('False'), c('Unknown')], [2, 'FullDisruption']],
    ['a node without Ready counts as not ready', [undefined, c('False')], [2, 'FullDisruption']],
    ['one of two not ready is normal', [c('True'), c('Unknown')], [1, 'Normal']],
    ['three of four not ready: partial', [c('True'), c('False'), c('False'), c('Unknown')], [3, 'PartialDisruption']],
    ['two of three: not more than two, normal', [c('True'), c('False'), c('False')], [2, 'Normal']],
    ['three of ten: under the threshold', [...Array(7).fill(c('True')), c('False'), c('False'), c('False')], [3, 'Normal']],
    ['empty zone', [], [0, 'Normal']],
  ];
  for (const [name, conds, want] of table) it(name, () => assert.deepEqual(computeZoneState(conds, 0.55), want));
});

describe('getZoneKey', () => {
  const n = (labels: Record<string, string>) => ({ metadata: { labels } });
  it('no labels: ""', () => assert.equal(getZoneKey(n({})), ''));
  it('GA labels', () => assert.equal(getZoneKey(n({ 'topology.kubernetes.io/region': 'r', 'topology.kubernetes.io/zone': 'z' })), 'r:\x00:z'));
  it('beta labels as fallback', () => assert.equal(getZoneKey(n({ 'failure-domain.beta.kubernetes.io/zone': 'z' })), ':\x00:z'));
});

describe('taint by condition', () => {
  const nodeWith = (conditions: any[], taints: any[] = [], unschedulable = false) => ({ spec: { taints, unschedulable }, status: { conditions } });
  const table: [string, any, string[]][] = [
    ['Ready True: none', nodeWith([{ type: 'Ready', status: 'True' }]), []],
    ['Ready False: not-ready', nodeWith([{ type: 'Ready', status: 'False' }]), ['node.kubernetes.io/not-ready']],
    ['Ready Unknown: unreachable', nodeWith([{ type: 'Ready', status: 'Unknown' }]), ['node.kubernetes.io/unreachable']],
    ['pressures and network', nodeWith([{ type: 'MemoryPressure', status: 'True' }, { type: 'DiskPressure', status: 'True' },
      { type: 'PIDPressure', status: 'True' }, { type: 'NetworkUnavailable', status: 'True' }]),
    ['node.kubernetes.io/memory-pressure', 'node.kubernetes.io/disk-pressure', 'node.kubernetes.io/pid-pressure', 'node.kubernetes.io/network-unavailable']],
    ['pressure False or Unknown: none', nodeWith([{ type: 'MemoryPressure', status: 'Unknown' }, { type: 'DiskPressure', status: 'False' }]), []],
    ['cordoned', nodeWith([{ type: 'Ready', status: 'True' }], [], true), ['node.kubernetes.io/unschedulable']],
  ];
  for (const [name, n, keys] of table) {
    it(name, () => {
      const taints = conditionTaintsFor(n);
      assert.deepEqual(taints.map((t) => t.key), keys);
      assert.ok(taints.every((t) => t.effect === 'NoSchedule'));
    });
  }

  it('plans additions and removals among its own NoSchedule taints only', () => {
    const n = nodeWith([{ type: 'Ready', status: 'Unknown' }], [
      { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
      { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' },
      { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
    ]);
    const plan = noScheduleTaintPlan(n);
    assert.deepEqual(plan.add, [{ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' }]);
    assert.deepEqual(plan.remove, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }]);
  });

  it('nothing to do when in step', () => {
    const n = nodeWith([{ type: 'Ready', status: 'True' }], [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule', timeAdded: 'x' }], true);
    assert.deepEqual(noScheduleTaintPlan(n), { add: [], remove: [] });
  });

  it('taintSetDiff matches by key and effect', () => {
    const d = taintSetDiff([{ key: 'a', effect: 'NoSchedule' }, { key: 'b', effect: 'NoSchedule' }], [{ key: 'a', value: 'x', effect: 'NoSchedule' }, { key: 'a', effect: 'NoExecute' }]);
    assert.deepEqual(d, { add: [{ key: 'b', effect: 'NoSchedule' }], remove: [{ key: 'a', effect: 'NoExecute' }] });
  });
});

describe('swapTaints', () => {
  const u = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2025-01-01T00:00:00Z' };
  const nr = { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' };
  const user = { key: 'k', value: 'v', effect: 'NoSchedule' };
  it('adds and removes in one list, keeping the others', () => assert.deepEqual(swapTaints([user, nr], [u], [nr]), [user, u]));
  it('replaces a taint with the same key and effect', () => {
    const later = { ...u, timeAdded: '2025-01-01T00:01:00Z' };
    assert.deepEqual(swapTaints([u, user], [later], []), [later, user]);
  });
  it('undefined when nothing changes', () => {
    assert.equal(swapTaints([u], [u], [nr]), undefined);
    assert.equal(swapTaints(undefined, [], [nr]), undefined);
  });
  it('removal of the last taint gives an empty list', () => assert.deepEqual(swapTaints([nr], [], [nr]), []));
});

describe('TokenBucket and RateLimitedTimedQueue', () => {
  const fakeClock = (start = t0) => { let now = start; return { now: () => new Date(now), advance: (ms: number) => { now += ms; } }; };

  it('a bucket starts full with one token and refills at qps', () => {
    const c = fakeClock();
    const b = new TokenBucket(0.1, 1, c);
    assert.equal(b.tryAccept(), true);
    assert.equal(b.tryAccept(), false);
    c.advance(9_999);
    assert.equal(b.tryAccept(), false);
    c.advance(1);
    assert.equal(b.tryAccept(), true);
  });

  it('qps 0 never accepts', () => assert.equal(new TokenBucket(0, 1, fakeClock()).tryAccept(), false));

  it('processes one node per token; a processed node is not queued again until removed', async () => {
    const c = fakeClock();
    const q = new RateLimitedTimedQueue(1, c);
    assert.equal(q.add('a', 'ua'), true);
    assert.equal(q.add('b', 'ub'), true);
    assert.equal(q.add('a', 'ua'), false);
    const seen: string[] = [];
    await q.try(async (v) => { seen.push(v.value); return [true, 0]; });
    assert.deepEqual(seen, ['a']);
    c.advance(1000);
    await q.try(async (v) => { seen.push(v.value); return [true, 0]; });
    assert.deepEqual(seen, ['a', 'b']);
    assert.equal(q.add('a', 'ua'), false, 'still in the set after processing');
    assert.equal(q.remove('a'), true);
    assert.equal(q.add('a', 'ua'), true);
  });

  it('a failed action is retried after its wait', async () => {
    const c = fakeClock();
    const q = new RateLimitedTimedQueue(1000, c);
    q.add('a', 'ua');
    let calls = 0;
    await q.try(async () => { calls++; return [false, 50]; });
    assert.equal(calls, 1);
    c.advance(10);
    await q.try(async () => { calls++; return [true, 0]; });
    assert.equal(calls, 1, 'not yet due');
    c.advance(50);
    await q.try(async () => { calls++; return [true, 0]; });
    assert.equal(calls, 2);
    assert.equal(q.length, 0);
  });

  it('swapLimiter to 0 stops processing', async () => {
    const q = new RateLimitedTimedQueue(1, fakeClock());
    q.swapLimiter(0);
    q.add('a', 'ua');
    let calls = 0;
    await q.try(async () => { calls++; return [true, 0]; });
    assert.equal(calls, 0);
  });
});

describe('labelsToReconcile', () => {
  const table: [string, Record<string, string> | undefined, Record<string, string>][] = [
    ['no labels', undefined, {}],
    ['adds missing beta labels', { 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' }, { 'beta.kubernetes.io/os': 'linux', 'beta.kubernetes.io/arch': 'amd64' }],
    ['fixes a differing beta label', { 'kubernetes.io/os': 'linux', 'beta.kubernetes.io/os': 'windows' }, { 'beta.kubernetes.io/os': 'linux' }],
    ['in step', { 'kubernetes.io/os': 'linux', 'beta.kubernetes.io/os': 'linux' }, {}],
    ['no primary: nothing', { 'beta.kubernetes.io/os': 'linux' }, {}],
  ];
  for (const [name, labels, want] of table) it(name, () => assert.deepEqual(labelsToReconcile(labels), want));
});
