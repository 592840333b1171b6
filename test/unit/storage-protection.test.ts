/**
 * Storage Object in Use Protection: the admission plugin's finalizers and the
 * pvc-protection and pv-protection controllers' decisions, table-driven
 * (upstream's storageobjectinuseprotection admission_test.go and the two
 * controllers' tests).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolume, PersistentVolumeClaim, Pod, Volume } from 'kubernetes-types/core/v1.js';
import { admitStorageObjectInUseProtection } from '../../src/apiserver/admission/storage-protection.js';
import { findResource } from '../../src/api/resources.js';
import { isDeletionCandidate, needToAddFinalizer, pvProtectionFinalizer, pvcProtectionFinalizer, withFinalizer } from '../../src/api/storage-protection.js';
import { claimKeysToSync, isPodTerminated, planClaim, podUsesPVC } from '../../src/controllers/pvcprotection/index.js';
import type { ClaimAction } from '../../src/controllers/pvcprotection/index.js';
import { planVolume } from '../../src/controllers/pvprotection/index.js';
import type { VolumeAction } from '../../src/controllers/pvprotection/index.js';

const deleting = '2026-01-01T00:00:00Z';

function claim(o: { finalizers?: string[]; deleting?: boolean; owner?: string } = {}): PersistentVolumeClaim {
  return {
    metadata: {
      name: 'data', namespace: 'default', finalizers: o.finalizers, deletionTimestamp: o.deleting ? deleting : undefined,
      ownerReferences: o.owner ? [{ apiVersion: 'v1', kind: 'Pod', name: 'web', uid: o.owner, controller: true }] : undefined,
    },
    spec: {},
  };
}

function pod(o: { node?: string; volumes?: Volume[]; phase?: string; grace?: number; namespace?: string; running?: boolean } = {}): Pod {
  return {
    metadata: {
      name: 'web', namespace: o.namespace ?? 'default', uid: 'pod-uid',
      deletionTimestamp: o.grace !== undefined ? deleting : undefined, deletionGracePeriodSeconds: o.grace,
    },
    spec: { nodeName: o.node, containers: [{ name: 'c' }], volumes: o.volumes ?? [{ name: 'www', persistentVolumeClaim: { claimName: 'data' } }] },
    status: {
      phase: o.phase ?? 'Running',
      containerStatuses: [{ name: 'c', image: 'i', imageID: '', ready: !!o.running, restartCount: 0, state: o.running ? { running: {} } : { terminated: { exitCode: 0 } } }],
    },
  };
}

const ephemeral: Volume = { name: 'www', ephemeral: { volumeClaimTemplate: { spec: {} } } };

describe('StorageObjectInUseProtection admission', () => {
  const cases: [string, 'create' | 'update', string, string[] | undefined, string[] | undefined][] = [
    ['a new claim gets pvc-protection', 'create', 'persistentvolumeclaims', undefined, [pvcProtectionFinalizer]],
    ['a new volume gets pv-protection', 'create', 'persistentvolumes', undefined, [pvProtectionFinalizer]],
    ['other finalizers kept, ours appended', 'create', 'persistentvolumeclaims', ['example.com/x'], ['example.com/x', pvcProtectionFinalizer]],
    ['already there: unchanged', 'create', 'persistentvolumeclaims', [pvcProtectionFinalizer], [pvcProtectionFinalizer]],
    ['an update is not admitted (the finalizer may be removed)', 'update', 'persistentvolumeclaims', [], []],
    ['other kinds untouched', 'create', 'pods', undefined, undefined],
  ];
  for (const [name, op, plural, before, after] of cases) {
    it(name, () => {
      const obj = { metadata: { name: 'x', finalizers: before } };
      admitStorageObjectInUseProtection(op, findResource('', 'v1', plural)!, obj);
      assert.deepEqual(obj.metadata.finalizers, after);
    });
  }
});

describe('protectionutil', () => {
  it('IsDeletionCandidate and NeedToAddFinalizer', () => {
    assert.equal(isDeletionCandidate(claim({ finalizers: [pvcProtectionFinalizer], deleting: true }), pvcProtectionFinalizer), true);
    assert.equal(isDeletionCandidate(claim({ deleting: true }), pvcProtectionFinalizer), false);
    assert.equal(needToAddFinalizer(claim(), pvcProtectionFinalizer), true);
    assert.equal(needToAddFinalizer(claim({ deleting: true }), pvcProtectionFinalizer), false);
  });
  it('withFinalizer copies, keeping the others in order', () => {
    const c = claim({ finalizers: ['a', pvcProtectionFinalizer, 'b'] });
    assert.deepEqual(withFinalizer(c, pvcProtectionFinalizer, false).metadata!.finalizers, ['a', 'b']);
    assert.deepEqual(withFinalizer(claim({ finalizers: ['a'] }), pvcProtectionFinalizer, true).metadata!.finalizers, ['a', pvcProtectionFinalizer]);
    assert.deepEqual(c.metadata!.finalizers, ['a', pvcProtectionFinalizer, 'b'], 'the cached object is not touched');
  });
});

describe('pvc-protection: podUsesPVC', () => {
  const cases: [string, Pod, PersistentVolumeClaim, boolean][] = [
    ['scheduled pod naming the claim', pod({ node: 'n1' }), claim(), true],
    ['unscheduled pod: the kubelet never starts it on a deleted claim', pod(), claim(), false],
    ['scheduled pod that finished still uses it (upstream)', pod({ node: 'n1', phase: 'Succeeded' }), claim(), true],
    ['terminating pod with grace still uses it', pod({ node: 'n1', grace: 30, running: true }), claim(), true],
    ['another namespace', pod({ node: 'n1', namespace: 'other' }), claim(), false],
    ['another claim', pod({ node: 'n1', volumes: [{ name: 'www', persistentVolumeClaim: { claimName: 'logs' } }] }), claim(), false],
    ['ephemeral volume: claim <pod>-<volume> controlled by the pod', pod({ node: 'n1', volumes: [ephemeral] }), { ...claim({ owner: 'pod-uid' }), metadata: { ...claim({ owner: 'pod-uid' }).metadata, name: 'web-www' } }, true],
    ['ephemeral volume: same name, another owner', pod({ node: 'n1', volumes: [ephemeral] }), { ...claim({ owner: 'x' }), metadata: { ...claim({ owner: 'x' }).metadata, name: 'web-www' } }, false],
    ['ephemeral volume: pod shut down (grace 0)', pod({ node: 'n1', volumes: [ephemeral], grace: 0 }), { ...claim({ owner: 'pod-uid' }), metadata: { ...claim({ owner: 'pod-uid' }).metadata, name: 'web-www' } }, false],
  ];
  for (const [name, p, c, want] of cases) it(name, () => assert.equal(podUsesPVC(p, c), want));
});

describe('pvc-protection: which pod events enqueue claims', () => {
  const cases: [string, Pod, boolean, string[]][] = [
    ['a running scheduled pod: nothing to release', pod({ node: 'n1', running: true }), false, []],
    ['a deleted pod', pod({ node: 'n1', running: true }), true, ['default/data']],
    ['a Succeeded pod', pod({ node: 'n1', phase: 'Succeeded' }), false, ['default/data']],
    ['an unscheduled pod', pod({ running: true }), false, ['default/data']],
    ['a terminating pod whose containers stopped', pod({ node: 'n1', grace: 30 }), false, ['default/data']],
    ['ephemeral volumes by their claim names', pod({ volumes: [ephemeral] }), true, ['default/web-www']],
  ];
  for (const [name, p, deleted, want] of cases) it(name, () => assert.deepEqual(claimKeysToSync(p, deleted), want));
  it('IsPodTerminated: deleted with a container running is not', () => {
    assert.equal(isPodTerminated(pod({ node: 'n1', grace: 30, running: true })), false);
    assert.equal(isPodTerminated(pod({ node: 'n1', phase: 'Failed', running: true })), true);
  });
});

describe('pvc-protection: planClaim', () => {
  const cases: [string, PersistentVolumeClaim, boolean, ClaimAction][] = [
    ['deleted and unused: the finalizer goes', claim({ finalizers: [pvcProtectionFinalizer], deleting: true }), false, 'removeFinalizer'],
    ['deleted and used: kept (Terminating)', claim({ finalizers: [pvcProtectionFinalizer], deleting: true }), true, 'keep'],
    ['live without the finalizer: added', claim(), false, 'addFinalizer'],
    ['live with it: nothing', claim({ finalizers: [pvcProtectionFinalizer] }), true, 'none'],
    ['deleted without it: nothing (not ours to hold)', claim({ deleting: true, finalizers: ['example.com/x'] }), true, 'none'],
  ];
  for (const [name, c, used, want] of cases) {
    it(name, async () => {
      let asked = false;
      assert.equal(await planClaim(c, async () => { asked = true; return used; }), want);
      assert.equal(asked, want === 'keep' || want === 'removeFinalizer', 'pods are asked about only for a deletion candidate');
    });
  }
});

describe('pv-protection: planVolume', () => {
  const volume = (phase: string, o: { finalizers?: string[]; deleting?: boolean } = {}): PersistentVolume =>
    ({ metadata: { name: 'pv', finalizers: o.finalizers, deletionTimestamp: o.deleting ? deleting : undefined }, spec: {}, status: { phase } });
  const cases: [string, PersistentVolume, VolumeAction][] = [
    ['deleted while Bound: kept', volume('Bound', { finalizers: [pvProtectionFinalizer], deleting: true }), 'keep'],
    ['deleted when Released: the finalizer goes', volume('Released', { finalizers: [pvProtectionFinalizer], deleting: true }), 'removeFinalizer'],
    ['deleted when Available: the finalizer goes', volume('Available', { finalizers: [pvProtectionFinalizer], deleting: true }), 'removeFinalizer'],
    ['live without the finalizer: added', volume('Bound'), 'addFinalizer'],
    ['live with it: nothing', volume('Bound', { finalizers: [pvProtectionFinalizer] }), 'none'],
  ];
  for (const [name, pv, want] of cases) it(name, () => assert.equal(planVolume(pv), want));
});
