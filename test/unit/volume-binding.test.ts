/**
 * The scheduler-side volume rules (src/api/volumebinding.ts), table-driven:
 * default class choice and admission, FindMatchingVolume, PV node affinity,
 * podVolumesFitNode with upstream's reasons, and the PreBind plan.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  admitDefaultStorageClass, annBindCompleted, annSelectedNode, claimClass, claimHasClass, defaultStorageClass, errReasonBindConflict,
  errReasonNodeConflict, errReasonPVNotExist, errReasonUnboundImmediate, findMatchingVolume, isDelayBindingMode, isVolumeBoundToClaim,
  podClaimNames, podVolumeBindingsForNode, podVolumesFitNode, selectedNodePatch, volumeBoundToClaim, volumeNodeAffinityMatches,
} from '../../src/api/volumebinding.js';

// ---- fixtures ----

function node(name: string, labels: Record<string, string> = {}): any {
  return { metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } } };
}

function sc(name: string, o: { mode?: string; provisioner?: string; isDefault?: boolean; created?: string; topologies?: any[] } = {}): any {
  const out: any = {
    metadata: { name, creationTimestamp: o.created ?? '2024-01-01T00:00:00Z', annotations: o.isDefault ? { 'storageclass.kubernetes.io/is-default-class': 'true' } : {} },
    provisioner: o.provisioner ?? 'rancher.io/local-path', volumeBindingMode: o.mode ?? 'WaitForFirstConsumer', reclaimPolicy: 'Delete',
  };
  if (o.topologies) out.allowedTopologies = o.topologies;
  return out;
}

interface ClaimOpts { ns?: string; cls?: string | null; size?: string; modes?: string[]; volumeName?: string; bound?: boolean; selected?: string; uid?: string; selector?: any; deleting?: boolean; phase?: string; volumeMode?: string }
function pvc(name: string, o: ClaimOpts = {}): any {
  const annotations: Record<string, string> = {};
  if (o.bound) annotations[annBindCompleted] = 'yes';
  if (o.selected) annotations[annSelectedNode] = o.selected;
  const spec: any = { accessModes: o.modes ?? ['ReadWriteOnce'], resources: { requests: { storage: o.size ?? '1Gi' } } };
  if (o.cls !== null) spec.storageClassName = o.cls ?? 'local-path';
  if (o.volumeName) spec.volumeName = o.volumeName;
  if (o.selector) spec.selector = o.selector;
  if (o.volumeMode) spec.volumeMode = o.volumeMode;
  return {
    metadata: { name, namespace: o.ns ?? 'default', uid: o.uid ?? `uid-${name}`, annotations, ...(o.deleting ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}) },
    spec, status: { phase: o.phase ?? (o.bound ? 'Bound' : 'Pending') },
  };
}

interface PVOpts { size?: string; cls?: string; modes?: string[]; node?: string; claim?: any; claimUid?: string | null; phase?: string; labels?: Record<string, string>; deleting?: boolean; volumeMode?: string }
function pv(name: string, o: PVOpts = {}): any {
  const spec: any = {
    capacity: { storage: o.size ?? '1Gi' }, accessModes: o.modes ?? ['ReadWriteOnce'], storageClassName: o.cls ?? 'local-path',
    hostPath: { path: `/data/${name}` },
  };
  if (o.node) spec.nodeAffinity = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [o.node] }] }] } };
  if (o.claim) {
    spec.claimRef = { kind: 'PersistentVolumeClaim', namespace: o.claim.metadata.namespace, name: o.claim.metadata.name };
    if (o.claimUid !== null) spec.claimRef.uid = o.claimUid ?? o.claim.metadata.uid;
  }
  if (o.volumeMode) spec.volumeMode = o.volumeMode;
  return {
    metadata: { name, labels: o.labels ?? {}, ...(o.deleting ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}) },
    spec, status: { phase: o.phase ?? (o.claim ? 'Bound' : 'Available') },
  };
}

function pod(claims: string[], o: { ns?: string; ephemeral?: string[] } = {}): any {
  const volumes = claims.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } }));
  for (const e of o.ephemeral ?? []) volumes.push({ name: e, ephemeral: { volumeClaimTemplate: {} } } as any);
  return { metadata: { name: 'p', namespace: o.ns ?? 'default', uid: 'pod-uid' }, spec: { volumes } };
}

const byKey = (claims: any[]) => new Map(claims.map((c) => [`${c.metadata.namespace}/${c.metadata.name}`, c]));
const byName = (objs: any[]) => new Map(objs.map((o) => [o.metadata.name, o]));
const classes = byName([sc('local-path', { isDefault: true }), sc('fast', { mode: 'Immediate' }), sc('static', { provisioner: 'kubernetes.io/no-provisioner' }),
  sc('zoned', { topologies: [{ matchLabelExpressions: [{ key: 'zone', values: ['a'] }] }] })]);

// ---- classes ----

describe('default StorageClass (GetDefaultClass and DefaultStorageClass admission)', () => {
  const table: [string, any[], string | undefined][] = [
    ['no classes', [], undefined],
    ['none marked default', [sc('a'), sc('b')], undefined],
    ['the one marked default', [sc('a'), sc('b', { isDefault: true })], 'b'],
    ['beta annotation counts', [{ metadata: { name: 'old', annotations: { 'storageclass.beta.kubernetes.io/is-default-class': 'true' } } }], 'old'],
    ['newest of several wins', [sc('a', { isDefault: true, created: '2024-01-01T00:00:00Z' }), sc('b', { isDefault: true, created: '2024-02-01T00:00:00Z' })], 'b'],
    ['same age: lowest name', [sc('z', { isDefault: true }), sc('m', { isDefault: true })], 'm'],
    ['"false" is not default', [{ metadata: { name: 'x', annotations: { 'storageclass.kubernetes.io/is-default-class': 'false' } } }], undefined],
  ];
  for (const [what, list, want] of table) it(what, () => assert.equal(defaultStorageClass(list)?.metadata?.name, want));

  const admission: [string, any, string | undefined | null, boolean][] = [
    ['no class: gets the default', pvc('a', { cls: null }), 'local-path', true],
    ['explicit class kept', pvc('a', { cls: 'fast' }), 'fast', false],
    ['empty class means none, kept', pvc('a', { cls: '' }), '', false],
    ['beta annotation counts as a class', { ...pvc('a', { cls: null }), metadata: { name: 'a', annotations: { 'volume.beta.kubernetes.io/storage-class': 'x' } } }, undefined, false],
  ];
  for (const [what, claim, want, changed] of admission) {
    it(`admission: ${what}`, () => {
      assert.equal(admitDefaultStorageClass(claim, classes.values()), changed);
      assert.equal(claim.spec.storageClassName, want);
    });
  }
  it('admission without a default class does nothing', () => {
    const claim = pvc('a', { cls: null });
    assert.equal(admitDefaultStorageClass(claim, [sc('a')]), false);
    assert.equal(claimHasClass(claim), false);
  });
  it('the beta annotation wins over spec.storageClassName', () => {
    const claim = pvc('a', { cls: 'spec' });
    claim.metadata.annotations['volume.beta.kubernetes.io/storage-class'] = 'ann';
    assert.equal(claimClass(claim), 'ann');
  });
  it('binding mode: WaitForFirstConsumer only for such a class', () => {
    assert.equal(isDelayBindingMode(pvc('a'), classes), true);
    assert.equal(isDelayBindingMode(pvc('a', { cls: 'fast' }), classes), false);
    assert.equal(isDelayBindingMode(pvc('a', { cls: 'missing' }), classes), false);
    assert.equal(isDelayBindingMode(pvc('a', { cls: '' }), classes), false);
  });
});

// ---- volumes ----

describe('PV node affinity against node labels', () => {
  const table: [string, any, Record<string, string> | undefined, boolean][] = [
    ['no affinity fits anywhere', pv('a'), {}, true],
    ['hostname In matches', pv('a', { node: 'n1' }), { 'kubernetes.io/hostname': 'n1' }, true],
    ['other host does not', pv('a', { node: 'n1' }), { 'kubernetes.io/hostname': 'n2' }, false],
    ['missing label does not', pv('a', { node: 'n1' }), {}, false],
    ['empty term list matches nothing', { spec: { nodeAffinity: { required: { nodeSelectorTerms: [] } } } }, { a: 'b' }, false],
    ['matchFields never match (labels only)', { spec: { nodeAffinity: { required: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] } } } }, { 'kubernetes.io/hostname': 'n1' }, false],
    ['terms are ORed', { spec: { nodeAffinity: { required: { nodeSelectorTerms: [
      { matchExpressions: [{ key: 'zone', operator: 'In', values: ['x'] }] }, { matchExpressions: [{ key: 'zone', operator: 'In', values: ['y'] }] }] } } } }, { zone: 'y' }, true],
  ];
  for (const [what, vol, labels, want] of table) it(what, () => assert.equal(volumeNodeAffinityMatches(vol, labels), want));
});

describe('FindMatchingVolume', () => {
  const claim = pvc('c', { size: '5Gi' });
  const none = new Set<string>();
  const table: [string, any, any[], any, boolean, string | undefined][] = [
    ['smallest big-enough Available PV', claim, [pv('big', { size: '10Gi' }), pv('small', { size: '5Gi' }), pv('tiny', { size: '1Gi' })], undefined, false, 'small'],
    ['nothing big enough', claim, [pv('tiny', { size: '1Gi' })], undefined, false, undefined],
    ['another class is skipped', claim, [pv('x', { size: '5Gi', cls: 'other' })], undefined, false, undefined],
    ['a PV bound elsewhere is skipped', claim, [pv('x', { size: '5Gi', claim: pvc('other') })], undefined, false, undefined],
    ['a non-Available phase is skipped', claim, [pv('x', { size: '5Gi', phase: 'Released' })], undefined, false, undefined],
    ['a PV being deleted is skipped', claim, [pv('x', { size: '5Gi', deleting: true })], undefined, false, undefined],
    ['volume mode must match', claim, [pv('x', { size: '5Gi', volumeMode: 'Block' })], undefined, false, undefined],
    ['pre-bound to the claim wins over a smaller free one', claim, [pv('free', { size: '5Gi' }), pv('mine', { size: '50Gi', claim })], undefined, false, 'mine'],
    ['pre-bound without UID counts', claim, [pv('mine', { size: '5Gi', claim, claimUid: null, phase: 'Available' })], undefined, false, 'mine'],
    ['pre-bound to an old claim UID does not', claim, [pv('x', { size: '5Gi', claim, claimUid: 'old' })], undefined, false, undefined],
    ['delayed binding without node: only pre-bound', claim, [pv('free', { size: '5Gi' })], undefined, true, undefined],
    ['delayed binding without node: pre-bound found', claim, [pv('mine', { size: '5Gi', claim })], undefined, true, 'mine'],
    ['with node: affinity must fit', claim, [pv('x', { size: '5Gi', node: 'n2' })], node('n1'), true, undefined],
    ['with node: fitting one found', claim, [pv('x', { size: '5Gi', node: 'n2' }), pv('y', { size: '5Gi', node: 'n1' })], node('n1'), true, 'y'],
    ['with node: pre-bound PV on another node is no match at all', claim, [pv('mine', { size: '5Gi', claim, node: 'n2' }), pv('y', { size: '5Gi', node: 'n1' })], node('n1'), true, undefined],
    ['with node: access modes must be offered', pvc('c', { modes: ['ReadWriteMany'] }), [pv('x')], node('n1'), true, undefined],
    ['selector on labels', pvc('c', { selector: { matchLabels: { tier: 'gold' } } }), [pv('a'), pv('b', { labels: { tier: 'gold' } })], undefined, false, 'b'],
  ];
  for (const [what, c, vols, n, delay, want] of table) {
    it(what, () => assert.equal(findMatchingVolume(c, vols, n, none, delay)?.metadata?.name, want));
  }
  it('excluded volumes are skipped', () => {
    assert.equal(findMatchingVolume(claim, [pv('a', { size: '5Gi' })], undefined, new Set(['a']), false), undefined);
  });
  it('isVolumeBoundToClaim: name, namespace and UID (or none)', () => {
    assert.equal(isVolumeBoundToClaim(pv('a', { claim }), claim), true);
    assert.equal(isVolumeBoundToClaim(pv('a', { claim: pvc('c', { ns: 'other' }) }), claim), false);
    assert.equal(isVolumeBoundToClaim(pv('a'), claim), false);
  });
});

// ---- the plugin ----

describe('podVolumesFitNode', () => {
  const n1 = node('n1', { zone: 'a' });
  const n2 = node('n2', { zone: 'b' });
  const boundClaim = pvc('data', { bound: true, volumeName: 'pv-n1' });
  const pvN1 = pv('pv-n1', { node: 'n1', claim: boundClaim });
  type Row = [string, any, any, any[], any[], { ok: boolean; reasons?: string[]; code?: string }];
  const table: Row[] = [
    ['no claims: fits', pod([]), n1, [], [], { ok: true }],
    ['bound PV pinned here', pod(['data']), n1, [boundClaim], [pvN1], { ok: true }],
    ['bound PV pinned elsewhere', pod(['data']), n2, [boundClaim], [pvN1], { ok: false, reasons: [errReasonNodeConflict], code: 'UnschedulableAndUnresolvable' }],
    ['bound to a missing PV', pod(['data']), n1, [boundClaim], [], { ok: false, reasons: [errReasonPVNotExist] }],
    ['missing claim', pod(['nope']), n1, [], [], { ok: false, reasons: ['persistentvolumeclaim "nope" not found'] }],
    ['claim being deleted', pod(['d']), n1, [pvc('d', { deleting: true })], [], { ok: false, reasons: ['persistentvolumeclaim "d" is being deleted'] }],
    ['lost claim', pod(['l']), n1, [pvc('l', { phase: 'Lost', volumeName: 'gone' })], [], { ok: false, reasons: ['persistentvolumeclaim "l" bound to non-existent persistentvolume "gone"'] }],
    ['unbound Immediate claim', pod(['i']), n1, [pvc('i', { cls: 'fast' })], [], { ok: false, reasons: [errReasonUnboundImmediate] }],
    ['unbound claim without class is immediate', pod(['i']), n1, [pvc('i', { cls: '' })], [], { ok: false, reasons: [errReasonUnboundImmediate] }],
    ['pre-bound WFFC claim is immediate', pod(['i']), n1, [pvc('i', { volumeName: 'x' })], [], { ok: false, reasons: [errReasonUnboundImmediate] }],
    ['unbound WFFC claim: provisionable anywhere', pod(['w']), n2, [pvc('w')], [], { ok: true }],
    ['unbound WFFC claim with selected node: that node', pod(['w']), n1, [pvc('w', { selected: 'n1' })], [], { ok: true }],
    ['unbound WFFC claim with selected node: not another', pod(['w']), n2, [pvc('w', { selected: 'n1' })], [], { ok: false, reasons: [errReasonBindConflict] }],
    ['no-provisioner class needs a static PV', pod(['s']), n1, [pvc('s', { cls: 'static' })], [], { ok: false, reasons: [errReasonBindConflict] }],
    ['no-provisioner class with a static PV on the node', pod(['s']), n1, [pvc('s', { cls: 'static' })], [pv('local1', { cls: 'static', node: 'n1' })], { ok: true }],
    ['no-provisioner class with a static PV elsewhere', pod(['s']), n2, [pvc('s', { cls: 'static' })], [pv('local1', { cls: 'static', node: 'n1' })], { ok: false, reasons: [errReasonBindConflict] }],
    ['allowedTopologies admit the node', pod(['z']), n1, [pvc('z', { cls: 'zoned' })], [], { ok: true }],
    ['allowedTopologies refuse the node', pod(['z']), n2, [pvc('z', { cls: 'zoned' })], [], { ok: false, reasons: [errReasonBindConflict] }],
    ['both a conflict and a bind conflict', pod(['data', 'w']), n2, [boundClaim, pvc('w', { selected: 'n1' })], [pvN1], { ok: false, reasons: [errReasonNodeConflict, errReasonBindConflict] }],
    ['ephemeral claim not created yet', pod([], { ephemeral: ['scratch'] }), n1, [], [], { ok: false, reasons: ['waiting for ephemeral volume controller to create the persistentvolumeclaim "p-scratch"'] }],
  ];
  for (const [what, p, n, claims, vols, want] of table) {
    it(what, () => {
      const r = podVolumesFitNode(p, n, byKey(claims), byName(vols), classes);
      assert.equal(r.ok, want.ok);
      if (!r.ok) {
        if (want.reasons) assert.deepEqual(r.reasons, want.reasons);
        assert.equal(r.reason, r.reasons[0]);
        assert.equal(r.code, want.code ?? 'UnschedulableAndUnresolvable');
      }
    });
  }
  it('a WFFC claim whose class vanished is an error, not unschedulable', () => {
    const claim = pvc('w', { cls: 'gone' });
    const cls = new Map([['gone', sc('gone')]]);
    const claims = byKey([claim]);
    // the class is known at PreFilter (delay binding) but missing at Filter
    const lookups = { get: (k: string) => (k === 'gone' && calls++ === 0 ? cls.get(k) : undefined) };
    let calls = 0;
    const r = podVolumesFitNode(pod(['w']), n1, claims, byName([]), lookups);
    assert.equal(r.ok, false);
    if (!r.ok) { assert.equal(r.code, 'Error'); assert.equal(r.reason, 'failed to find storage class "gone"'); }
  });
  it('informers work as lookups as they are (get and list)', () => {
    const claims = byKey([pvc('s', { cls: 'static' })]);
    const informerLike = { get: (k: string) => (k === 'local1' ? vol : undefined), list: () => [vol] };
    const vol = pv('local1', { cls: 'static', node: 'n1' });
    assert.deepEqual(podVolumesFitNode(pod(['s']), n1, claims, informerLike, classes), { ok: true });
    assert.equal(podVolumesFitNode(pod(['s']), n2, claims, informerLike, classes).ok, false);
  });
  it('claim names: PVC volumes and <pod>-<volume> for ephemeral ones', () => {
    assert.deepEqual(podClaimNames(pod(['a'], { ephemeral: ['e'] })), [{ name: 'a', ephemeral: false }, { name: 'p-e', ephemeral: true }]);
  });
});

describe('PreBind plan for the scheduler', () => {
  it('claims to annotate with the selected node: unbound WFFC claims without a static match', () => {
    const claims = byKey([pvc('a'), pvc('b', { selected: 'n1' }), pvc('c', { bound: true, volumeName: 'pv-c' })]);
    const vols = byName([pv('pv-c', { claim: pvc('c'), node: 'n1' })]);
    const plan = podVolumeBindingsForNode(pod(['a', 'b', 'c']), node('n1'), claims, vols, classes);
    assert.deepEqual(plan.dynamicProvisions.map((c) => c.metadata?.name), ['a']);
    assert.deepEqual(plan.staticBindings, []);
  });
  it('static bindings pick distinct PVs for two claims', () => {
    const claims = byKey([pvc('a', { cls: 'static' }), pvc('b', { cls: 'static' })]);
    const vols = byName([pv('l1', { cls: 'static', node: 'n1' }), pv('l2', { cls: 'static', node: 'n1' })]);
    const plan = podVolumeBindingsForNode(pod(['a', 'b']), node('n1'), claims, vols, classes);
    assert.deepEqual(plan.staticBindings.map((b) => [b.pvc.metadata?.name, b.pv.metadata?.name]), [['a', 'l1'], ['b', 'l2']]);
    const written = volumeBoundToClaim(plan.staticBindings[0].pv, plan.staticBindings[0].pvc);
    assert.equal(written?.spec?.claimRef?.uid, 'uid-a');
    assert.equal(written?.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller'], 'yes');
  });
  it('nothing to do for a pod that does not fit', () => {
    const plan = podVolumeBindingsForNode(pod(['w']), node('n2'), byKey([pvc('w', { selected: 'n1' })]), byName([]), classes);
    assert.deepEqual(plan, { staticBindings: [], dynamicProvisions: [] });
  });
  it('selected-node patch', () => {
    assert.deepEqual(selectedNodePatch('n1'), { metadata: { annotations: { 'volume.kubernetes.io/selected-node': 'n1' } } });
  });
  it('volumeBoundToClaim: unchanged when already bound; no bound-by-controller when the user pre-bound', () => {
    const claim = pvc('a');
    assert.equal(volumeBoundToClaim(pv('x', { claim }), claim), undefined);
    const prebound = volumeBoundToClaim(pv('x', { claim, claimUid: null }), claim);
    assert.equal(prebound?.spec?.claimRef?.uid, 'uid-a');
    assert.equal(prebound?.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller'], undefined);
  });
});
