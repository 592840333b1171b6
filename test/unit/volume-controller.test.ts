/**
 * The persistent-volume controller's decisions (binder.ts) and the
 * local-path provisioner's volumes (provisioner.ts), table-driven.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, existsSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  planClaimSync, planVolumeSync, planReclaim, claimBoundToVolume, claimStatusFor, volumeWithPhase, volumeUnbound, volumeSatisfiesClaim,
  buildLocalPathVolume, provisioningRefusal, pickNodeForImmediateClaim, volumeNodeName, localPathStorageClass, LocalPathDirectories, resolveOptions,
} from '../../src/controllers/volume/index.js';
import type { ClaimAction } from '../../src/controllers/volume/index.js';

// ---- fixtures ----

function sc(name: string, o: { mode?: string; provisioner?: string; reclaim?: string } = {}): any {
  return { metadata: { name }, provisioner: o.provisioner ?? 'rancher.io/local-path', volumeBindingMode: o.mode ?? 'WaitForFirstConsumer', reclaimPolicy: o.reclaim ?? 'Delete' };
}
const classes = new Map([['local-path', sc('local-path')], ['fast', sc('fast', { mode: 'Immediate' })]]);

function pvc(name: string, o: { cls?: string | null; volumeName?: string; ann?: Record<string, string>; size?: string; modes?: string[] } = {}): any {
  const spec: any = { accessModes: o.modes ?? ['ReadWriteOnce'], resources: { requests: { storage: o.size ?? '1Gi' } } };
  if (o.cls !== null) spec.storageClassName = o.cls ?? 'local-path';
  if (o.volumeName) spec.volumeName = o.volumeName;
  return { metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '7', annotations: o.ann ?? {} }, spec, status: { phase: 'Pending' } };
}

function pv(name: string, o: { claim?: any; uid?: string | null; ann?: Record<string, string>; reclaim?: string; size?: string; cls?: string; phase?: string } = {}): any {
  const spec: any = { capacity: { storage: o.size ?? '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: o.cls ?? 'local-path', persistentVolumeReclaimPolicy: o.reclaim ?? 'Delete', hostPath: { path: `/x/${name}` } };
  if (o.claim) {
    spec.claimRef = { namespace: o.claim.metadata.namespace, name: o.claim.metadata.name };
    if (o.uid !== null) spec.claimRef.uid = o.uid ?? o.claim.metadata.uid;
  }
  return { metadata: { name, annotations: o.ann ?? {} }, spec, status: { phase: o.phase ?? 'Available' } };
}

const view = (vols: any[], defaultClass?: string) => ({ volumes: new Map(vols.map((v) => [v.metadata.name, v])), classes, defaultClass });
const bound = { 'pv.kubernetes.io/bind-completed': 'yes' };

// ---- claims ----

describe('planClaimSync', () => {
  const c = pvc('c');
  const table: [string, any, any[], ClaimAction['type'], string?][] = [
    ['WFFC claim without node waits', c, [], 'waitForFirstConsumer'],
    ['WFFC claim with a selected node is provisioned', pvc('c', { ann: { 'volume.kubernetes.io/selected-node': 'n1' } }), [], 'provision'],
    ['Immediate claim is provisioned at once', pvc('c', { cls: 'fast' }), [], 'provision'],
    ['Immediate claim binds a free matching PV', pvc('c', { cls: 'fast' }), [pv('free', { cls: 'fast' })], 'bind', 'free'],
    ['WFFC claim does not take a free PV (the scheduler does)', c, [pv('free')], 'waitForFirstConsumer'],
    ['a PV provisioned for the claim is bound', c, [pv('pvc-uid-c', { claim: c })], 'bind', 'pvc-uid-c'],
    ['no class at all: the default is assigned', pvc('c', { cls: null }), [], 'assignDefaultClass'],
    ['no class and no default: FailedBinding', pvc('c', { cls: '' }), [], 'failedBinding'],
    ['unknown class: ProvisioningFailed', pvc('c', { cls: 'gold' }), [], 'provisioningFailed'],
    ['pre-bound to a missing PV: pending', pvc('c', { volumeName: 'nope' }), [], 'pending'],
    ['pre-bound to a free PV: bind', pvc('c', { volumeName: 'free' }), [pv('free')], 'bind', 'free'],
    ['pre-bound to a too small PV: mismatch', pvc('c', { volumeName: 'free', size: '5Gi' }), [pv('free')], 'volumeMismatch'],
    ['pre-bound to a PV taken by another: pending', pvc('c', { volumeName: 'x' }), [pv('x', { claim: pvc('other') })], 'pending'],
    ['pre-bound by the controller but taken: error', pvc('c', { volumeName: 'x', ann: { 'pv.kubernetes.io/bound-by-controller': 'yes' } }), [pv('x', { claim: pvc('other') })], 'error'],
    ['bound claim without volumeName: lost', pvc('c', { ann: bound }), [], 'lost'],
    ['bound claim whose PV vanished: lost', pvc('c', { ann: bound, volumeName: 'gone' }), [], 'lost'],
    ['bound claim whose PV has another claim: lost (misbound)', pvc('c', { ann: bound, volumeName: 'x' }), [pv('x', { claim: pvc('other') })], 'lost'],
    ['bound claim, all well: re-assert', pvc('c', { ann: bound, volumeName: 'x' }), [pv('x', { claim: pvc('c') })], 'bind', 'x'],
    ['bound claim whose PV lost its claimRef: re-bind', pvc('c', { ann: bound, volumeName: 'x' }), [pv('x')], 'bind', 'x'],
  ];
  for (const [what, claim, vols, type, pvName] of table) {
    it(what, () => {
      const a = planClaimSync(claim, view(vols, what.includes('default is') ? 'local-path' : undefined));
      assert.equal(a.type, type);
      if (pvName) assert.equal((a as any).pv.metadata.name, pvName);
    });
  }
  it('messages are upstream words', () => {
    assert.deepEqual(planClaimSync(pvc('c', { cls: 'gold' }), view([])), { type: 'provisioningFailed', message: 'storageclass.storage.k8s.io "gold" not found' });
    assert.deepEqual(planClaimSync(pvc('c', { ann: bound, volumeName: 'x' }), view([pv('x', { claim: pvc('other') })])),
      { type: 'lost', reason: 'ClaimMisbound', message: 'Two claims are bound to the same volume, this one is bound incorrectly' });
  });
  const mismatches: [string, any, any, string | undefined][] = [
    ['fits', pvc('c'), pv('v'), undefined],
    ['too small', pvc('c', { size: '2Gi' }), pv('v'), 'requested PV is too small'],
    ['class differs', pvc('c', { cls: 'fast' }), pv('v'), 'storageClassName does not match'],
    ['modes differ', pvc('c', { modes: ['ReadWriteMany'] }), pv('v'), 'incompatible accessMode'],
  ];
  for (const [what, claim, vol, want] of mismatches) it(`checkVolumeSatisfyClaim: ${what}`, () => assert.equal(volumeSatisfiesClaim(vol, claim), want));
});

// ---- volumes ----

describe('planVolumeSync and reclaim', () => {
  const c = pvc('c', { volumeName: 'v' });
  const provisioned = { 'pv.kubernetes.io/provisioned-by': 'rancher.io/local-path' };
  const table: [string, any, any, any][] = [
    ['unclaimed: Available', pv('v'), undefined, { type: 'phase', phase: 'Available' }],
    ['pre-bound without UID: Available', pv('v', { claim: c, uid: null }), undefined, { type: 'phase', phase: 'Available' }],
    ['claim gone: release', pv('v', { claim: c }), undefined, { type: 'release' }],
    ['claim not yet naming it: sync the claim', pv('v', { claim: pvc('c') }), pvc('c'), { type: 'syncClaim', claimKey: 'default/c' }],
    ['claim names it: Bound', pv('v', { claim: c }), c, { type: 'phase', phase: 'Bound' }],
    ['claim took another, provisioned + Delete: release', pv('v', { claim: c, ann: provisioned }), pvc('c', { volumeName: 'w' }), { type: 'release' }],
    ['claim took another, bound by controller: unbind fully', pv('v', { claim: c, ann: { 'pv.kubernetes.io/bound-by-controller': 'yes' } }), pvc('c', { volumeName: 'w' }), { type: 'unbind', full: true }],
    ['claim took another, user pre-bound: keep the ref', pv('v', { claim: c }), pvc('c', { volumeName: 'w' }), { type: 'unbind', full: false }],
  ];
  for (const [what, vol, claim, want] of table) it(what, () => assert.deepEqual(planVolumeSync(vol, claim), want));

  const reclaims: [string, any, any][] = [
    ['Retain keeps it', pv('v', { reclaim: 'Retain' }), { type: 'retain' }],
    ['Delete of ours deletes', pv('v', { ann: provisioned }), { type: 'delete' }],
    ['Delete of another provisioner waits for it', pv('v', { ann: { 'pv.kubernetes.io/provisioned-by': 'ebs.csi.aws.com' } }), { type: 'waitForExternal' }],
    ['Delete of a manual PV fails', pv('v'), { type: 'fail', reason: 'VolumeFailedDelete', message: 'error getting deleter volume plugin for volume "v": no deletable volume plugin matched' }],
    ['Recycle fails', pv('v', { reclaim: 'Recycle' }), { type: 'fail', reason: 'VolumeFailedRecycle', message: 'No recycler plugin found for the volume!' }],
  ];
  for (const [what, vol, want] of reclaims) it(`reclaim: ${what}`, () => assert.deepEqual(planReclaim(vol, 'rancher.io/local-path'), want));

  it('unbind: fully drops claimRef and bound-by-controller; partially only the UID', () => {
    const full = volumeUnbound(pv('v', { claim: c, ann: { 'pv.kubernetes.io/bound-by-controller': 'yes' } }), true);
    assert.equal(full.spec!.claimRef, undefined);
    assert.equal(full.metadata!.annotations!['pv.kubernetes.io/bound-by-controller'], undefined);
    const part = volumeUnbound(pv('v', { claim: c }), false);
    assert.deepEqual(part.spec!.claimRef, { namespace: 'default', name: 'c' });
  });
});

describe('the objects a binding writes', () => {
  it('claim: volumeName, bind-completed, bound-by-controller when we set the name', () => {
    const out = claimBoundToVolume(pvc('c'), pv('v'));
    assert.equal(out!.spec!.volumeName, 'v');
    assert.deepEqual(out!.metadata!.annotations, { 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes' });
    const user = claimBoundToVolume(pvc('c', { volumeName: 'v' }), pv('v'));
    assert.deepEqual(user!.metadata!.annotations, { 'pv.kubernetes.io/bind-completed': 'yes' });
    assert.equal(claimBoundToVolume(out!, pv('v')), undefined);
  });
  it('claim status: phase, access modes and capacity from the PV; cleared without one', () => {
    const b = claimStatusFor(pvc('c'), 'Bound', pv('v', { size: '2Gi' }));
    assert.deepEqual(b!.status, { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '2Gi' } });
    assert.equal(claimStatusFor(b!, 'Bound', pv('v', { size: '2Gi' })), undefined);
    assert.deepEqual(claimStatusFor(b!, 'Lost', undefined)!.status, { phase: 'Lost' });
    assert.equal(claimStatusFor(pvc('c'), 'Pending', undefined), undefined);
  });
  it('volume phase: lastPhaseTransitionTime only when the phase changes', () => {
    const v = volumeWithPhase(pv('v', { phase: 'Pending' }), 'Bound', '', '2024-05-01T00:00:00Z');
    assert.deepEqual(v!.status, { phase: 'Bound', lastPhaseTransitionTime: '2024-05-01T00:00:00Z' });
    assert.equal(volumeWithPhase(v!, 'Bound', '', 'later'), undefined);
    const failed = volumeWithPhase(v!, 'Failed', 'boom', '2024-05-02T00:00:00Z');
    assert.deepEqual(failed!.status, { phase: 'Failed', message: 'boom', lastPhaseTransitionTime: '2024-05-02T00:00:00Z' });
  });
});

// ---- provisioner ----

describe('local-path provisioner', () => {
  const node = { metadata: { name: 'worker-1', labels: { 'kubernetes.io/hostname': 'worker-1' } } };
  it('the PV: name, path, affinity, class, policy, claimRef, annotations', () => {
    const claim = pvc('www-web-0', { size: '1Gi' });
    const vol = buildLocalPathVolume({ claim, storageClass: sc('local-path'), node, base: '/var/lib/k8ts/storage', provisioner: 'rancher.io/local-path' });
    assert.equal(vol.metadata!.name, 'pvc-uid-www-web-0');
    assert.deepEqual(vol.metadata!.annotations, { 'pv.kubernetes.io/provisioned-by': 'rancher.io/local-path', 'local.path.provisioner/selected-node': 'worker-1' });
    assert.deepEqual(vol.spec!.hostPath, { path: '/var/lib/k8ts/storage/pvc-uid-www-web-0_default_www-web-0', type: 'DirectoryOrCreate' });
    assert.deepEqual(vol.spec!.nodeAffinity!.required!.nodeSelectorTerms, [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['worker-1'] }] }]);
    assert.equal(vol.spec!.persistentVolumeReclaimPolicy, 'Delete');
    assert.equal(vol.spec!.storageClassName, 'local-path');
    assert.deepEqual(vol.spec!.capacity, { storage: '1Gi' });
    assert.deepEqual(vol.spec!.claimRef, { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'www-web-0', uid: 'uid-www-web-0', apiVersion: 'v1', resourceVersion: '7' });
    assert.equal(volumeNodeName(vol), 'worker-1');
  });
  it('volumeType local, Retain class, hostname label differing from the name', () => {
    const claim = pvc('c', { ann: { volumeType: 'local' } });
    const other = { metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'host-one' } } };
    const vol = buildLocalPathVolume({ claim, storageClass: sc('keep', { reclaim: 'Retain' }), node: other, base: '/b', provisioner: 'p' });
    assert.deepEqual(vol.spec!.local, { path: '/b/pvc-uid-c_default_c' });
    assert.equal(vol.spec!.hostPath, undefined);
    assert.equal(vol.spec!.persistentVolumeReclaimPolicy, 'Retain');
    assert.deepEqual(vol.spec!.nodeAffinity!.required!.nodeSelectorTerms[0].matchExpressions![0].values, ['host-one']);
    assert.equal(volumeNodeName(vol), 'n1');
  });
  const refusals: [string, any, string | undefined][] = [
    ['RWO is fine', pvc('c'), undefined],
    ['RWOP is fine', pvc('c', { modes: ['ReadWriteOncePod'] }), undefined],
    ['RWX refused', pvc('c', { modes: ['ReadWriteMany'] }), 'NodePath only supports ReadWriteOnce and ReadWriteOncePod (1.22+) access modes'],
    ['selector refused', { ...pvc('c'), spec: { ...pvc('c').spec, selector: { matchLabels: { a: 'b' } } } }, 'claim.Spec.Selector is not supported'],
    ['block refused', { ...pvc('c'), spec: { ...pvc('c').spec, volumeMode: 'Block' } }, 'rancher.io/local-path does not support block volume provisioning'],
  ];
  for (const [what, claim, want] of refusals) it(`refusal: ${what}`, () => assert.equal(provisioningRefusal(claim, 'rancher.io/local-path'), want));

  it('Immediate claims go to the ready, schedulable node with the fewest volumes', () => {
    const ready = (name: string, extra: any = {}) => ({ metadata: { name }, spec: extra, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
    const nodes = [ready('a'), ready('b'), ready('c', { unschedulable: true }), { metadata: { name: 'd' }, status: { conditions: [{ type: 'Ready', status: 'False' }] } }];
    const onA = { metadata: { name: 'x', annotations: { 'local.path.provisioner/selected-node': 'a' } } };
    assert.equal(pickNodeForImmediateClaim(nodes, [], () => true)?.metadata!.name, 'a');
    assert.equal(pickNodeForImmediateClaim(nodes, [onA], () => true)?.metadata!.name, 'b');
    assert.equal(pickNodeForImmediateClaim(nodes, [], (n) => n.metadata!.name === 'd'), undefined);
  });
  it('the default StorageClass is what k3s ships, saying how to go without it', () => {
    assert.deepEqual(localPathStorageClass(), {
      apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass',
      metadata: {
        name: 'local-path',
        annotations: {
          'storageclass.kubernetes.io/is-default-class': 'true',
          'kubernetes.io/description': 'Created by k8ts (as k3s and kind ship local-path; upstream creates none). Start the server with --default-storage-class=false to go without it.',
        },
      },
      provisioner: 'rancher.io/local-path', reclaimPolicy: 'Delete', volumeBindingMode: 'WaitForFirstConsumer',
    });
  });
  it('options: an explicit base makes directories for every node', () => {
    assert.equal(resolveOptions({}).createDirectories, 'local');
    assert.equal(resolveOptions({}).basePath, '/var/lib/k8ts/storage');
    assert.equal(resolveOptions({ basePath: '/tmp/x' }).createDirectories, 'all');
  });
  it('directories: made and removed only under the base and only for materialized nodes', async () => {
    const base = mkdtempSync(join(tmpdir(), 'k8ts-lp-'));
    try {
      const dirs = new LocalPathDirectories(base, (n) => n === 'here');
      await dirs.create('here', join(base, 'pvc-1_default_c'));
      assert.ok(existsSync(join(base, 'pvc-1_default_c')));
      await dirs.create('elsewhere', join(base, 'pvc-2_default_c'));
      assert.ok(!existsSync(join(base, 'pvc-2_default_c')));
      await assert.rejects(dirs.create('here', join(base, '..', 'escape')), /not a volume directory/);
      await assert.rejects(dirs.remove('here', base), /not a volume directory/);
      mkdirSync(join(base, 'pvc-1_default_c', 'data'));
      await dirs.remove('here', join(base, 'pvc-1_default_c'));
      assert.ok(!existsSync(join(base, 'pvc-1_default_c')));
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
