/**
 * The StatefulSet planner (upstream updateStatefulSet / processReplica /
 * processCondemned): which pods a sync creates, deletes or updates, and where
 * an OrderedReady walk stops, for both pod management policies, scaling,
 * failed and terminating pods, RollingUpdate with a partition, OnDelete,
 * ordinals.start, identity repair and claims.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { planStatefulSet, Plan, computeStatus, completeRollingUpdate, inconsistentStatus, statusObject } from '../../src/controllers/statefulset/index.js';

const now = new Date('2024-05-01T12:00:00Z');
const ago = (s: number) => new Date(now.getTime() - s * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

interface SetOpts {
  replicas?: number; parallel?: boolean; onDelete?: boolean; partition?: number; minReady?: number; start?: number;
  claims?: boolean; whenScaled?: string; whenDeleted?: string; deleting?: boolean; currentReplicas?: number;
}

function makeSet(o: SetOpts = {}, image = 'nginx:2'): any {
  const spec: any = {
    replicas: o.replicas ?? 3,
    selector: { matchLabels: { app: 'web' } },
    serviceName: 'nginx',
    podManagementPolicy: o.parallel ? 'Parallel' : 'OrderedReady',
    updateStrategy: o.onDelete ? { type: 'OnDelete' } : { type: 'RollingUpdate', rollingUpdate: { partition: o.partition ?? 0 } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image }] } },
    revisionHistoryLimit: 10,
    persistentVolumeClaimRetentionPolicy: { whenScaled: o.whenScaled ?? 'Retain', whenDeleted: o.whenDeleted ?? 'Retain' },
  };
  if (o.minReady) spec.minReadySeconds = o.minReady;
  if (o.start !== undefined) spec.ordinals = { start: o.start };
  if (o.claims) spec.volumeClaimTemplates = [{ metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }];
  const metadata: any = { name: 'web', namespace: 'default', uid: 'set-uid', generation: 2 };
  if (o.deleting) metadata.deletionTimestamp = ago(1);
  return { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata, spec, status: { currentReplicas: o.currentReplicas ?? 0 } };
}

type State = 'ready' | 'running' | 'pending' | 'failed' | 'succeeded';
interface PodOpts { rev?: 'r1' | 'r2'; terminating?: boolean; readyFor?: number; noIdentity?: boolean; claims?: boolean }

function makePod(ordinal: number, state: State = 'ready', o: PodOpts = {}): any {
  const name = `web-${ordinal}`;
  const labels: any = { app: 'web', 'controller-revision-hash': o.rev === 'r1' ? 'web-r1' : 'web-r2' };
  if (!o.noIdentity) labels['statefulset.kubernetes.io/pod-name'] = name;
  const metadata: any = { name, namespace: 'default', uid: `uid-${ordinal}`, labels };
  if (o.terminating) metadata.deletionTimestamp = ago(0);
  const phase = { ready: 'Running', running: 'Running', pending: 'Pending', failed: 'Failed', succeeded: 'Succeeded' }[state];
  const conditions = state === 'ready' ? [{ type: 'Ready', status: 'True', lastTransitionTime: ago(o.readyFor ?? 3600) }] : [{ type: 'Ready', status: 'False' }];
  const spec: any = { containers: [{ name: 'nginx', image: o.rev === 'r1' ? 'nginx:1' : 'nginx:2' }] };
  if (o.claims) spec.volumes = [{ name: 'www', persistentVolumeClaim: { claimName: `www-web-${ordinal}` } }];
  return { metadata, spec, status: { phase, conditions } };
}

function plan(setOpts: SetOpts, pods: any[], claims: Record<string, any> = {}): Plan {
  const set = makeSet(setOpts);
  return planStatefulSet({
    set, currentSet: makeSet(setOpts, 'nginx:1'), updateSet: set, currentRevision: 'web-r1', updateRevision: 'web-r2',
    collisionCount: 0, pods, claim: (n) => claims[n], now,
  });
}

/** What a sync does if every write succeeds: the actions run, and where an OrderedReady walk stops. */
function summary(p: Plan): string[] {
  const out: string[] = [];
  const describe = (a: any) => (a.type === 'deletePod' ? `delete ${a.pod.metadata.name} (${a.reason})` : `${a.type} ${a.pod.metadata.name}`);
  for (const steps of [p.replicas, p.condemnedClaims, p.condemned]) {
    for (const s of steps) {
      out.push(...s.actions.map(describe));
      if (p.monotonic && s.exit) {
        if (s.wait && !s.actions.length) out.push(`wait ${s.pod.metadata!.name}: ${s.wait}`);
        return out;
      }
    }
  }
  // The rolling update's own waits are left out: they only say that nothing more happens.
  if (p.update) out.push(...p.update.actions.map(describe));
  return out;
}

const r1 = { rev: 'r1' as const };

describe('planStatefulSet: scaling', () => {
  const table: [string, SetOpts, any[], string[]][] = [
    ['OrderedReady creates only the first pod', {}, [], ['createPod web-0']],
    ['OrderedReady waits for a Running but not Ready pod', {}, [makePod(0, 'running')], ['wait web-0: not running and ready']],
    ['OrderedReady waits for a Pending pod', {}, [makePod(0, 'pending')], ['wait web-0: not running and ready']],
    ['OrderedReady creates the next once the lower ones are Ready', {}, [makePod(0)], ['createPod web-1']],
    ['OrderedReady fills a gap before going higher', {}, [makePod(0), makePod(2)], ['createPod web-1']],
    ['OrderedReady waits for availability (minReadySeconds)', { minReady: 10 }, [makePod(0, 'ready', { readyFor: 5 })], ['wait web-0: not available']],
    ['OrderedReady goes on once available', { minReady: 10 }, [makePod(0, 'ready', { readyFor: 11 })], ['createPod web-1']],
    ['Parallel creates every missing pod', { parallel: true }, [], ['createPod web-0', 'createPod web-1', 'createPod web-2']],
    ['Parallel does not wait for an unready pod', { parallel: true }, [makePod(0, 'pending')], ['createPod web-1', 'createPod web-2']],
    ['OrderedReady scales down from the highest ordinal, one pod', { replicas: 2 }, [makePod(0), makePod(1), makePod(2)], ['delete web-2 (condemned)']],
    ['OrderedReady scale 5 -> 2 deletes web-4 first', { replicas: 2 }, [0, 1, 2, 3, 4].map((i) => makePod(i)), ['delete web-4 (condemned)']],
    ['OrderedReady waits for the terminating condemned pod', { replicas: 2 }, [makePod(0), makePod(1), makePod(2), makePod(3), makePod(4, 'ready', { terminating: true })],
      ['wait web-4: terminating']],
    ['OrderedReady scale-down halts on an unhealthy replica', { replicas: 2 }, [makePod(0), makePod(1, 'running'), makePod(2)], ['wait web-1: not running and ready']],
    ['OrderedReady deletes the first unhealthy condemned pod', { replicas: 1 }, [makePod(0), makePod(1), makePod(2, 'running')], ['delete web-2 (condemned)']],
    ['OrderedReady waits on an unhealthy condemned pod that is not the first unhealthy', { replicas: 1 },
      [makePod(0), makePod(1, 'running'), makePod(2, 'running')], ['wait web-2: not running and ready']],
    ['Parallel deletes every condemned pod at once', { replicas: 1, parallel: true }, [makePod(0), makePod(1), makePod(2, 'running')],
      ['delete web-2 (condemned)', 'delete web-1 (condemned)']],
    ['Parallel leaves terminating condemned pods alone', { replicas: 1, parallel: true }, [makePod(0), makePod(1, 'ready', { terminating: true })], []],
    ['scale to zero', { replicas: 0 }, [makePod(0)], ['delete web-0 (condemned)']],
    ['ordinals.start: the set owns [5, 7)', { replicas: 2, start: 5 }, [makePod(5)], ['createPod web-6']],
    ['ordinals.start: pods below the start are condemned', { replicas: 2, start: 5 }, [makePod(0), makePod(5), makePod(6)], ['delete web-0 (condemned)']],
  ];
  for (const [name, setOpts, pods, want] of table) it(name, () => assert.deepEqual(summary(plan(setOpts, pods)), want));
});

describe('planStatefulSet: identity is never doubled', () => {
  const table: [string, SetOpts, any[], string[]][] = [
    ['a failed pod is deleted, not replaced in the same sync', {}, [makePod(0, 'failed'), makePod(1)], ['delete web-0 (failed)']],
    ['a succeeded pod is deleted too', {}, [makePod(0), makePod(1, 'succeeded')], ['delete web-1 (failed)']],
    ['a failed pod already terminating is waited for', {}, [makePod(0, 'failed', { terminating: true })], ['wait web-0: failed pod']],
    ['Parallel: a failed pod is deleted and the others go on', { parallel: true }, [makePod(0, 'failed')], ['delete web-0 (failed)', 'createPod web-1', 'createPod web-2']],
    ['OrderedReady: a terminating replica blocks everything after it', {}, [makePod(0, 'ready', { terminating: true })], ['wait web-0: terminating']],
    ['Parallel: a terminating replica is not replaced while it exists', { parallel: true }, [makePod(0, 'ready', { terminating: true }), makePod(1), makePod(2)], []],
  ];
  for (const [name, setOpts, pods, want] of table) it(name, () => assert.deepEqual(summary(plan(setOpts, pods)), want));
});

describe('planStatefulSet: updates', () => {
  const old = (i: number, state: State = 'ready') => makePod(i, state, r1);
  const table: [string, SetOpts, any[], string[]][] = [
    ['RollingUpdate replaces the highest ordinal first', {}, [old(0), old(1), old(2)], ['delete web-2 (update)']],
    ['RollingUpdate waits for the new pod to be Ready', {}, [old(0), old(1), makePod(2, 'running')], ['wait web-2: not running and ready']],
    ['RollingUpdate goes on once the newer pods are Ready', {}, [old(0), old(1), makePod(2)], ['delete web-1 (update)']],
    ['RollingUpdate never deletes a second pod while one terminates', {}, [old(0), old(1), makePod(2, 'ready', { terminating: true })], ['wait web-2: terminating']],
    ['RollingUpdate stops at the partition', { partition: 2 }, [old(0), old(1), makePod(2)], []],
    ['RollingUpdate with partition 2 replaces only web-2', { partition: 2 }, [old(0), old(1), old(2)], ['delete web-2 (update)']],
    ['partition above replicas: nothing', { partition: 5 }, [old(0), old(1), old(2)], []],
    ['Parallel rolling update still goes one at a time', { parallel: true }, [old(0), old(1), old(2)], ['delete web-2 (update)']],
    ['Parallel rolling update waits for an unhealthy newer pod', { parallel: true }, [old(0), old(1), makePod(2, 'pending')], []],
    ['OnDelete never deletes for an update', { onDelete: true }, [old(0), old(1), old(2)], []],
    ['done: nothing to do', {}, [makePod(0), makePod(1), makePod(2)], []],
  ];
  for (const [name, setOpts, pods, want] of table) it(name, () => assert.deepEqual(summary(plan(setOpts, pods)), want));

  it('a pod recreated below the partition gets the current revision and template', () => {
    const p = plan({ partition: 2 }, [makePod(1, 'ready', r1), makePod(2)]);
    const create = p.replicas[0].actions[0] as any;
    assert.equal(create.type, 'createPod');
    assert.equal(create.pod.metadata.labels['controller-revision-hash'], 'web-r1');
    assert.equal(create.pod.spec.containers[0].image, 'nginx:1');
  });
  it('a pod recreated at or above the partition gets the update revision', () => {
    const p = plan({ partition: 1 }, [makePod(0, 'ready', r1), makePod(2)]);
    const create = p.replicas[1].actions[0] as any;
    assert.equal(create.pod.metadata.name, 'web-1');
    assert.equal(create.pod.metadata.labels['controller-revision-hash'], 'web-r2');
    assert.equal(create.pod.spec.containers[0].image, 'nginx:2');
  });
  it('OnDelete: a deleted pod comes back at the update revision', () => {
    const p = plan({ onDelete: true }, [makePod(1, 'ready', r1), makePod(2, 'ready', r1)]);
    const create = p.replicas[0].actions[0] as any;
    assert.equal(create.pod.metadata.labels['controller-revision-hash'], 'web-r2');
  });
});

describe('planStatefulSet: pods and claims', () => {
  it('a new pod carries its identity, owner, hostname, subdomain and claim volumes', () => {
    const p = plan({ claims: true }, []);
    const a = p.replicas[0].actions[0] as any;
    assert.equal(a.type, 'createPod');
    assert.deepEqual(a.pod.metadata, {
      name: 'web-0', generateName: 'web-', namespace: 'default',
      labels: { app: 'web', 'statefulset.kubernetes.io/pod-name': 'web-0', 'apps.kubernetes.io/pod-index': '0', 'controller-revision-hash': 'web-r2' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'set-uid', controller: true, blockOwnerDeletion: true }],
    });
    assert.equal(a.pod.spec.hostname, 'web-0');
    assert.equal(a.pod.spec.subdomain, 'nginx');
    assert.deepEqual(a.pod.spec.volumes, [{ name: 'www', persistentVolumeClaim: { claimName: 'www-web-0' } }]);
    assert.deepEqual(a.claims.create.map((c: any) => [c.metadata.name, c.metadata.labels]), [['www-web-0', { app: 'web' }]]);
  });
  it('an existing claim is reused, not created', () => {
    const p = plan({ claims: true }, [], { 'www-web-0': { metadata: { name: 'www-web-0', uid: 'c0' } } });
    assert.deepEqual((p.replicas[0].actions[0] as any).claims.create, []);
  });
  it('a claim being deleted is an error for the pod create', () => {
    const p = plan({ claims: true }, [], { 'www-web-0': { metadata: { name: 'www-web-0', uid: 'c0', deletionTimestamp: ago(1) } } });
    assert.deepEqual((p.replicas[0].actions[0] as any).claims.deleting, ['www-web-0']);
  });
  it('a Pending pod gets its missing claims', () => {
    const p = plan({ claims: true }, [makePod(0, 'pending', { claims: true })]);
    assert.deepEqual(summary(p), ['createClaims web-0']);
    assert.equal(p.replicas[0].wait, 'not running and ready');
  });
  it('whenScaled Delete: a claim still owned by an earlier pod of that name blocks the create', () => {
    const stale = { metadata: { name: 'www-web-0', uid: 'c0', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'web-0', uid: 'old', controller: true }] } };
    assert.deepEqual(summary(plan({ claims: true, whenScaled: 'Delete' }, [], { 'www-web-0': stale })), ['wait web-0: stale claim']);
  });
  it('a pod that lost its pod-name label is updated back', () => {
    const p = plan({}, [makePod(0, 'ready', { noIdentity: true }), makePod(1), makePod(2)]);
    const a = p.replicas[0].actions[0] as any;
    assert.equal(a.type, 'updatePod');
    assert.equal(a.pod.metadata.labels['statefulset.kubernetes.io/pod-name'], 'web-0');
  });
  it('whenScaled Delete: a condemned pod\'s claim gets the pod as owner before the pod is deleted', () => {
    const claim = (i: number) => ({ metadata: { name: `www-web-${i}`, uid: `c${i}` } });
    const p = plan({ replicas: 1, claims: true, whenScaled: 'Delete' }, [makePod(0, 'ready', { claims: true }), makePod(1, 'ready', { claims: true })],
      { 'www-web-0': claim(0), 'www-web-1': claim(1) });
    assert.deepEqual(summary(p), ['updateClaims web-1', 'delete web-1 (condemned)']);
    const refs = (p.condemnedClaims[0].actions[0] as any).claims.refUpdates[0].metadata.ownerReferences;
    assert.deepEqual(refs, [{ apiVersion: 'v1', kind: 'Pod', name: 'web-1', uid: 'uid-1', controller: true, blockOwnerDeletion: true }]);
  });
  it('whenDeleted Delete: a replica\'s claim gets the set as owner', () => {
    const p = plan({ replicas: 1, claims: true, whenDeleted: 'Delete' }, [makePod(0, 'ready', { claims: true })], { 'www-web-0': { metadata: { name: 'www-web-0', uid: 'c0' } } });
    const a = p.replicas[0].actions[0] as any;
    assert.equal(a.type, 'updatePod');
    assert.deepEqual(a.claims.refUpdates[0].metadata.ownerReferences,
      [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'set-uid', controller: true, blockOwnerDeletion: true }]);
  });
  it('a set being deleted only gets its status', () => {
    const p = plan({ deleting: true }, [makePod(0), makePod(1, 'running')]);
    assert.deepEqual(summary(p), []);
    assert.equal(p.status.replicas, 2);
  });
});

describe('StatefulSet status', () => {
  const input = { set: makeSet({ minReady: 10 }), currentRevision: 'web-r1', updateRevision: 'web-r2', collisionCount: 0, now };
  it('counts created, ready, available, current and updated pods', () => {
    const s = computeStatus(input, [
      makePod(0, 'ready', r1), makePod(1, 'ready', { readyFor: 3 }), makePod(2, 'pending'), makePod(3, 'ready', { terminating: true }),
      { metadata: { name: 'web-4', labels: {} }, status: {} },
    ]);
    assert.deepEqual(s, {
      observedGeneration: 2, replicas: 4, readyReplicas: 3, availableReplicas: 2, currentReplicas: 1, updatedReplicas: 2,
      currentRevision: 'web-r1', updateRevision: 'web-r2', collisionCount: 0,
    });
  });
  it('completes a rolling update when every replica is updated and ready', () => {
    const s = computeStatus(input, [makePod(0), makePod(1), makePod(2)]);
    const done = completeRollingUpdate(makeSet(), s);
    assert.equal(done.currentRevision, 'web-r2');
    assert.equal(done.currentReplicas, 3);
  });
  it('does not complete a partitioned rollout', () => {
    const s = computeStatus(input, [makePod(0, 'ready', r1), makePod(1, 'ready', r1), makePod(2)]);
    assert.equal(completeRollingUpdate(makeSet({ partition: 2 }), s).currentRevision, 'web-r1');
  });
  it('writes only when something changed', () => {
    const s = computeStatus(input, [makePod(0)]);
    const set = makeSet();
    assert.equal(inconsistentStatus(set, s), true);
    set.status = statusObject(s);
    assert.equal(inconsistentStatus(set, s), false);
    assert.equal(inconsistentStatus(set, { ...s, readyReplicas: 0 }), true);
    assert.equal(inconsistentStatus(set, { ...s, collisionCount: 3 }), false);
  });
  it('omits zero fields as Go does, but keeps replicas and availableReplicas', () => {
    assert.deepEqual(statusObject({ ...computeStatus(input, []), currentRevision: '' }),
      { observedGeneration: 2, replicas: 0, updateRevision: 'web-r2', collisionCount: 0, availableReplicas: 0 });
  });
});
