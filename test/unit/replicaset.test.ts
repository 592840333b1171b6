/**
 * The ReplicaSet controller's pure rules, table-driven: the manage plan
 * (diff, burst), the scale-down ranking, status numbers with the
 * ReplicaFailure condition, slow-start batches and UID-tracking expectations.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { planManage, podsToDelete, calculateStatus, slowStartBatch, podFromTemplate, replicaSetKind, replicationControllerKind } from '../../src/controllers/replicaset/index.js';
import { UIDTrackingExpectations } from '../../src/controllers/expectations.js';
import { matchesSelector } from '../../src/api/labels.js';

const now = new Date('2026-01-01T12:00:00Z');
const ago = (s: number) => new Date(now.getTime() - s * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

interface PodOpts { node?: string; phase?: string; ready?: boolean; readySince?: number; restarts?: number; created?: number; cost?: string; labels?: Record<string, string>; uid?: string }
function pod(name: string, o: PodOpts = {}): Pod {
  const conditions = o.ready ? [{ type: 'Ready', status: 'True', lastTransitionTime: ago(o.readySince ?? 100) }] : [];
  return {
    metadata: {
      name, namespace: 'default', uid: o.uid ?? name, labels: o.labels ?? { app: 'a' }, creationTimestamp: ago(o.created ?? 1000),
      ...(o.cost ? { annotations: { 'controller.kubernetes.io/pod-deletion-cost': o.cost } } : {}),
    },
    spec: { nodeName: o.node, containers: [{ name: 'c' }] },
    status: { phase: o.phase ?? 'Running', conditions, containerStatuses: [{ name: 'c', restartCount: o.restarts ?? 0 } as any] },
  };
}

describe('planManage: diff between active pods and spec.replicas, capped at the burst', () => {
  const pods = (n: number) => Array.from({ length: n }, (_, i) => pod(`p${i}`, { node: 'n', ready: true }));
  const cases: { name: string; replicas: number; active: number; burst: number; create: number; del: number }[] = [
    { name: 'nothing to do', replicas: 3, active: 3, burst: 500, create: 0, del: 0 },
    { name: 'create the missing', replicas: 5, active: 2, burst: 500, create: 3, del: 0 },
    { name: 'creates capped at the burst', replicas: 1000, active: 0, burst: 500, create: 500, del: 0 },
    { name: 'delete the extra', replicas: 1, active: 4, burst: 500, create: 0, del: 3 },
    { name: 'deletes capped at the burst', replicas: 0, active: 10, burst: 4, create: 0, del: 4 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const active = pods(c.active);
      const plan = planManage(c.replicas, active, active, c.burst, now);
      assert.equal(plan.create, c.create);
      assert.equal(plan.delete.length, c.del);
    });
  }
});

describe('podsToDelete ranks as ActivePodsWithRanks', () => {
  const cases: { name: string; pods: Pod[]; related?: Pod[]; first: string }[] = [
    { name: '1. unassigned before assigned', pods: [pod('assigned', { node: 'n1', ready: true }), pod('unassigned', { phase: 'Pending' })], first: 'unassigned' },
    { name: '2. pending before running', pods: [pod('running', { node: 'n1' }), pod('pending', { node: 'n1', phase: 'Pending' })], first: 'pending' },
    { name: '2. unknown before running', pods: [pod('running', { node: 'n1' }), pod('unknown', { node: 'n1', phase: 'Unknown' })], first: 'unknown' },
    { name: '2. pending before unknown', pods: [pod('unknown', { node: 'n1', phase: 'Unknown' }), pod('pending', { node: 'n1', phase: 'Pending' })], first: 'pending' },
    { name: '3. not ready before ready', pods: [pod('ready', { node: 'n1', ready: true }), pod('notready', { node: 'n1' })], first: 'notready' },
    { name: '4. lower deletion cost first', pods: [pod('dear', { node: 'n1', ready: true, cost: '10' }), pod('cheap', { node: 'n2', ready: true, cost: '-5' })], first: 'cheap' },
    {
      name: '5. doubled up on a node first',
      pods: [pod('alone', { node: 'n1', ready: true }), pod('crowded', { node: 'n2', ready: true })],
      related: [pod('alone', { node: 'n1' }), pod('crowded', { node: 'n2' }), pod('sibling', { node: 'n2' })],
      first: 'crowded',
    },
    { name: '6. ready for less time first', pods: [pod('old', { node: 'n1', ready: true, readySince: 4000 }), pod('young', { node: 'n2', ready: true, readySince: 10 })], first: 'young' },
    { name: '7. more restarts first', pods: [pod('calm', { node: 'n1', ready: true, readySince: 100 }), pod('crashy', { node: 'n2', ready: true, readySince: 100, restarts: 5 })], first: 'crashy' },
    { name: '8. newer first', pods: [pod('older', { node: 'n1', created: 5000 }), pod('newer', { node: 'n2', created: 10 })], first: 'newer' },
    {
      name: '6/8. same power-of-two age bucket: the uid decides',
      pods: [pod('b', { node: 'n1', created: 1000, uid: 'uid-b' }), pod('a', { node: 'n2', created: 1001, uid: 'uid-a' })],
      first: 'a',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const out = podsToDelete(c.pods, c.related ?? c.pods, 1, now);
      assert.equal(out[0].metadata!.name, c.first);
      // The order does not depend on the input order.
      assert.equal(podsToDelete([...c.pods].reverse(), c.related ?? c.pods, 1, now)[0].metadata!.name, c.first);
    });
  }
  it('deleting all needs no ranking', () => {
    const ps = [pod('x'), pod('y')];
    assert.deepEqual(podsToDelete(ps, ps, 5, now).map((p) => p.metadata!.name), ['x', 'y']);
  });
});

describe('calculateStatus', () => {
  const base = { replicas: 3, minReadySeconds: 0, templateLabels: { app: 'a', tier: 'web' }, status: undefined, generation: 4, now };
  it('counts replicas, fully labeled, ready and available pods and observes the generation', () => {
    const active = [
      pod('a', { ready: true, readySince: 5, labels: { app: 'a', tier: 'web' } }),
      pod('b', { ready: true, readySince: 60, labels: { app: 'a' } }),
      pod('c', { labels: { app: 'a', tier: 'web' } }),
    ];
    assert.deepEqual(calculateStatus({ ...base, active }), { replicas: 3, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 2, observedGeneration: 4 });
    const withMinReady = calculateStatus({ ...base, minReadySeconds: 30, active });
    assert.equal(withMinReady.readyReplicas, 2);
    assert.equal(withMinReady.availableReplicas, 1, 'only the pod ready for 60 s is available with minReadySeconds 30');
  });
  it('sets ReplicaFailure FailedCreate on a create error, once, and removes it on success', () => {
    const failed = calculateStatus({ ...base, active: [pod('a')], manageError: 'pods "x" is forbidden: exceeded quota: q' });
    assert.deepEqual(failed.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
      [['ReplicaFailure', 'True', 'FailedCreate', 'pods "x" is forbidden: exceeded quota: q']]);
    const again = calculateStatus({ ...base, status: failed, active: [pod('a')], manageError: 'another error' });
    assert.equal(again.conditions?.[0].message, 'pods "x" is forbidden: exceeded quota: q');
    const healed = calculateStatus({ ...base, status: failed, active: [pod('a'), pod('b'), pod('c')] });
    assert.equal(healed.conditions, undefined);
  });
  it('reports FailedDelete when there are too many pods', () => {
    const s = calculateStatus({ ...base, replicas: 1, active: [pod('a'), pod('b')], manageError: 'boom' });
    assert.equal(s.conditions?.[0].reason, 'FailedDelete');
  });
});

describe('slowStartBatch', () => {
  it('runs batches of 1, 2, 4, ... and stops after a batch with a failure', async () => {
    const cases: { count: number; failAt?: number; successes: number; calls: number }[] = [
      { count: 10, successes: 10, calls: 10 },
      { count: 0, successes: 0, calls: 0 },
      { count: 10, failAt: 1, successes: 0, calls: 1 },
      { count: 10, failAt: 2, successes: 2, calls: 3 }, // batches 1, 2 (second call of it fails)
      { count: 10, failAt: 5, successes: 6, calls: 7 }, // batches 1, 2, 4
    ];
    for (const c of cases) {
      let calls = 0;
      const r = await slowStartBatch(c.count, 1, async () => {
        calls++;
        if (calls === c.failAt) throw new Error('quota');
      });
      assert.equal(r.successes, c.successes, JSON.stringify(c));
      assert.equal(calls, c.calls, JSON.stringify(c));
      assert.equal(r.error !== undefined, c.failAt !== undefined);
    }
  });
});

describe('UIDTrackingExpectations', () => {
  it('counts creations and tracks deletions by pod key, once each', () => {
    const clock = { now: () => now };
    const e = new UIDTrackingExpectations(clock);
    assert.equal(e.satisfied('ns/rs'), true);
    e.expectCreations('ns/rs', 2);
    e.creationObserved('ns/rs');
    assert.equal(e.satisfied('ns/rs'), false);
    e.creationObserved('ns/rs');
    assert.equal(e.satisfied('ns/rs'), true);
    e.expectDeletions('ns/rs', ['ns/a', 'ns/b']);
    e.deletionObserved('ns/rs', 'ns/a');
    e.deletionObserved('ns/rs', 'ns/a'); // seen terminating, then gone: counts once
    assert.equal(e.satisfied('ns/rs'), false);
    e.deletionObserved('ns/rs', 'ns/b');
    assert.equal(e.satisfied('ns/rs'), true);
  });
  it('expires after the timeout', () => {
    let t = now.getTime();
    const e = new UIDTrackingExpectations({ now: () => new Date(t) }, 1000);
    e.expectCreations('k', 1);
    assert.equal(e.satisfied('k'), false);
    t += 1001;
    assert.equal(e.satisfied('k'), true);
  });
});

describe('pods from the template and the kind adapters', () => {
  it('GenerateName <owner>-, the template labels, annotations and spec, the controller reference', () => {
    const rs = { metadata: { name: 'web-abc', uid: 'u1' }, spec: { selector: {}, template: { metadata: { labels: { app: 'a' }, annotations: { x: 'y' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } };
    const p = podFromTemplate(rs, { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc', uid: 'u1', controller: true });
    assert.equal(p.metadata!.generateName, 'web-abc-');
    assert.deepEqual(p.metadata!.labels, { app: 'a' });
    assert.deepEqual(p.metadata!.annotations, { x: 'y' });
    assert.equal(p.metadata!.ownerReferences![0].uid, 'u1');
    assert.equal(p.spec!.containers[0].image, 'i');
  });
  it('ReplicaSet selectors are LabelSelectors, ReplicationController selectors label maps', () => {
    const rsSel = replicaSetKind.selector({ spec: { selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['a', 'b'] }] } } })!;
    assert.equal(matchesSelector(rsSel, { app: 'b' }), true);
    assert.equal(replicaSetKind.selector({ spec: { selector: { matchExpressions: [{ key: 'app', operator: 'Bogus' }] } } }), undefined);
    const rcSel = replicationControllerKind.selector({ spec: { selector: { app: 'a' } } })!;
    assert.equal(matchesSelector(rcSel, { app: 'a', x: 'y' }), true);
    assert.equal(matchesSelector(rcSel, { app: 'b' }), false);
  });
});
