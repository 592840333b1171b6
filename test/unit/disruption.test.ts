/** The disruption controller's arithmetic and the eviction rules on budgets (upstream pkg/controller/disruption, eviction.go). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  budgetStatus, buildDisruptedPodMap, countHealthyPods, deletionTimeoutMs, expectedPodCount, failSafeStatus, staleDisruptionWait,
  withDisruptionTargetCleared, type ScaleOf,
} from '../../src/controllers/disruption/index.js';
import { budgetsCoveringPod, evictionCanIgnoreBudget, podsSelectedByBudget, unhealthyPodMayBeEvicted } from '../../src/api/disruptionbudget.js';

const now = new Date('2026-01-01T00:10:00Z');
const ready = (r: boolean) => ({ conditions: [{ type: 'Ready', status: r ? 'True' : 'False' }], phase: 'Running' });
function pod(name: string, o: { ready?: boolean; owner?: string; deleting?: boolean; labels?: Record<string, string> } = {}): any {
  return {
    metadata: {
      name, namespace: 'default', labels: o.labels ?? { app: 'web' },
      ...(o.owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: o.owner, uid: `uid-${o.owner}`, controller: true }] } : {}),
      ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    status: ready(o.ready ?? true),
  };
}
const pdb = (spec: any, status: any = {}, generation = 1) => ({ metadata: { name: 'b', namespace: 'default', generation }, spec: { selector: { matchLabels: { app: 'web' } }, ...spec }, status });
const scales: Record<string, number> = { web: 5, api: 3 };
const scaleOf: ScaleOf = async (ref) => (ref.name in scales ? { uid: ref.uid, scale: scales[ref.name] } : undefined);

describe('expectedPodCount', () => {
  const pods = [pod('a', { owner: 'web' }), pod('b', { owner: 'web' }), pod('c', { owner: 'api' })];
  const table: [string, any, number, number][] = [
    ['minAvailable 2: expected = selected pods', { minAvailable: 2 }, 3, 2],
    ['minAvailable 50%: of the scales (8), rounded up', { minAvailable: '50%' }, 8, 4],
    ['minAvailable 30%: 2.4 rounds up to 3', { minAvailable: '30%' }, 8, 3],
    ['maxUnavailable 1', { maxUnavailable: 1 }, 8, 7],
    ['maxUnavailable 30%: 2.4 rounds up to 3 unavailable', { maxUnavailable: '30%' }, 8, 5],
    ['maxUnavailable 100%', { maxUnavailable: '100%' }, 8, 0],
    ['maxUnavailable above the scale: desiredHealthy 0', { maxUnavailable: 20 }, 8, 0],
    ['neither: nothing expected', {}, 0, 0],
  ];
  for (const [name, spec, expected, desired] of table) {
    it(name, async () => {
      const r = await expectedPodCount(pdb(spec), pods, scaleOf);
      assert.deepEqual([r.expectedCount, r.desiredHealthy], [expected, desired]);
    });
  }

  it('pods without a controller are unmanaged and add nothing to the scales', async () => {
    const r = await expectedPodCount(pdb({ maxUnavailable: 1 }), [pod('a', { owner: 'web' }), pod('bare')], scaleOf);
    assert.deepEqual(r, { expectedCount: 5, desiredHealthy: 4, unmanagedPods: ['bare'] });
  });

  it('a controller that cannot be found is an error (the fail-safe status follows)', async () => {
    await assert.rejects(expectedPodCount(pdb({ minAvailable: '50%' }), [pod('x', { owner: 'gone' })], scaleOf), /found no controllers for pod "x"/);
  });
});

describe('countHealthyPods and disruptedPods', () => {
  const recent = new Date(now.getTime() - 1000).toISOString();
  const old = new Date(now.getTime() - deletionTimeoutMs - 1000).toISOString();

  it('counts ready pods that are neither terminating nor recently disrupted', () => {
    const pods = [pod('a'), pod('b', { ready: false }), pod('c', { deleting: true }), pod('d'), pod('e')];
    assert.equal(countHealthyPods(pods, { d: recent, e: old }, now), 2, 'a and e');
  });

  it('keeps the entries of present, live pods younger than DeletionTimeout, and rechecks when the first expires', () => {
    const pods = [pod('a'), pod('b'), pod('c', { deleting: true })];
    const r = buildDisruptedPodMap(pods, pdb({}, { disruptedPods: { a: recent, b: old, c: recent, gone: recent } }), now);
    assert.deepEqual(r.disruptedPods, { a: recent });
    assert.equal(r.recheckAt, Date.parse(recent) + deletionTimeoutMs);
  });
});

describe('budgetStatus', () => {
  it('disruptionsAllowed = currentHealthy - desiredHealthy, with the DisruptionAllowed condition', () => {
    const s = budgetStatus(pdb({ minAvailable: 2 }), { currentHealthy: 3, desiredHealthy: 2, expectedCount: 3, disruptedPods: {} }, now)!;
    assert.equal(s.disruptionsAllowed, 1);
    assert.equal(s.observedGeneration, 1);
    assert.deepEqual(s.conditions!.map((c: any) => [c.type, c.status, c.reason]), [['DisruptionAllowed', 'True', 'SufficientPods']]);
  });

  it('never negative, and 0 when no pods are expected', () => {
    const short = budgetStatus(pdb({ minAvailable: 3 }), { currentHealthy: 1, desiredHealthy: 3, expectedCount: 3, disruptedPods: {} }, now)!;
    assert.equal(short.disruptionsAllowed, 0);
    assert.deepEqual(short.conditions!.map((c: any) => [c.status, c.reason]), [['False', 'InsufficientPods']]);
    const none = budgetStatus(pdb({ minAvailable: 0 }), { currentHealthy: 2, desiredHealthy: 0, expectedCount: 0, disruptedPods: {} }, now)!;
    assert.equal(none.disruptionsAllowed, 0);
  });

  it('undefined when the stored status already says so', () => {
    const counts = { currentHealthy: 3, desiredHealthy: 2, expectedCount: 3, disruptedPods: {} };
    const first = budgetStatus(pdb({ minAvailable: 2 }), counts, now);
    assert.equal(budgetStatus(pdb({ minAvailable: 2 }, first), counts, new Date(now.getTime() + 5000)), undefined);
  });

  it('the fail-safe status allows nothing and says why', () => {
    const s = failSafeStatus(pdb({}, { disruptionsAllowed: 4 }), new Error('boom'), now);
    assert.equal(s.disruptionsAllowed, 0);
    assert.deepEqual(s.conditions!.map((c: any) => [c.status, c.reason, c.message]), [['False', 'SyncFailed', 'boom']]);
  });
});

describe('budget selection and eviction rules', () => {
  it('eviction ignores budgets with an empty selector; the controller counts every pod of the namespace for them', () => {
    const empty = { ...pdb({}), spec: { selector: {} } };
    const p = pod('a');
    assert.deepEqual(budgetsCoveringPod([empty, pdb({})], p).length, 1);
    assert.equal(podsSelectedByBudget(empty, [p, pod('z', { labels: { other: 'x' } })]).length, 2);
    assert.equal(podsSelectedByBudget({ ...pdb({}), spec: {} }, [p]).length, 0, 'a nil selector selects nothing');
  });

  it('terminal, pending and terminating pods skip the budget', () => {
    for (const phase of ['Succeeded', 'Failed', 'Pending']) assert.ok(evictionCanIgnoreBudget({ metadata: {}, status: { phase } }));
    assert.ok(evictionCanIgnoreBudget(pod('a', { deleting: true })));
    assert.ok(!evictionCanIgnoreBudget(pod('a')));
  });

  it('an unready pod: AlwaysAllow, or IfHealthyBudget while the budget is met', () => {
    const unready = pod('u', { ready: false });
    assert.ok(unhealthyPodMayBeEvicted(pdb({ unhealthyPodEvictionPolicy: 'AlwaysAllow' }, { currentHealthy: 0, desiredHealthy: 2 }), unready));
    assert.ok(unhealthyPodMayBeEvicted(pdb({}, { currentHealthy: 2, desiredHealthy: 2 }), unready));
    assert.ok(!unhealthyPodMayBeEvicted(pdb({ unhealthyPodEvictionPolicy: 'IfHealthyBudget' }, { currentHealthy: 1, desiredHealthy: 2 }), unready));
    assert.ok(!unhealthyPodMayBeEvicted(pdb({}, { currentHealthy: 0, desiredHealthy: 0 }), unready));
    assert.ok(!unhealthyPodMayBeEvicted(pdb({ unhealthyPodEvictionPolicy: 'AlwaysAllow' }, {}), pod('r')), 'ready pods spend a disruption');
  });
});

describe('stale DisruptionTarget conditions', () => {
  const marked = (o: { reason?: string; at?: string; deleting?: boolean; phase?: string } = {}) => ({
    metadata: { name: 'p', namespace: 'default', ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:09:00Z' } : {}) },
    status: {
      phase: o.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: 'True' }, { type: 'DisruptionTarget', status: 'True', reason: o.reason ?? 'EvictionByEvictionAPI', message: 'x', lastTransitionTime: o.at ?? '2026-01-01T00:09:00Z' }],
    },
  });

  it('waits out the two minutes from the condition, then is due', () => {
    assert.equal(staleDisruptionWait(marked(), now), 60_000);
    assert.equal(staleDisruptionWait(marked({ at: '2026-01-01T00:00:00Z' }), now), 0);
  });

  it('terminating or terminal pods, kubelet conditions and pods without one are left alone', () => {
    assert.equal(staleDisruptionWait(marked({ deleting: true }), now), undefined);
    assert.equal(staleDisruptionWait(marked({ phase: 'Failed' }), now), undefined);
    assert.equal(staleDisruptionWait(marked({ reason: 'TerminationByKubelet' }), now), undefined);
    assert.equal(staleDisruptionWait(pod('plain'), now), undefined);
  });

  it('resets the condition to False without reason or message', () => {
    const cleared = withDisruptionTargetCleared(marked(), '2026-01-01T00:10:00Z');
    assert.deepEqual(cleared.status!.conditions![1], { type: 'DisruptionTarget', status: 'False', lastTransitionTime: '2026-01-01T00:10:00Z' });
    assert.deepEqual(cleared.status!.conditions![0], { type: 'Ready', status: 'True' });
  });
});
