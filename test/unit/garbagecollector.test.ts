/**
 * The garbage collector's graph (which objects an event asks it to look at)
 * and its decision for one object (upstream attemptToDeleteItem).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Graph, deletionStartsWithFinalizer, referencesDiffs } from '../../src/controllers/garbagecollector/graph.js';
import type { Enqueue, ObjectIdentity, OwnerReference } from '../../src/controllers/garbagecollector/graph.js';
import { decide, deleteOwnerRefsPatch, unblockOwnerRefsPatch } from '../../src/controllers/garbagecollector/decide.js';
import type { ClassifiedReferences, Decision, ItemFacts } from '../../src/controllers/garbagecollector/decide.js';
import { resolveKind } from '../../src/controllers/garbagecollector/resources.js';

const ref = (uid: string, o: Partial<OwnerReference> = {}): OwnerReference => ({ apiVersion: 'apps/v1', kind: 'DaemonSet', name: `ds-${uid}`, uid, ...o });

describe('decide', () => {
  const item = (o: Partial<ItemFacts> = {}): ItemFacts => ({ ownerReferences: [ref('a')], finalizers: [], hasDependents: false, dependentDeletingDependents: false, ...o });
  const refs = (o: Partial<ClassifiedReferences> = {}): ClassifiedReferences => ({ solid: [], dangling: [], waiting: [], ...o });
  const table: [string, ItemFacts, ClassifiedReferences, Decision][] = [
    ['no owner references: nothing', item({ ownerReferences: [] }), refs(), { action: 'none' }],
    ['a solid owner: nothing', item(), refs({ solid: [ref('a')] }), { action: 'none' }],
    ['solid and dangling: drop the dangling reference', item({ ownerReferences: [ref('a'), ref('b')] }), refs({ solid: [ref('a')], dangling: [ref('b')] }),
      { action: 'removeOwnerReferences', uids: ['b'] }],
    ['solid and waiting: drop the waiting reference too', item({ ownerReferences: [ref('a'), ref('b'), ref('c')] }),
      refs({ solid: [ref('a')], dangling: [ref('b')], waiting: [ref('c')] }), { action: 'removeOwnerReferences', uids: ['b', 'c'] }],
    ['all dangling: background delete', item(), refs({ dangling: [ref('a')] }), { action: 'delete', policy: 'Background', unblockFirst: false }],
    ['all dangling with an orphan finalizer: orphan', item({ finalizers: ['orphan'] }), refs({ dangling: [ref('a')] }), { action: 'delete', policy: 'Orphan', unblockFirst: false }],
    ['all dangling with a foreground finalizer: foreground', item({ finalizers: ['foregroundDeletion'] }), refs({ dangling: [ref('a')] }),
      { action: 'delete', policy: 'Foreground', unblockFirst: false }],
    ['waiting owner, no dependents: background', item(), refs({ waiting: [ref('a')] }), { action: 'delete', policy: 'Background', unblockFirst: false }],
    ['waiting owner, with dependents: foreground', item({ hasDependents: true }), refs({ waiting: [ref('a')] }), { action: 'delete', policy: 'Foreground', unblockFirst: false }],
    ['waiting owner, a dependent deleting its own: unblock then foreground', item({ hasDependents: true, dependentDeletingDependents: true }),
      refs({ waiting: [ref('a')] }), { action: 'delete', policy: 'Foreground', unblockFirst: true }],
    ['waiting and dangling, no dependents: background', item({ ownerReferences: [ref('a'), ref('b')] }), refs({ waiting: [ref('a')], dangling: [ref('b')] }),
      { action: 'delete', policy: 'Background', unblockFirst: false }],
  ];
  for (const [name, facts, classified, want] of table) it(name, () => assert.deepEqual(decide(facts, classified), want));
});

describe('patches', () => {
  it('deletes owner references by uid with a strategic merge directive', () => {
    assert.deepEqual(deleteOwnerRefsPatch('dep', ['a', 'b']), { metadata: { uid: 'dep', ownerReferences: [{ $patch: 'delete', uid: 'a' }, { $patch: 'delete', uid: 'b' }] } });
  });
  it('unblocks only blocking references', () => {
    assert.deepEqual(unblockOwnerRefsPatch('dep', [ref('a', { blockOwnerDeletion: true }), ref('b')]),
      { metadata: { uid: 'dep', ownerReferences: [{ ...ref('a'), blockOwnerDeletion: false }] } });
    assert.equal(unblockOwnerRefsPatch('dep', [ref('b')]), undefined);
  });
});

describe('referencesDiffs and deletionStartsWithFinalizer', () => {
  it('diffs by uid', () => {
    const d = referencesDiffs([ref('a'), ref('b', { blockOwnerDeletion: true })], [ref('b'), ref('c')]);
    assert.deepEqual(d.added, [ref('c')]);
    assert.deepEqual(d.removed, [ref('a')]);
    assert.deepEqual(d.changed, [{ oldRef: ref('b', { blockOwnerDeletion: true }), newRef: ref('b') }]);
  });
  const deleting = (finalizers: string[]) => ({ metadata: { deletionTimestamp: 'x', finalizers } });
  const table: [string, any, any, boolean][] = [
    ['first seen deleting with it', undefined, deleting(['orphan']), true],
    ['starts deleting', { metadata: { finalizers: ['orphan'] } }, deleting(['orphan']), true],
    ['already deleting with it', deleting(['orphan']), deleting(['orphan']), false],
    ['finalizer added while deleting', deleting([]), deleting(['orphan']), true],
    ['not deleting', undefined, { metadata: { finalizers: ['orphan'] } }, false],
    ['another finalizer', undefined, deleting(['foregroundDeletion']), false],
  ];
  for (const [name, old, cur, want] of table) it(name, () => assert.equal(deletionStartsWithFinalizer(old, cur, 'orphan'), want));
});

describe('Graph', () => {
  const id = (kind: string, name: string, uid: string, namespace = 'default'): ObjectIdentity =>
    ({ apiVersion: kind === 'Pod' ? 'v1' : 'apps/v1', kind, name, namespace, uid });
  const obj = (i: ObjectIdentity, o: { owners?: OwnerReference[]; deleting?: boolean; finalizers?: string[] } = {}) => ({
    metadata: { name: i.name, namespace: i.namespace, uid: i.uid, ownerReferences: o.owners, finalizers: o.finalizers,
      ...(o.deleting ? { deletionTimestamp: '2025-01-01T00:00:00Z' } : {}) },
  });
  const uids = (e: Enqueue, q: 'attemptToDelete' | 'attemptToOrphan') => e[q].map((n) => n.identity.uid).sort();
  const newGraph = () => new Graph((apiVersion, kind) => resolveKind(apiVersion, kind)?.namespaced);
  const ds = id('DaemonSet', 'ds', 'ds1');
  const dsRef = ref('ds1', { name: 'ds', controller: true, blockOwnerDeletion: true });
  const pod = (n: string) => id('Pod', n, `pod-${n}`);

  it('an owner not yet seen becomes a virtual node to check', () => {
    const g = newGraph();
    const e = g.observe(pod('a'), obj(pod('a'), { owners: [dsRef] }));
    assert.deepEqual(uids(e, 'attemptToDelete'), ['ds1']);
    assert.equal(g.get('ds1')?.observed, false);
    assert.equal(g.get('ds1')?.identity.namespace, 'default');
    const e2 = g.observe(ds, obj(ds));
    assert.deepEqual(uids(e2, 'attemptToDelete'), [], 'same coordinates: nothing to recheck');
    assert.equal(g.get('ds1')?.observed, true);
    assert.equal(g.get('ds1')?.dependents.size, 1);
  });

  it('a deleted owner sends its dependents to attemptToDelete and is remembered absent', () => {
    const g = newGraph();
    g.observe(ds, obj(ds));
    g.observe(pod('a'), obj(pod('a'), { owners: [dsRef] }));
    g.observe(pod('b'), obj(pod('b'), { owners: [dsRef] }));
    const e = g.remove(ds, false);
    assert.deepEqual(uids(e, 'attemptToDelete'), ['pod-a', 'pod-b']);
    assert.deepEqual(e.absent, [ds]);
    assert.equal(g.get('ds1'), undefined);
  });

  it('orphan deletion starts: attemptToOrphan', () => {
    const g = newGraph();
    g.observe(ds, obj(ds));
    const e = g.observe(ds, obj(ds, { deleting: true, finalizers: ['orphan'] }), obj(ds));
    assert.deepEqual(uids(e, 'attemptToOrphan'), ['ds1']);
  });

  it('foreground deletion starts: the owner and its dependents; a deleted dependent brings the owner back', () => {
    const g = newGraph();
    g.observe(ds, obj(ds));
    g.observe(pod('a'), obj(pod('a'), { owners: [dsRef] }));
    const e = g.observe(ds, obj(ds, { deleting: true, finalizers: ['foregroundDeletion'] }), obj(ds));
    assert.deepEqual(uids(e, 'attemptToDelete'), ['ds1', 'pod-a']);
    assert.equal(g.get('ds1')?.deletingDependents, true);
    assert.deepEqual(g.get('ds1')!.blockingDependents().map((n) => n.identity.uid), ['pod-a']);
    const e2 = g.remove(pod('a'), false);
    assert.deepEqual(uids(e2, 'attemptToDelete'), ['ds1']);
    assert.equal(g.get('ds1')!.blockingDependents().length, 0);
  });

  it('an unblocked or removed blocking reference brings the owner back', () => {
    const g = newGraph();
    g.observe(ds, obj(ds));
    g.observe(pod('a'), obj(pod('a'), { owners: [dsRef] }));
    const e = g.observe(pod('a'), obj(pod('a'), { owners: [{ ...dsRef, blockOwnerDeletion: false }] }));
    assert.deepEqual(uids(e, 'attemptToDelete'), ['ds1']);
    const e2 = g.observe(pod('a'), obj(pod('a'), { owners: [] }));
    assert.deepEqual(uids(e2, 'attemptToDelete'), [], 'no longer blocking');
    assert.equal(g.get('ds1')?.dependents.size, 0);
  });

  it('an owner in another namespace is reported and the dependent rechecked', () => {
    const g = newGraph();
    const other = id('DaemonSet', 'ds', 'ds1', 'other');
    g.observe(other, obj(other));
    const e = g.observe(pod('a'), obj(pod('a'), { owners: [dsRef] }));
    assert.deepEqual(uids(e, 'attemptToDelete'), ['pod-a']);
    assert.equal(e.invalidNamespaceRefs.length, 1);
  });

  it('a virtual delete does not remove an observed node known by other coordinates', () => {
    const g = newGraph();
    g.observe(ds, obj(ds));
    const e = g.remove({ ...ds, kind: 'StatefulSet' }, true);
    assert.deepEqual(uids(e, 'attemptToDelete'), []);
    assert.ok(g.get('ds1'));
  });

  it('a cluster-scoped owner (Node) of a pod gets no namespace', () => {
    const g = newGraph();
    g.observe(pod('mirror'), obj(pod('mirror'), { owners: [{ apiVersion: 'v1', kind: 'Node', name: 'w1', uid: 'node1', controller: true }] }));
    assert.equal(g.get('node1')?.identity.namespace, '');
  });
});

describe('resolveKind', () => {
  it('resolves served kinds to their resource', () => {
    assert.deepEqual(resolveKind('apps/v1', 'DaemonSet'), { group: 'apps', version: 'v1', resource: 'daemonsets', namespaced: true });
    assert.deepEqual(resolveKind('v1', 'Node'), { group: '', version: 'v1', resource: 'nodes', namespaced: false });
    assert.equal(resolveKind('apps/v1beta2', 'DaemonSet')?.resource, 'daemonsets', 'another version of the group');
    assert.equal(resolveKind('example.com/v1', 'Widget'), undefined);
  });
});
