/**
 * ControllerRevisions of StatefulSets: upstream's hash and data bytes (checked
 * against upstream's compatibility fixture), the update/current revision
 * choice (re-use, rollback renumbering, create), history truncation, and the
 * persistentVolumeClaimRetentionPolicy owner references.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import {
  fnv32, fnv32a, goJSON, hashControllerRevision, safeEncodeString, templateRevisionData, revisionTemplate, sortControllerRevisions,
  controllerRevisionName, equalRevision,
} from '../../src/api/history.js';
import {
  chooseUpdateRevision, findCurrentRevision, revisionsToTruncate, newRevision, applyRevision,
  isClaimOwnerUpToDate, claimOwnerRefsForPolicy, hasUnexpectedController,
} from '../../src/controllers/statefulset/index.js';

const enc = (s: string) => new TextEncoder().encode(s);

// upstream pkg/controller/statefulset/testdata/compatibility_revision_1.33.0.json
const upstreamRaw = '{"spec":{"template":{"$patch":"replace","metadata":{"annotations":{"test":"value"},"creationTimestamp":null,"labels":{"app":"foo"}},"spec":{"containers":[{"image":"test","imagePullPolicy":"Always","name":"test","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}}}';
const defaultedTemplate = {
  metadata: { labels: { app: 'foo' }, annotations: { test: 'value' } },
  spec: {
    containers: [{ name: 'test', image: 'test', imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }],
    restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', securityContext: {}, schedulerName: 'default-scheduler',
  },
};

describe('ControllerRevision hashing (pkg/controller/history)', () => {
  it('FNV-32 and FNV-32a known values', () => {
    assert.equal(fnv32(enc('')), 0x811c9dc5);
    assert.equal(fnv32(enc('a')), 0x050c5d7e);
    assert.equal(fnv32a(enc('a')), 0xe40c292c);
  });
  it('SafeEncodeString maps onto the vowel-free alphabet', () => {
    assert.equal(safeEncodeString('0123456789'), '456789bcdf');
  });
  it('encodes the template as Go does, byte for byte', () => {
    assert.equal(goJSON(templateRevisionData(defaultedTemplate)), upstreamRaw);
  });
  it('hashes to upstream\'s name for the same data and collision count', () => {
    assert.equal(hashControllerRevision(JSON.parse(upstreamRaw), 0), 'c77f6d978');
    const set = { metadata: { name: 'test', namespace: 'default', uid: 'u' }, spec: { template: defaultedTemplate } } as unknown as StatefulSet;
    const rev = newRevision(set, 1, 0);
    assert.equal(rev.metadata!.name, 'test-c77f6d978');
    assert.deepEqual(rev.metadata!.labels, { app: 'foo', 'controller.kubernetes.io/hash': 'c77f6d978' });
    assert.deepEqual(rev.metadata!.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'test', uid: 'u', controller: true, blockOwnerDeletion: true }]);
  });
  it('a collision count changes the hash', () => {
    assert.notEqual(hashControllerRevision(JSON.parse(upstreamRaw), 1), 'c77f6d978');
  });
  it('escapes HTML characters as Go does', () => {
    assert.equal(goJSON({ b: '<a&b>', a: 1 }), '{"a":1,"b":"\\u003ca\\u0026b\\u003e"}');
  });
  it('names are cut to 223 bytes of prefix', () => {
    assert.equal(controllerRevisionName('x'.repeat(300), 'h'), `${'x'.repeat(223)}-h`);
  });
  it('revisionTemplate undoes templateRevisionData', () => {
    const t = revisionTemplate(templateRevisionData(defaultedTemplate));
    assert.deepEqual(t?.metadata, defaultedTemplate.metadata);
    assert.deepEqual(t?.spec?.containers[0].resources, {});
  });
  it('sorts by revision, then creation time, then name', () => {
    const r = (name: string, revision: number, t = '2024-01-01T00:00:00Z') => ({ metadata: { name, creationTimestamp: t }, revision });
    const sorted = sortControllerRevisions([r('c', 2), r('b', 1, '2024-01-02T00:00:00Z'), r('a', 1, '2024-01-02T00:00:00Z'), r('z', 1)]);
    assert.deepEqual(sorted.map((x) => x.metadata.name), ['z', 'a', 'b', 'c']);
  });
});

function setWith(image: string, extra: any = {}): any {
  return {
    metadata: { name: 'web', namespace: 'default', uid: 'set-uid', annotations: { 'kubernetes.io/change-cause': image } },
    spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image }] } }, revisionHistoryLimit: 10, ...extra },
    status: {},
  };
}

function stored(image: string, revision: number): any {
  const r = newRevision(setWith(image), revision, 0);
  return { ...r, metadata: { ...r.metadata, uid: `rev-${revision}`, creationTimestamp: `2024-01-01T00:00:0${revision}Z` } };
}

describe('getStatefulSetRevisions', () => {
  it('creates revision 1 for a new set', () => {
    const c = chooseUpdateRevision(setWith('nginx'), [], 0);
    assert.equal(c.action, 'create');
    assert.equal(c.action === 'create' && c.revision.revision, 1);
    assert.deepEqual(c.action === 'create' && c.revision.metadata!.annotations, { 'kubernetes.io/change-cause': 'nginx' });
  });
  it('re-uses the newest revision when the template is unchanged', () => {
    const revs = [stored('nginx', 1), stored('nginx:2', 2)];
    const c = chooseUpdateRevision(setWith('nginx:2'), revs, 0);
    assert.deepEqual([c.action, c.revision.metadata!.uid], ['reuse', 'rev-2']);
  });
  it('creates the next revision for a new template', () => {
    const c = chooseUpdateRevision(setWith('nginx:3'), [stored('nginx', 1), stored('nginx:2', 2)], 0);
    assert.deepEqual([c.action, c.revision.revision], ['create', 3]);
  });
  it('a rollback renumbers the matching older revision', () => {
    const c = chooseUpdateRevision(setWith('nginx'), [stored('nginx', 1), stored('nginx:2', 2)], 0);
    assert.equal(c.action, 'bump');
    assert.deepEqual(c.action === 'bump' && [c.revision.metadata!.uid, c.to], ['rev-1', 3]);
  });
  it('the current revision is status.currentRevision, else the update revision', () => {
    const revs = [stored('nginx', 1), stored('nginx:2', 2)];
    const set = setWith('nginx:2');
    assert.equal(((findCurrentRevision(set, revs, revs[1]))!.metadata)!.uid, 'rev-2');
    set.status.currentRevision = revs[0].metadata.name;
    assert.equal(((findCurrentRevision(set, revs, revs[1]))!.metadata)!.uid, 'rev-1');
  });
  it('applyRevision restores the revision\'s template', () => {
    const set = applyRevision(setWith('nginx:2'), stored('nginx', 1));
    assert.equal(set.spec!.template.spec!.containers[0].image, 'nginx');
    assert.equal(set.spec!.template.metadata!.creationTimestamp, undefined);
  });
  it('equal revisions: same data', () => {
    assert.equal(equalRevision(stored('nginx', 1), stored('nginx', 5)), true);
    assert.equal(equalRevision(stored('nginx', 1), stored('nginx:2', 1)), false);
  });
});

describe('truncateHistory', () => {
  const revs = [1, 2, 3, 4, 5].map((i) => stored(`nginx:${i}`, i));
  const pod = (rev: any) => ({ metadata: { labels: { 'controller-revision-hash': rev.metadata.name } } });
  const names = (rs: any[]) => rs.map((r) => r.revision);
  it('keeps revisionHistoryLimit non-live revisions, deleting the oldest', () => {
    assert.deepEqual(names(revisionsToTruncate(setWith('x', { revisionHistoryLimit: 1 }), [], revs, revs[3], revs[4])), [1, 2]);
  });
  it('never deletes a revision a pod carries', () => {
    assert.deepEqual(names(revisionsToTruncate(setWith('x', { revisionHistoryLimit: 1 }), [pod(revs[0])], revs, revs[3], revs[4])), [2]);
  });
  it('limit 0 keeps only live revisions', () => {
    assert.deepEqual(names(revisionsToTruncate(setWith('x', { revisionHistoryLimit: 0 }), [], revs, revs[4], revs[4])), [1, 2, 3, 4]);
  });
  it('under the limit: nothing', () => {
    assert.deepEqual(revisionsToTruncate(setWith('x'), [], revs, revs[4], revs[4]), []);
  });
});

describe('persistentVolumeClaimRetentionPolicy owner references', () => {
  const set = (whenScaled: string, whenDeleted: string, replicas = 2) => ({
    metadata: { name: 'web', namespace: 'default', uid: 'set-uid' },
    spec: { replicas, persistentVolumeClaimRetentionPolicy: { whenScaled, whenDeleted } },
  }) as StatefulSet;
  const pod = (ordinal: number) => ({ metadata: { name: `web-${ordinal}`, uid: `pod-${ordinal}` } });
  const setRef = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'set-uid', controller: true, blockOwnerDeletion: true };
  const podRef = (o: number) => ({ apiVersion: 'v1', kind: 'Pod', name: `web-${o}`, uid: `pod-${o}`, controller: true, blockOwnerDeletion: true });
  const claim = (refs: any[] = []) => ({ metadata: { name: 'www', ownerReferences: refs } });
  const table: [string, string, number, any[]][] = [
    ['Retain', 'Retain', 0, []],
    ['Retain', 'Retain', 5, []],
    ['Retain', 'Delete', 0, [setRef]],
    ['Retain', 'Delete', 5, [setRef]],
    ['Delete', 'Retain', 0, []],
    ['Delete', 'Retain', 5, [podRef(5)]],
    ['Delete', 'Delete', 0, [setRef]],
    ['Delete', 'Delete', 5, [podRef(5)]],
  ];
  for (const [whenScaled, whenDeleted, ordinal, want] of table) {
    it(`whenScaled ${whenScaled}, whenDeleted ${whenDeleted}, ${ordinal < 2 ? 'replica' : 'scaled down'}`, () => {
      const s = set(whenScaled, whenDeleted);
      const refs = claimOwnerRefsForPolicy(claim(), s, pod(ordinal));
      assert.deepEqual(refs, want);
      assert.equal(isClaimOwnerUpToDate(claim(refs), s, pod(ordinal)), true);
      assert.equal(isClaimOwnerUpToDate(claim(), s, pod(ordinal)), want.length === 0);
    });
  }
  it('switching to Retain removes our references and keeps others', () => {
    const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'x' };
    assert.deepEqual(claimOwnerRefsForPolicy(claim([setRef, other]), set('Retain', 'Retain'), pod(0)), [other]);
  });
  it('a claim with a stale reference to an earlier set of this name is left alone', () => {
    assert.equal(isClaimOwnerUpToDate(claim([{ ...setRef, uid: 'old' }]), set('Retain', 'Delete'), pod(0)), true);
  });
  it('another controller is unexpected with a Delete policy, and blocks ours', () => {
    const other = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs', controller: true };
    assert.equal(hasUnexpectedController(claim([other]), set('Retain', 'Delete'), pod(0)), true);
    assert.equal(hasUnexpectedController(claim([other]), set('Retain', 'Retain'), pod(0)), false);
    assert.deepEqual(claimOwnerRefsForPolicy(claim([other]), set('Retain', 'Delete'), pod(0)), [other]);
  });
});
