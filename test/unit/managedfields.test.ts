/**
 * Managed fields and server-side apply: FieldsV1 encoding, set algebra,
 * typed field sets and comparisons, merge, and the Update/Apply operations
 * with upstream's conflict messages.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  FieldSet, applyConfiguration, compare, conflictMessage, merge, pathToString, toFieldSet, typeForKind, updateManagedFields,
} from '../../src/api/managedfields/index.js';
import { StatusError } from '../../src/api/status.js';

const deployment = typeForKind('apps/v1/Deployment');
const pod = typeForKind('v1/Pod');
const unknownKind = typeForKind('example.com/v1/Widget');
const now = new Date('2026-01-02T03:04:05.678Z');

describe('FieldsV1 encoding', () => {
  const cases: { name: string; fields: object }[] = [
    { name: 'leaves', fields: { 'f:spec': { 'f:replicas': {} } } },
    { name: 'member with children', fields: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } } },
    { name: 'keys and values', fields: { 'f:spec': { 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {} } } }, 'f:metadata': { 'f:finalizers': { 'v:"a"': {} } } } },
    { name: 'index', fields: { 'f:items': { 'i:0': {} } } },
  ];
  for (const c of cases) {
    it(`round-trips ${c.name}`, () => {
      assert.deepEqual(FieldSet.fromFieldsV1(c.fields).toFieldsV1(), c.fields);
    });
  }
  it('orders fields before keys, values and indexes, and keys by their values', () => {
    const s = FieldSet.of(['i:1'], ['v:"b"'], ['k:{"port":443}'], ['k:{"port":80}'], ['f:z'], ['f:a']);
    assert.deepEqual(Object.keys(s.toFieldsV1()), ['f:a', 'f:z', 'k:{"port":80}', 'k:{"port":443}', 'v:"b"', 'i:1']);
  });
  it('refuses a malformed element', () => {
    assert.throws(() => FieldSet.fromFieldsV1({ 'x:y': {} }), /invalid path element/);
    assert.throws(() => FieldSet.fromFieldsV1({ 'k:notjson': {} }), /invalid path element/);
  });
  it('prints paths as upstream', () => {
    assert.equal(pathToString(['f:spec', 'f:containers', 'k:{"name":"x"}', 'f:image']), '.spec.containers[name="x"].image');
    assert.equal(pathToString(['f:metadata', 'f:finalizers', 'v:"a"']), '.metadata.finalizers[="a"]');
    assert.equal(pathToString(['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}']), '.spec.ports[port=80,protocol="TCP"]');
  });
});

describe('set algebra', () => {
  const a = FieldSet.of(['f:a'], ['f:b', 'f:c'], ['f:b'], ['f:d', 'f:e']);
  const b = FieldSet.of(['f:b'], ['f:d', 'f:e'], ['f:x']);
  const cases: { name: string; got: FieldSet; want: object }[] = [
    { name: 'union', got: a.union(b), want: { 'f:a': {}, 'f:b': { '.': {}, 'f:c': {} }, 'f:d': { 'f:e': {} }, 'f:x': {} } },
    { name: 'intersection', got: a.intersection(b), want: { 'f:b': {}, 'f:d': { 'f:e': {} } } },
    { name: 'difference keeps children of a removed member', got: a.difference(b), want: { 'f:a': {}, 'f:b': { 'f:c': {} } } },
    { name: 'recursive difference drops them', got: a.recursiveDifference(b), want: { 'f:a': {} } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(c.got.toFieldsV1(), c.want));
  it('empty and equality', () => {
    assert.ok(a.difference(a).isEmpty());
    assert.ok(a.union(b).equals(b.union(a)));
    assert.ok(!a.equals(b));
    assert.deepEqual(a.paths().map(pathToString), ['.a', '.b', '.b.c', '.d.e']);
  });
});

describe('typed field sets', () => {
  const cases: { name: string; type: typeof pod; value: object; want: object }[] = [
    {
      name: 'struct fields are leaves, map entries and list items members',
      type: deployment,
      value: { metadata: { name: 'x', labels: { app: 'a' } }, spec: { replicas: 2, selector: { matchLabels: { app: 'a' } }, template: { spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }] }] } } } },
      want: {
        'f:metadata': { 'f:labels': { 'f:app': {} }, 'f:name': {} },
        'f:spec': {
          'f:replicas': {}, 'f:selector': {},
          'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {}, 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } } } } } },
        },
      },
    },
    {
      name: 'sets, atomic lists and empty structs',
      type: pod,
      value: { metadata: { finalizers: ['a', 'b'] }, spec: { tolerations: [{ key: 'k' }], securityContext: {} } },
      want: { 'f:metadata': { 'f:finalizers': { 'v:"a"': {}, 'v:"b"': {} } }, 'f:spec': { 'f:securityContext': {}, 'f:tolerations': {} } },
    },
    {
      name: 'no schema: maps granular, lists atomic',
      type: unknownKind,
      value: { spec: { size: 3, items: [1, 2], nested: { a: 'b' } } },
      want: { 'f:spec': { '.': {}, 'f:items': {}, 'f:nested': { '.': {}, 'f:a': {} }, 'f:size': {} } },
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(toFieldSet(c.value, c.type).toFieldsV1(), c.want));

  it('refuses an associative list item without its key', () => {
    assert.throws(() => toFieldSet({ spec: { containers: [{ image: 'x' }] } }, pod), /omits key field "name"/);
  });
});

describe('compare', () => {
  const cases: { name: string; lhs: object; rhs: object; added: object; modified: object; removed: object }[] = [
    {
      name: 'a new map is added with its entries',
      lhs: { metadata: {} }, rhs: { metadata: { labels: { a: '1' } } },
      added: { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } }, modified: {}, removed: {},
    },
    {
      name: 'changed and removed leaves',
      lhs: { spec: { replicas: 1, paused: true } }, rhs: { spec: { replicas: 2 } },
      added: {}, modified: { 'f:spec': { 'f:replicas': {} } }, removed: { 'f:spec': { 'f:paused': {} } },
    },
    {
      name: 'list items by key',
      lhs: { spec: { template: { spec: { containers: [{ name: 'a', image: '1' }] } } } },
      rhs: { spec: { template: { spec: { containers: [{ name: 'a', image: '2' }, { name: 'b' }] } } } },
      added: { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"b"}': { '.': {}, 'f:name': {} } } } } } },
      modified: { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"a"}': { 'f:image': {} } } } } } },
      removed: {},
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = compare(c.lhs, c.rhs, deployment);
      assert.deepEqual(got.added.toFieldsV1(), c.added);
      assert.deepEqual(got.modified.toFieldsV1(), c.modified);
      assert.deepEqual(got.removed.toFieldsV1(), c.removed);
    });
  }
});

describe('merge', () => {
  const cases: { name: string; live: unknown; config: unknown; want: unknown }[] = [
    { name: 'maps merge', live: { spec: { replicas: 1, paused: true } }, config: { spec: { replicas: 3 } }, want: { spec: { replicas: 3, paused: true } } },
    {
      name: 'associative lists merge by key, config order first',
      live: { spec: { template: { spec: { containers: [{ name: 'a', image: '1' }, { name: 'b', image: '1' }] } } } },
      config: { spec: { template: { spec: { containers: [{ name: 'c', image: '3' }, { name: 'a', image: '2' }] } } } },
      want: { spec: { template: { spec: { containers: [{ name: 'c', image: '3' }, { name: 'a', image: '2' }, { name: 'b', image: '1' }] } } } },
    },
    {
      name: 'atomic lists and structs are replaced',
      live: { spec: { selector: { matchLabels: { a: '1' } }, template: { spec: { tolerations: [{ key: 'x' }] } } } },
      config: { spec: { selector: { matchLabels: { b: '2' } }, template: { spec: { tolerations: [{ key: 'y' }] } } } },
      want: { spec: { selector: { matchLabels: { b: '2' } }, template: { spec: { tolerations: [{ key: 'y' }] } } } },
    },
    { name: 'sets union', live: { metadata: { finalizers: ['a', 'b'] } }, config: { metadata: { finalizers: ['c', 'a'] } }, want: { metadata: { finalizers: ['c', 'a', 'b'] } } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(merge(c.live, c.config, deployment), c.want));
});

const ctx = { kindKey: 'apps/v1/Deployment', apiVersion: 'apps/v1', now };
const dep = (replicas: number, extra: object = {}) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', ...extra },
  spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

describe('update operations', () => {
  it('a create owns what it set; value structs that were there empty carry no "."', () => {
    const created = dep(1, { labels: { a: 'b' } });
    const mf = updateManagedFields(undefined, created, { ...ctx, manager: 'kubectl-create' })!;
    assert.equal(mf.length, 1);
    assert.deepEqual({ ...mf[0], fieldsV1: undefined }, { manager: 'kubectl-create', operation: 'Update', apiVersion: 'apps/v1', time: '2026-01-02T03:04:05Z', fieldsType: 'FieldsV1', fieldsV1: undefined });
    const f = mf[0].fieldsV1 as any;
    assert.deepEqual(f['f:metadata'], { 'f:labels': { '.': {}, 'f:a': {} } });
    assert.deepEqual(f['f:spec']['f:replicas'], {});
    assert.ok(!('.' in f['f:spec']), 'spec existed in the zero object');
    assert.deepEqual(f['f:spec']['f:template']['f:spec']['f:containers'], { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } });
  });
  it('another manager takes the fields it changes; a no-op keeps the time', () => {
    const v1 = dep(1);
    v1.metadata = { ...v1.metadata, managedFields: updateManagedFields(undefined, v1, { ...ctx, manager: 'a' }) } as any;
    const v2 = structuredClone(v1);
    v2.spec.replicas = 5;
    const later = new Date('2026-01-02T04:00:00Z');
    const mf = updateManagedFields(v1, v2, { ...ctx, manager: 'b', subresource: 'scale', now: later })!;
    assert.deepEqual(mf.map((e) => [e.manager, e.subresource, e.time]), [['a', undefined, '2026-01-02T03:04:05Z'], ['b', 'scale', '2026-01-02T04:00:00Z']]);
    assert.ok(!('f:replicas' in (mf[0].fieldsV1 as any)['f:spec']));
    assert.deepEqual(mf[1].fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    const same = updateManagedFields(v1, structuredClone(v1), { ...ctx, manager: 'a', now: later })!;
    assert.equal(same[0].time, '2026-01-02T03:04:05Z');
  });
  it('a status write keeps the entries it leaves alone as stored, and re-encodes those it changes', () => {
    const live: any = {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'd', labels: { app: 'a' } },
      spec: { containers: [{ name: 'c', image: 'i' }] }, status: { phase: 'Pending', qosClass: 'BestEffort' },
    };
    const podCtx = { kindKey: 'v1/Pod', apiVersion: 'v1', now };
    live.metadata.managedFields = updateManagedFields(undefined, live, { ...podCtx, manager: 'daemonset-controller', ignoredFields: ['status'] });
    const next: any = { apiVersion: 'v1', kind: 'Pod', metadata: structuredClone(live.metadata), status: { phase: 'Running', qosClass: 'BestEffort', podIP: '10.0.0.1' } };
    const later = new Date('2026-01-02T04:00:00Z');
    const mf = updateManagedFields(live, next, { ...podCtx, manager: 'kubelet', subresource: 'status', now: later, ignoredFields: ['spec'] })!;
    assert.deepEqual(mf[0], live.metadata.managedFields[0], 'the creator\'s entry as stored');
    assert.notEqual(mf[0], live.metadata.managedFields[0], 'a copy: the live object may be the watch cache\'s');
    assert.deepEqual(mf[1], {
      manager: 'kubelet', operation: 'Update', apiVersion: 'v1', time: '2026-01-02T04:00:00Z', fieldsType: 'FieldsV1',
      fieldsV1: { 'f:status': { 'f:phase': {}, 'f:podIP': {} } }, subresource: 'status',
    });
    // The same write by the creator's own manager changes its entry: re-encoded from the set, as before.
    const own = updateManagedFields(live, structuredClone(next), { ...podCtx, manager: 'daemonset-controller', now: later, ignoredFields: ['spec'], subresource: 'status' })!;
    assert.deepEqual(own.map((e) => [e.manager, e.subresource ?? '']), [['daemonset-controller', ''], ['daemonset-controller', 'status']]);
    assert.deepEqual(own[0].fieldsV1, live.metadata.managedFields[0].fieldsV1);
    // Another manager taking a field of the creator's (a label) re-encodes the creator's entry without it.
    const relabelled: any = structuredClone(live);
    relabelled.metadata.labels.app = 'b';
    const taken = updateManagedFields(live, relabelled, { ...podCtx, manager: 'kubectl-label', now: later, ignoredFields: ['status'] })!;
    assert.deepEqual((taken[0].fieldsV1 as any)['f:metadata'], { 'f:labels': {} });
    assert.deepEqual(taken[1].fieldsV1, { 'f:metadata': { 'f:labels': { 'f:app': {} } } });
  });
});

describe('create managed fields, remembered per shape', () => {
  const create = (obj: object, manager: string, at = now) => updateManagedFields(undefined, obj, { ...ctx, manager, now: at })!;
  it('another name of the same shape owns the same fields, at its own time', () => {
    const first = create(dep(1, { labels: { a: 'b' } }), 'shape-1');
    const later = new Date('2026-01-02T05:06:07Z');
    const second = create({ ...dep(1, { labels: { a: 'b' } }), metadata: { name: 'other', namespace: 'ns', labels: { a: 'b' } } }, 'shape-1', later);
    assert.deepEqual(second, [{ ...first[0], time: '2026-01-02T05:06:07Z' }]);
    assert.notEqual(second[0], first[0], 'each create gets its own entry');
    assert.ok(Object.isFrozen(second[0].fieldsV1) && Object.isFrozen((second[0].fieldsV1 as any)['f:spec']), 'the shared FieldsV1 is read-only');
  });
  it('answers as the general path does for every shape: label values do not matter, label keys do', () => {
    // A new manager is a new context: its first create is computed, not remembered.
    const fresh = (obj: object) => create(obj, `fresh-${Math.random()}`)[0].fieldsV1;
    for (const labels of [{ a: 'b' }, { a: 'c' }, { x: 'y' }, {}]) {
      assert.deepEqual(create(dep(2, { labels }), 'shape-2')[0].fieldsV1, fresh(dep(2, { labels })), JSON.stringify(labels));
    }
    assert.deepEqual(create(dep(2, { labels: { a: 'c' } }), 'shape-2')[0].fieldsV1, create(dep(2, { labels: { a: 'b' } }), 'shape-2')[0].fieldsV1);
    assert.notDeepEqual(create(dep(2, { labels: { x: 'y' } }), 'shape-2')[0].fieldsV1, create(dep(2, { labels: { a: 'b' } }), 'shape-2')[0].fieldsV1);
  });
  it('a DaemonSet\'s pods and Events share a shape across nodes and objects, and answer as the general path does', () => {
    const podCtx = (manager: string) => ({ kindKey: 'v1/Pod', apiVersion: 'v1', manager, now, ignoredFields: ['status'] });
    const daemonPod = (node: string, container = 'http-go', finalizers?: string[]) => ({
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: `http-go-${node}`, namespace: 'default', generateName: 'http-go-', labels: { app: 'http-go', 'controller-revision-hash': '6d4b' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'http-go', uid: 'u-1', controller: true, blockOwnerDeletion: true }], ...(finalizers ? { finalizers } : {}) },
      spec: {
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] } } },
        containers: [{ name: container, image: 'gasbugs/http-go', ports: [{ containerPort: 8080 }] }], enableServiceLinks: true, terminationGracePeriodSeconds: 30,
      },
    });
    const manager = 'shape-ds';
    const fresh = (obj: object) => updateManagedFields(undefined, obj, podCtx(`fresh-${Math.random()}`))![0].fieldsV1;
    const first = updateManagedFields(undefined, daemonPod('node-1'), podCtx(manager))!;
    const other = updateManagedFields(undefined, daemonPod('node-2'), podCtx(manager))!;
    assert.equal(other[0].fieldsV1, first[0].fieldsV1, 'node-2\'s pod answered from node-1\'s shape');
    assert.deepEqual(other[0].fieldsV1, fresh(daemonPod('node-2')));
    // Strings that are path elements keep their value: a list-map key (the container's name) and a set list's items (finalizers).
    for (const obj of [daemonPod('node-3', 'other'), daemonPod('node-4', 'http-go', ['a/b']), daemonPod('node-5', 'http-go', ['c/d'])]) {
      assert.deepEqual(updateManagedFields(undefined, obj, podCtx(manager))![0].fieldsV1, fresh(obj), JSON.stringify(obj.spec.containers[0].name) + JSON.stringify(obj.metadata.finalizers));
    }
    // An empty string is a zero value: not the same shape as a non-empty one.
    const emptyImage: any = daemonPod('node-6');
    emptyImage.spec.containers[0].image = '';
    assert.deepEqual(updateManagedFields(undefined, emptyImage, podCtx(manager))![0].fieldsV1, fresh(emptyImage));
    const event = (pod: string, node: string) => ({
      apiVersion: 'v1', kind: 'Event', metadata: { name: `${pod}.18a`, namespace: 'default' },
      involvedObject: { kind: 'Pod', namespace: 'default', name: pod, uid: `uid-${pod}`, apiVersion: 'v1', resourceVersion: '12' },
      reason: 'Scheduled', message: `Successfully assigned default/${pod} to ${node}`, type: 'Normal', count: 1,
      firstTimestamp: '2026-01-02T03:04:05Z', lastTimestamp: '2026-01-02T03:04:05Z', source: { component: 'default-scheduler' },
    });
    const evCtx = (m: string) => ({ kindKey: 'v1/Event', apiVersion: 'v1', manager: m, now });
    const e1 = updateManagedFields(undefined, event('a', 'node-1'), evCtx('shape-ev'))!;
    const e2 = updateManagedFields(undefined, event('b', 'node-2'), evCtx('shape-ev'))!;
    assert.equal(e2[0].fieldsV1, e1[0].fieldsV1);
    assert.deepEqual(e2[0].fieldsV1, updateManagedFields(undefined, event('b', 'node-2'), evCtx('fresh-ev'))![0].fieldsV1);
  });
  it('takes managedFields sent with the create into account (never from the cache)', () => {
    const sent = dep(1, { managedFields: [{ manager: 'x', operation: 'Update', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:annotations': {} } } }] });
    const mf = create(sent, 'shape-3');
    assert.deepEqual(mf.map((e) => e.manager), ['x', 'shape-3']);
  });
});

describe('apply', () => {
  const applyCtx = { ...ctx, manager: 'm', force: false, ignoredFields: ['status'] };
  it('creates, then a changed apply moves values and prunes dropped fields', () => {
    const first = applyConfiguration(undefined, dep(1, { labels: { a: '1', b: '2' } }), applyCtx);
    assert.deepEqual(first.metadata.managedFields[0].operation, 'Apply');
    const second = applyConfiguration(first, dep(2, { labels: { a: '1' } }), applyCtx);
    assert.equal(second.spec.replicas, 2);
    assert.deepEqual(second.metadata.labels, { a: '1' });
  });
  it('keeps a dropped field another manager also owns', () => {
    const first = applyConfiguration(undefined, dep(1, { labels: { a: '1', b: '2' } }), applyCtx);
    const other = applyConfiguration(first, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { b: '2' } } }, { ...applyCtx, manager: 'o' });
    const third = applyConfiguration(other, dep(1, { labels: { a: '1' } }), applyCtx);
    assert.deepEqual(third.metadata.labels, { a: '1', b: '2' });
  });
  it('conflicts with an updater, and force takes ownership', () => {
    const first = applyConfiguration(undefined, dep(1), applyCtx);
    const scaled = structuredClone(first);
    scaled.spec.replicas = 3;
    scaled.metadata.managedFields = updateManagedFields(first, scaled, { ...ctx, manager: 'kubectl-client-side-apply' });
    assert.throws(() => applyConfiguration(scaled, dep(1), applyCtx), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.equal(e.code, 409);
      assert.equal(e.status.message, 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas');
      assert.deepEqual(e.status.details?.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using apps/v1', field: '.spec.replicas' }]);
      return true;
    });
    const forced = applyConfiguration(scaled, dep(1), { ...applyCtx, force: true });
    assert.equal(forced.spec.replicas, 1);
    assert.deepEqual(forced.metadata.managedFields.map((e: any) => e.manager), ['m']);
  });
  it('formats several conflicts grouped by manager', () => {
    const id = JSON.stringify({ manager: 'm', operation: 'Update', apiVersion: 'v1' });
    assert.equal(conflictMessage([{ managerId: id, path: ['f:a'] }, { managerId: id, path: ['f:b'] }]),
      'Apply failed with 2 conflicts: conflicts with "m" using v1:\n- .a\n- .b');
    const applier = JSON.stringify({ manager: 'x', operation: 'Apply', subresource: 'status' });
    assert.equal(conflictMessage([{ managerId: applier, path: ['f:a'] }]), 'Apply failed with 1 conflict: conflict with "x" with subresource "status": .a');
  });
  it('applying the same value as another owner shares the field without conflict', () => {
    const first = applyConfiguration(undefined, dep(1), applyCtx);
    const second = applyConfiguration(first, dep(1), { ...applyCtx, manager: 'n' });
    assert.deepEqual(second.metadata.managedFields.map((e: any) => e.manager).sort(), ['m', 'n']);
  });
});
