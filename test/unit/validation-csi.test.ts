/**
 * The CSI objects of storage.k8s.io/v1: CSIDriver defaults, and the
 * validation rules of CSIDriver, CSINode, VolumeAttachment and
 * CSIStorageCapacity (table-driven), and their printer columns.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { applyDefaults } from '../../src/api/defaults/index.js';
import { fieldErrorMessage } from '../../src/api/field-errors.js';
import { validateCreate, validateUpdate } from '../../src/api/validation/index.js';
import { printTable } from '../../src/registry/printers/index.js';
import { csiNodeFor } from '../../src/kubelet/csinode.js';

const key = (kind: string) => `storage.k8s.io/v1/${kind}`;
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));
const created = (kind: string, obj: any) => { applyDefaults(key(kind), obj); return validateCreate(key(kind), obj).map(fieldErrorMessage); };
const updated = (kind: string, obj: any, old: any) => { applyDefaults(key(kind), obj); return validateUpdate(key(kind), obj, old).map(fieldErrorMessage); };

describe('CSIDriver', () => {
  const driver = () => ({ metadata: { name: 'hostpath.csi.k8s.io', resourceVersion: '1' }, spec: {} as any });

  it('defaults as upstream 1.32', () => {
    const d = driver();
    applyDefaults(key('CSIDriver'), d);
    assert.deepEqual(d.spec, {
      attachRequired: true, podInfoOnMount: false, storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType',
      volumeLifecycleModes: ['Persistent'], requiresRepublish: false, seLinuxMount: false,
    });
  });

  const cases: Array<[string, (d: any) => void, string[]]> = [
    ['valid', () => {}, []],
    ['bad name', (d) => { d.metadata.name = 'Not_A_Name'; }, ['metadata.name: Invalid value: "Not_A_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')']],
    ['unknown fsGroupPolicy', (d) => { d.spec.fsGroupPolicy = 'Always'; }, ['spec.fsGroupPolicy: Unsupported value: "Always": supported values: "File", "None", "ReadWriteOnceWithFSType"']],
    ['unknown lifecycle mode', (d) => { d.spec.volumeLifecycleModes = ['Forever']; }, ['spec.volumeLifecycleModes: Unsupported value: "Forever": supported values: "Persistent", "Ephemeral"']],
    ['duplicate audience, short token', (d) => { d.spec.tokenRequests = [{ audience: 'a', expirationSeconds: 60 }, { audience: 'a' }]; },
      ['spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes', 'spec.tokenRequests[1].audience: Duplicate value: "a"']],
  ];
  for (const [name, mutate, want] of cases) it(name, () => { const d = driver(); mutate(d); assert.deepEqual(created('CSIDriver', d), want); });

  it('attachRequired and volumeLifecycleModes are immutable; podInfoOnMount and requiresRepublish may change', () => {
    const old = driver();
    applyDefaults(key('CSIDriver'), old);
    const next = clone(old);
    next.spec.podInfoOnMount = true;
    next.spec.requiresRepublish = true;
    assert.deepEqual(updated('CSIDriver', next, old), []);
    next.spec.attachRequired = false;
    next.spec.volumeLifecycleModes = ['Ephemeral'];
    assert.deepEqual(updated('CSIDriver', next, old), [
      'spec.attachedRequired: Invalid value: false: field is immutable',
      'spec.volumeLifecycleModes: Invalid value: ["Ephemeral"]: field is immutable',
    ]);
  });
});

describe('CSINode', () => {
  const node = () => ({ metadata: { name: 'worker1', resourceVersion: '1' }, spec: { drivers: [{ name: 'hostpath.csi.k8s.io', nodeID: 'worker1', topologyKeys: ['topology.hostpath.csi/node'] }] } });

  it('the kubelet\'s CSINode is valid: named and owned like its Node, no drivers', () => {
    const n = csiNodeFor({ metadata: { name: 'worker1', uid: 'u-1' } });
    assert.deepEqual(n.metadata!.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'worker1', uid: 'u-1' }]);
    assert.deepEqual(n.spec, { drivers: [] });
    assert.deepEqual(created('CSINode', n), []);
  });

  const cases: Array<[string, (n: any) => void, string[]]> = [
    ['valid', () => {}, []],
    ['no node ID', (n) => { n.spec.drivers[0].nodeID = ''; }, ['spec.drivers[0].nodeID: Required value']],
    ['node ID too long', (n) => { n.spec.drivers[0].nodeID = 'x'.repeat(193); }, [`spec.drivers[0].nodeID: Invalid value: "${'x'.repeat(193)}": must be 192 characters or less`]],
    ['a driver twice', (n) => { n.spec.drivers.push(clone(n.spec.drivers[0])); }, ['spec.drivers[1].name: Duplicate value: "hostpath.csi.k8s.io"']],
    ['negative volume count', (n) => { n.spec.drivers[0].allocatable = { count: -1 }; }, ['spec.drivers[0].allocatable.count: Invalid value: -1: must be greater than or equal to 0']],
  ];
  for (const [name, mutate, want] of cases) it(name, () => { const n = node(); mutate(n); assert.deepEqual(created('CSINode', n), want); });

  it('a registered driver cannot change; drivers may be added', () => {
    const old = node();
    const added = clone(old);
    added.spec.drivers.push({ name: 'other.csi', nodeID: 'n', topologyKeys: [] });
    assert.deepEqual(updated('CSINode', added, old), []);
    const changed = clone(old);
    changed.spec.drivers[0].nodeID = 'elsewhere';
    assert.equal(updated('CSINode', changed, old).length, 1);
    assert.match(updated('CSINode', changed, old)[0], /^spec\.drivers: Invalid value: .*: field is immutable$/);
  });
});

describe('VolumeAttachment', () => {
  const va = () => ({ metadata: { name: 'va1', resourceVersion: '1' }, spec: { attacher: 'hostpath.csi.k8s.io', nodeName: 'worker1', source: { persistentVolumeName: 'pv1' } as any } });
  const cases: Array<[string, (v: any) => void, string[]]> = [
    ['valid', () => {}, []],
    ['no attacher', (v) => { v.spec.attacher = ''; }, ['spec.attacher: Required value', 'spec.attacher: Required value', 'spec.attacher: Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')']],
    ['no source', (v) => { v.spec.source = {}; }, ['spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName']],
    ['both sources', (v) => { v.spec.source.inlineVolumeSpec = {}; }, ['spec.source: Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName']],
  ];
  for (const [name, mutate, want] of cases) it(name, () => { const v = va(); mutate(v); assert.deepEqual(created('VolumeAttachment', v), want); });

  it('the spec is immutable; the status may change', () => {
    const old = va();
    const moved = clone(old);
    moved.spec.nodeName = 'worker2';
    assert.deepEqual(updated('VolumeAttachment', moved, old), ['spec: Invalid value: {"attacher":"hostpath.csi.k8s.io","nodeName":"worker2","source":{"persistentVolumeName":"pv1"}}: field is immutable']);
    assert.deepEqual(updated('VolumeAttachment', { ...clone(old), status: { attached: true } }, old), []);
  });
});

describe('CSIStorageCapacity', () => {
  const cap = () => ({ metadata: { name: 'c1', namespace: 'default', resourceVersion: '1' }, storageClassName: 'fast', capacity: '10Gi', nodeTopology: { matchLabels: { zone: 'a' } } } as any);
  it('valid, and a negative capacity is refused', () => {
    assert.deepEqual(created('CSIStorageCapacity', cap()), []);
    assert.deepEqual(created('CSIStorageCapacity', { ...cap(), capacity: '-1Gi' }), ['capacity: Invalid value: "-1Gi": must be greater than or equal to 0']);
  });
  it('class and topology are immutable; capacity may change', () => {
    const old = cap();
    assert.deepEqual(updated('CSIStorageCapacity', { ...clone(old), capacity: '5Gi' }, old), []);
    assert.deepEqual(updated('CSIStorageCapacity', { ...clone(old), storageClassName: 'slow' }, old), ['storageClassName: Invalid value: "slow": field is immutable']);
  });
});

describe('CSI printers', () => {
  const now = new Date('2026-01-01T00:10:00Z');
  const meta = (name: string) => ({ name, creationTimestamp: '2026-01-01T00:00:00Z' });
  it('CSIDriver', () => {
    const d: any = { metadata: meta('hostpath.csi.k8s.io'), spec: { tokenRequests: [{ audience: 'a' }, { audience: 'b' }] } };
    applyDefaults(key('CSIDriver'), d);
    const t = printTable(key('CSIDriver'), [d], { now });
    assert.deepEqual(t.columnDefinitions.map((c) => c.name), ['Name', 'AttachRequired', 'PodInfoOnMount', 'StorageCapacity', 'TokenRequests', 'RequiresRepublish', 'Modes', 'Age']);
    assert.deepEqual(t.rows[0].cells, ['hostpath.csi.k8s.io', true, false, false, 'a,b', false, 'Persistent', '10m']);
  });
  it('CSINode, VolumeAttachment, CSIStorageCapacity', () => {
    assert.deepEqual(printTable(key('CSINode'), [{ metadata: meta('w1'), spec: { drivers: [] } }], { now }).rows[0].cells, ['w1', 0, '10m']);
    const va = { metadata: meta('va1'), spec: { attacher: 'x.csi', nodeName: 'w1', source: { persistentVolumeName: 'pv1' } }, status: { attached: true } };
    assert.deepEqual(printTable(key('VolumeAttachment'), [va], { now }).rows[0].cells, ['va1', 'x.csi', 'pv1', 'w1', true, '10m']);
    const t = printTable(key('CSIStorageCapacity'), [{ metadata: meta('c1'), storageClassName: 'fast', capacity: '1024Mi' }, { metadata: meta('c2'), storageClassName: 'fast' }], { now });
    assert.deepEqual(t.columnDefinitions.map((c) => c.name), ['Name', 'StorageClassName', 'Capacity']);
    assert.deepEqual(t.rows.map((r) => r.cells), [['c1', 'fast', '1Gi'], ['c2', 'fast', '<unset>']]);
  });
});
