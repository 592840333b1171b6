/**
 * The Deployment controller's pure rules, table-driven: fenceposts (surge
 * rounds up, unavailable down), rollout step sizes through a whole rolling
 * update, proportional scaling mid-rollout, the template hash, revision
 * annotations and the status conditions.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import {
  resolveFenceposts, maxSurge, maxUnavailable, planNewReplicaSet, planOldReplicaSets, planScale, computeHash, equalIgnoreHash,
  setNewReplicaSetAnnotations, rolloutStatus, calculateStatus, deploymentTimedOut, stuckRequeueMs, findActiveOrLatest,
} from '../../src/controllers/deployment/index.js';

const now = new Date('2026-01-01T12:00:00Z');

function deployment(replicas: number, surge: number | string = '25%', unavailable: number | string = '25%', extra: Partial<Deployment['spec']> = {}): Deployment {
  return {
    metadata: { name: 'web', namespace: 'default', uid: 'd1', generation: 1 },
    spec: {
      replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'v1' }] } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } }, progressDeadlineSeconds: 600, ...extra,
    },
  };
}

let seq = 0;
function rs(name: string, replicas: number, availableReplicas = replicas, annotations: Record<string, string> = {}): ReplicaSet {
  seq++;
  return {
    metadata: { name, uid: name, creationTimestamp: new Date(now.getTime() - 100_000 + seq * 1000).toISOString(), annotations },
    spec: { replicas, selector: { matchLabels: { app: 'web' } } },
    status: { replicas, availableReplicas, readyReplicas: availableReplicas },
  };
}

describe('resolveFenceposts: maxSurge rounds up, maxUnavailable rounds down', () => {
  const cases: [number, number | string, number | string, number, number][] = [
    [10, '25%', '25%', 3, 2],
    [4, '25%', '25%', 1, 1],
    [3, '25%', '25%', 1, 0],
    [1, '25%', '25%', 1, 0],
    [10, 2, 0, 2, 0],
    [10, '0%', '0%', 0, 1], // both zero: maxUnavailable becomes 1
    [3, 0, '10%', 0, 1], // 10% of 3 rounds down to 0, surge 0 too: 1
    [1000, '25%', '25%', 250, 250],
    [5, '50%', '50%', 3, 2],
  ];
  for (const [replicas, s, u, surge, unavail] of cases) {
    it(`${replicas} replicas, maxSurge ${s}, maxUnavailable ${u} → ${surge}/${unavail}`, () => {
      assert.deepEqual(resolveFenceposts(deployment(replicas, s, u)), { surge, unavailable: unavail });
    });
  }
  it('Recreate has neither; maxUnavailable never exceeds replicas', () => {
    const d = deployment(10, 3, 3, { strategy: { type: 'Recreate' } });
    assert.equal(maxSurge(d), 0);
    assert.equal(maxUnavailable(d), 0);
    assert.equal(maxUnavailable(deployment(2, 0, 5)), 2);
  });
});

/**
 * Drives a rolling update to the end with the planning functions alone,
 * making every pod available as soon as it exists, and checks each step
 * against maxSurge and maxUnavailable.
 */
function simulateRollout(replicas: number, surge: number | string, unavailable: number | string): { steps: [number, number][] } {
  const d = deployment(replicas, surge, unavailable);
  const old: any = rs('old', replicas);
  const neu: any = rs('new', 0);
  const { surge: s, unavailable: u } = resolveFenceposts(d);
  const steps: [number, number][] = [];
  for (let i = 0; i < 100 && !(old.spec!.replicas === 0 && neu.spec!.replicas === replicas); i++) {
    const all = [old, neu];
    const up = planNewReplicaSet(d, all, neu);
    if (up !== undefined) {
      neu.spec!.replicas = up;
    } else {
      for (const a of planOldReplicaSets(d, all, old.spec!.replicas! > 0 ? [old] : [], neu)) (a.rs.spec as any).replicas = a.replicas;
      // Pods become available between syncs.
      neu.status = { replicas: neu.spec!.replicas, availableReplicas: neu.spec!.replicas };
    }
    old.status = { replicas: old.spec!.replicas, availableReplicas: old.spec!.replicas };
    const total = old.spec!.replicas! + neu.spec!.replicas!;
    const availableNow = old.status.availableReplicas! + (neu.status?.availableReplicas ?? 0);
    assert.ok(total <= replicas + s, `total ${total} exceeds ${replicas}+${s}`);
    assert.ok(availableNow >= replicas - u, `available ${availableNow} below ${replicas}-${u}`);
    const last = steps.at(-1);
    if (!last || last[0] !== old.spec.replicas || last[1] !== neu.spec.replicas) steps.push([old.spec.replicas, neu.spec.replicas]);
  }
  return { steps };
}

describe('rolling update step sizes', () => {
  const cases: { replicas: number; surge: number | string; unavailable: number | string; steps: [number, number][] }[] = [
    // Old down by maxUnavailable while the surge pods start, then in steps as they become available.
    { replicas: 10, surge: '25%', unavailable: '25%', steps: [[10, 3], [8, 3], [8, 5], [5, 5], [5, 8], [3, 8], [3, 10], [0, 10]] },
    // The docs' example: one new pod first, then one old pod goes, and so on.
    { replicas: 3, surge: 1, unavailable: 0, steps: [[3, 1], [2, 1], [2, 2], [1, 2], [1, 3], [0, 3]] },
    // No surge: an old pod goes first.
    { replicas: 4, surge: 0, unavailable: 1, steps: [[3, 0], [3, 1], [2, 1], [2, 2], [1, 2], [1, 3], [0, 3], [0, 4]] },
    { replicas: 1000, surge: '25%', unavailable: '25%', steps: [[1000, 250], [750, 250], [750, 500], [500, 500], [500, 750], [250, 750], [250, 1000], [0, 1000]] },
  ];
  for (const c of cases) {
    it(`${c.replicas} replicas, surge ${c.surge}, unavailable ${c.unavailable}`, () => {
      assert.deepEqual(simulateRollout(c.replicas, c.surge, c.unavailable).steps, c.steps);
    });
  }
  it('old replicas that are not available go first, even below the available minimum', () => {
    const d = deployment(10, '25%', '25%');
    const old = rs('old', 10, 6);
    const neu = rs('new', 3, 0);
    // minAvailable 8, new unavailable 3: 13 - 8 - 3 = 2 may go, the unhealthy ones.
    assert.deepEqual(planOldReplicaSets(d, [old, neu], [old], neu).map((a) => a.replicas), [8]);
  });
  it('pods of an old ReplicaSet not yet deleted count against maxSurge', () => {
    const d = deployment(6, 2, 1);
    const old = rs('old', 6);
    const neu = rs('new', 2);
    old.spec!.replicas = 3; // just scaled down; its controller has not deleted the pods yet
    assert.equal(planNewReplicaSet(d, [old, neu], neu), undefined);
    old.status!.replicas = 3;
    assert.equal(planNewReplicaSet(d, [old, neu], neu), 5);
  });
  it('the new ReplicaSet is scaled down to replicas when larger', () => {
    assert.equal(planNewReplicaSet(deployment(3), [rs('new', 5)], rs('new2', 5)), 3);
  });
});

describe('proportional scaling mid-rollout', () => {
  it('spreads added replicas by size, leftovers to the largest', () => {
    // 10 → 15 replicas with 25%: allowed 15 + 4 = 19; current 13 (8 old + 5 new), max-replicas 13.
    const d = deployment(15);
    const old = rs('old', 8, 8, { 'deployment.kubernetes.io/desired-replicas': '10', 'deployment.kubernetes.io/max-replicas': '13' });
    const neu = rs('new', 5, 0, { 'deployment.kubernetes.io/desired-replicas': '10', 'deployment.kubernetes.io/max-replicas': '13' });
    const sizes = Object.fromEntries(planScale(d, neu, [old]).map((a) => [a.rs.metadata!.name, a.replicas]));
    // old: round(8*19/13)=12 (+4), new: round(5*19/13)=7 (+2 capped at the 2 left): 12 + 7 = 19.
    assert.deepEqual(sizes, { old: 12, new: 7 });
  });
  it('scales down proportionally, older first on ties', () => {
    const d = deployment(5, 1, 1);
    const a = rs('a', 3, 3, { 'deployment.kubernetes.io/max-replicas': '11' });
    const b = rs('b', 3, 3, { 'deployment.kubernetes.io/max-replicas': '11' });
    const plan = planScale(d, b, [a]);
    const total = plan.reduce((n, x) => n + x.replicas, 0);
    assert.equal(total, 6, 'replicas + maxSurge');
    assert.equal(plan[0].rs.metadata!.name, 'a');
  });
  it('a single active ReplicaSet takes the whole count; none: the newest', () => {
    assert.deepEqual(planScale(deployment(7), rs('new', 3), [rs('old', 0)]).map((a) => [a.rs.metadata!.name, a.replicas]), [['new', 7]]);
    const older = rs('older', 0);
    const newer = rs('newer', 0);
    assert.equal(findActiveOrLatest(undefined, [older, newer])?.metadata!.name, 'newer');
  });
  it('a saturated new ReplicaSet sends the old ones to zero', () => {
    const d = deployment(4);
    const neu = rs('new', 4, 4, { 'deployment.kubernetes.io/desired-replicas': '4' });
    assert.deepEqual(planScale(d, neu, [rs('old', 2)]).map((a) => a.replicas), [0]);
  });
});

describe('template hash and revisions', () => {
  const t = deployment(1).spec!.template;
  it('is 10 or fewer characters of the safe alphabet, stable across key order, and moves with collisionCount', () => {
    const h = computeHash(t);
    assert.match(h, /^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    assert.equal(computeHash({ spec: t.spec, metadata: t.metadata }), h);
    assert.notEqual(computeHash(t, 1), h);
    assert.notEqual(computeHash({ ...t, spec: { containers: [{ name: 'c', image: 'v2' }] } }), h);
  });
  it('equalIgnoreHash ignores only the pod-template-hash label', () => {
    const withHash = { ...t, metadata: { labels: { app: 'web', 'pod-template-hash': 'abc' } } };
    assert.equal(equalIgnoreHash(t, withHash), true);
    assert.equal(equalIgnoreHash(t, { ...withHash, metadata: { labels: { app: 'other', 'pod-template-hash': 'abc' } } }), false);
  });
  it('setNewReplicaSetAnnotations copies annotations, raises the revision and keeps the history on rollback', () => {
    const d = deployment(3);
    (d.metadata as any).annotations = { 'kubernetes.io/change-cause': 'v2', 'kubectl.kubernetes.io/last-applied-configuration': '{}', 'deployment.kubernetes.io/revision': '9' };
    const r = rs('r', 0, 0, { 'deployment.kubernetes.io/revision': '1' });
    assert.equal(setNewReplicaSetAnnotations(d, r, 3, true), true);
    assert.deepEqual(r.metadata!.annotations, { 'deployment.kubernetes.io/revision': '3', 'deployment.kubernetes.io/revision-history': '1', 'kubernetes.io/change-cause': 'v2' });
    setNewReplicaSetAnnotations(d, r, 5, true);
    assert.equal(r.metadata!.annotations!['deployment.kubernetes.io/revision-history'], '1,3');
    const fresh = rs('f', 0, 0);
    setNewReplicaSetAnnotations(d, fresh, 1, false);
    assert.equal(fresh.metadata!.annotations!['deployment.kubernetes.io/desired-replicas'], '3');
    assert.equal(fresh.metadata!.annotations!['deployment.kubernetes.io/max-replicas'], '4');
  });
});

describe('status and conditions', () => {
  it('counts from the ReplicaSets; Available by the minimum', () => {
    const d = deployment(4);
    const s = calculateStatus([rs('old', 2, 2), rs('new', 3, 1)], rs('new', 3, 1), d, now);
    assert.equal(s.replicas, 5);
    assert.equal(s.availableReplicas, 3);
    assert.equal(s.unavailableReplicas, 2);
    assert.deepEqual(s.conditions?.map((c) => [c.type, c.status, c.reason]), [['Available', 'True', 'MinimumReplicasAvailable']]);
    const low = calculateStatus([rs('new', 4, 1)], undefined, d, now);
    assert.deepEqual(low.conditions?.map((c) => [c.type, c.status, c.reason]), [['Available', 'False', 'MinimumReplicasUnavailable']]);
  });
  it('Progressing: NewReplicaSetAvailable when complete, ReplicaSetUpdated on progress, ProgressDeadlineExceeded after the deadline', () => {
    const d = deployment(2);
    const neu = rs('web-1', 2, 2);
    const done = rolloutStatus([neu], neu, d, now);
    assert.equal(done.conditions?.find((c) => c.type === 'Progressing')?.reason, 'NewReplicaSetAvailable');
    const stuck = deployment(2, '25%', '25%', { progressDeadlineSeconds: 10 });
    stuck.status = {
      replicas: 2, updatedReplicas: 1, availableReplicas: 1, readyReplicas: 1,
      conditions: [{ type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', lastUpdateTime: new Date(now.getTime() - 20_000).toISOString() }],
    };
    const olds = rs('web-0', 1, 1);
    const half = rs('web-1', 1, 0);
    (half.status as any).replicas = 1;
    const s = rolloutStatus([olds, half], half, stuck, now);
    assert.equal(deploymentTimedOut(stuck, s, now), true);
    assert.deepEqual(s.conditions?.filter((c) => c.type === 'Progressing').map((c) => [c.status, c.reason, c.message]),
      [['False', 'ProgressDeadlineExceeded', 'ReplicaSet "web-1" has timed out progressing.']]);
    const moving = rolloutStatus([olds, rs('web-1', 1, 1)], rs('web-1', 1, 1), stuck, now);
    assert.equal(moving.conditions?.find((c) => c.type === 'Progressing')?.reason, 'ReplicaSetUpdated');
  });
  it('requeues a stuck rollout when its deadline passes', () => {
    const d = deployment(2, '25%', '25%', { progressDeadlineSeconds: 60 });
    d.status = { conditions: [{ type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', lastUpdateTime: new Date(now.getTime() - 20_000).toISOString() }] };
    assert.equal(stuckRequeueMs(d, { replicas: 1 }, now), 41_000);
    assert.equal(stuckRequeueMs(deployment(2), { replicas: 1 }, now), undefined);
  });
});
