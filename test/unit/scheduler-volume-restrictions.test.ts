/**
 * VolumeRestrictions (ReadWriteOncePod claims in use anywhere, shared disks
 * on the node) with upstream's reasons, codes and preemption outcome, and
 * VolumeBinding's Reserve: the claims and volumes it assumes show to the
 * next pod before PreBind's writes come back (the AssumeCache).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolume, PersistentVolumeClaim, Pod, Volume } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { CycleState } from '../../src/scheduler/framework.js';
import { Framework } from '../../src/scheduler/runtime.js';
import { defaultProfile } from '../../src/scheduler/profile.js';
import { VolumeRestrictions, isVolumeConflict } from '../../src/scheduler/plugins/volumerestrictions.js';
import { VolumeBinding } from '../../src/scheduler/plugins/volumebinding.js';
import { AssumeCache } from '../../src/scheduler/plugins/volume-assume.js';
import { cachedPod } from '../../src/scheduler/cached-pod.js';
import { podResources } from '../../src/scheduler/nodeinfo.js';
import { controlPlaneTaint, makeNode, makePod, nodeInfo, snapshot } from '../../src/scheduler/testing/wrappers.js';

const claim = (name: string, modes: string[], extra: Partial<PersistentVolumeClaim['spec']> = {}, annotations?: Record<string, string>): PersistentVolumeClaim => ({
  metadata: { name, namespace: 'default', resourceVersion: '1', uid: `uid-${name}`, ...(annotations ? { annotations } : {}) },
  spec: { accessModes: modes, resources: { requests: { storage: '1Gi' } }, ...extra },
});
const withVolumes = <P extends Pod>(pod: P, volumes: Volume[]): P => ({ ...pod, spec: { ...pod.spec!, volumes } });
const usingClaim = (name: string, claimName: string, priority?: number) =>
  withVolumes(makePod(name, { priority }), [{ name: 'data', persistentVolumeClaim: { claimName } }]);
const claims = (...list: PersistentVolumeClaim[]) => new Map(list.map((c) => [`default/${c.metadata!.name}`, c]));

describe('VolumeRestrictions: ReadWriteOncePod', () => {
  const rwop = claims(claim('cat-pictures-pvc', ['ReadWriteOncePod']), claim('shared', ['ReadWriteOnce']));
  const framework = () => new Framework(defaultProfile(undefined, { claims: rwop }).plugins, { random: () => 0 });
  const cluster = (...pods: Pod[][]) => snapshot([
    nodeInfo(makeNode('control-plane', { taints: [controlPlaneTaint] })), nodeInfo(makeNode('worker1'), pods[0] as any), nodeInfo(makeNode('worker2'), pods[1] as any),
  ]);

  it('a claim in use by a pod on any node: every node Unschedulable, preemption finds no victims', () => {
    const r = framework().schedulePod(usingClaim('second', 'cat-pictures-pvc'), cluster([usingClaim('first', 'cat-pictures-pvc')], []));
    assert.equal(r.kind, 'Unschedulable');
    if (r.kind !== 'Unschedulable') return;
    assert.equal(r.message, '0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, '
      + '2 node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode. '
      + 'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.');
    assert.deepEqual([...r.unschedulablePlugins].sort(), ['TaintToleration', 'VolumeRestrictions']);
  });

  it('a lower-priority holder may be preempted: its node is counted without it', () => {
    const r = framework().schedulePod(usingClaim('urgent', 'cat-pictures-pvc', 100), cluster([usingClaim('holder', 'cat-pictures-pvc')], []));
    assert.equal(r.kind, 'Unschedulable');
    if (r.kind === 'Unschedulable') assert.deepEqual(r.nomination && { node: r.nomination.nodeName, victims: r.nomination.victims.map((v) => v.metadata!.name) }, { node: 'worker1', victims: ['holder'] });
  });

  it('the claim free, or ReadWriteOnce: the pod fits', () => {
    assert.equal(framework().schedulePod(usingClaim('first', 'cat-pictures-pvc'), cluster([], [])).kind, 'Scheduled');
    assert.equal(framework().schedulePod(usingClaim('b', 'shared'), cluster([usingClaim('a', 'shared')], [])).kind, 'Scheduled');
  });

  it('a missing claim is UnschedulableAndUnresolvable at PreFilter', () => {
    const p = new VolumeRestrictions(rwop);
    const { status } = p.preFilter(new CycleState(), usingClaim('p', 'gone'), cluster([], []));
    assert.deepEqual(status, { code: 'UnschedulableAndUnresolvable', reasons: ['persistentvolumeclaim "gone" not found'] });
  });

  it('a pod with neither claims in use nor disks is skipped', () => {
    const p = new VolumeRestrictions(rwop);
    assert.deepEqual(p.preFilter(new CycleState(), makePod('p'), cluster([], [])).status, { code: 'Skip' });
    assert.deepEqual(p.preFilter(new CycleState(), usingClaim('p', 'cat-pictures-pvc'), cluster([], [])).status, { code: 'Skip' });
  });

  it('the scheduler cache keeps a pod\'s claim and disk volumes, and only those', () => {
    const pod = withVolumes(makePod('p'), [
      { name: 'data', persistentVolumeClaim: { claimName: 'c' } }, { name: 'token', projected: { sources: [] } }, { name: 'disk', gcePersistentDisk: { pdName: 'd' } },
    ]);
    assert.deepEqual(cachedPod(pod, 'n', podResources(pod)).spec!.volumes!.map((v) => v.name), ['data', 'disk']);
    assert.equal(cachedPod(makePod('q'), 'n', podResources(makePod('q'))).spec!.volumes, undefined);
  });
});

describe('VolumeRestrictions: disks shared on a node (isVolumeConflict)', () => {
  const on = (v: Volume) => withVolumes(makePod('existing'), [v]);
  const cases: [string, Volume, Volume, boolean][] = [
    ['the same GCE PD', { name: 'a', gcePersistentDisk: { pdName: 'd' } }, { name: 'b', gcePersistentDisk: { pdName: 'd' } }, true],
    ['the same GCE PD, both read-only', { name: 'a', gcePersistentDisk: { pdName: 'd', readOnly: true } }, { name: 'b', gcePersistentDisk: { pdName: 'd', readOnly: true } }, false],
    ['another GCE PD', { name: 'a', gcePersistentDisk: { pdName: 'd' } }, { name: 'b', gcePersistentDisk: { pdName: 'e' } }, false],
    ['the same EBS volume, even read-only', { name: 'a', awsElasticBlockStore: { volumeID: 'v', readOnly: true } }, { name: 'b', awsElasticBlockStore: { volumeID: 'v', readOnly: true } }, true],
    ['the same iSCSI IQN', { name: 'a', iscsi: { iqn: 'q', targetPortal: 't', lun: 0 } }, { name: 'b', iscsi: { iqn: 'q', targetPortal: 'u', lun: 1 } }, true],
    ['the same RBD image on an overlapping monitor', { name: 'a', rbd: { monitors: ['m1', 'm2'], image: 'i', pool: 'rbd' } }, { name: 'b', rbd: { monitors: ['m2'], image: 'i', pool: 'rbd' } }, true],
    ['the same RBD image on other monitors', { name: 'a', rbd: { monitors: ['m1'], image: 'i', pool: 'rbd' } }, { name: 'b', rbd: { monitors: ['m2'], image: 'i', pool: 'rbd' } }, false],
  ];
  for (const [name, v, existing, want] of cases) it(name, () => assert.equal(isVolumeConflict(v, on(existing)), want));

  it('filter: Unschedulable with upstream\'s reason on the node holding the disk only', () => {
    const p = new VolumeRestrictions(claims());
    const disk: Volume = { name: 'd', gcePersistentDisk: { pdName: 'pd' } };
    const pod = withVolumes(makePod('p'), [disk]);
    const state = new CycleState();
    const busy = nodeInfo(makeNode('busy'), [withVolumes(makePod('holder'), [disk])] as any);
    assert.deepEqual(p.preFilter(state, pod, snapshot([busy])).status, { code: 'Success' });
    assert.deepEqual(p.filter(state, pod, busy), { code: 'Unschedulable', reasons: ['node(s) had no available disk'] });
    assert.deepEqual(p.filter(state, pod, nodeInfo(makeNode('free'))), { code: 'Success' });
  });
});

describe('VolumeBinding Reserve: assumed claims and volumes', () => {
  const wffc: StorageClass = { metadata: { name: 'local-path' }, provisioner: 'rancher.io/local-path', volumeBindingMode: 'WaitForFirstConsumer' };
  const classes = new Map([['local-path', wffc]]);

  it('the claim\'s selected node shows to the next pod at once: it fits that node only', () => {
    const pvcs = claims(claim('cat-pictures-pvc', ['ReadWriteOnce'], { storageClassName: 'local-path' }));
    const vb = new VolumeBinding({ pvcs, pvs: new Map(), classes });
    const first = usingClaim('first', 'cat-pictures-pvc');
    const fits = (pod: Pod, node: string) => {
      const state = new CycleState();
      vb.preFilter(state, pod);
      return vb.filter(state, pod, nodeInfo(makeNode(node))).code;
    };
    assert.equal(fits(first, 'worker1'), 'Success');
    vb.reserve(first, makeNode('worker2'));
    const second = usingClaim('second', 'cat-pictures-pvc');
    assert.equal(fits(second, 'worker1'), 'UnschedulableAndUnresolvable');
    assert.equal(fits(second, 'worker2'), 'Success');
    // Unreserve (the binding failed): the claim is free again.
    vb.unreserve(first);
    assert.equal(fits(second, 'worker1'), 'Success');
  });

  it('a volume assumed bound to one claim is not offered to another', () => {
    const pv: PersistentVolume = {
      metadata: { name: 'pv1', resourceVersion: '1' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'local-path', hostPath: { path: '/x' } },
      status: { phase: 'Available' },
    };
    const noProvisioner = new Map([['local-path', { ...wffc, provisioner: 'kubernetes.io/no-provisioner' }]]);
    const pvcs = claims(claim('a', ['ReadWriteOnce'], { storageClassName: 'local-path' }), claim('b', ['ReadWriteOnce'], { storageClassName: 'local-path' }));
    const vb = new VolumeBinding({ pvcs, pvs: new Map([['pv1', pv]]), classes: noProvisioner });
    vb.reserve(usingClaim('pa', 'a'), makeNode('n'));
    const pb = usingClaim('pb', 'b');
    const state = new CycleState();
    vb.preFilter(state, pb);
    assert.deepEqual(vb.filter(state, pb, nodeInfo(makeNode('n'))), { code: 'UnschedulableAndUnresolvable', reasons: ["node(s) didn't find available persistent volumes to bind"] });
  });

  it('the AssumeCache: the assumed copy until the informer\'s moves past its version', () => {
    const live = new Map([['default/c', claim('c', ['ReadWriteOnce'])]]);
    const cache = new AssumeCache(live, (c: PersistentVolumeClaim) => `default/${c.metadata!.name}`);
    cache.assume(claim('c', ['ReadWriteOnce'], {}, { mark: 'assumed' }));
    assert.equal(cache.get('default/c')!.metadata!.annotations?.mark, 'assumed');
    assert.equal(cache.list()[0]!.metadata!.annotations?.mark, 'assumed');
    live.set('default/c', { ...claim('c', ['ReadWriteOnce']), metadata: { ...claim('c', []).metadata, resourceVersion: '2' } });
    assert.equal(cache.get('default/c')!.metadata!.annotations, undefined);
    cache.assume(claim('c', ['ReadWriteOnce'], {}, { mark: 'again' }));
    cache.restore('default/c');
    assert.equal(cache.get('default/c')!.metadata!.resourceVersion, '2');
  });
});
