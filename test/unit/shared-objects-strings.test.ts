/**
 * util/shared-objects.ts pools a new object's strings by comparing them with the previous version
 * or the last object created first: equal strings directly under the object and its shared members
 * take that object's (pooled) copy without a lookup in the pool; others are looked up as before;
 * metadata.uid and metadata.resourceVersion are never pooled (an update takes its previous version's
 * uid string). The object stays equal throughout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ObjectSharing } from '../../src/util/shared-objects.js';
import { StringPool } from '../../src/util/intern.js';

/** A real pool that records what it is asked for. */
class RecordingPool extends StringPool {
  readonly asked: string[] = [];
  override intern(s: string): string {
    this.asked.push(s);
    return super.intern(s);
  }
}

const pod = (name: string, uid: string, rv: string, phase: string) => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name, namespace: 'ns1', uid, resourceVersion: rv, creationTimestamp: '2026-12-06T13:00:00Z', labels: { app: 'web' } },
  spec: { schedulerName: 'default-scheduler', restartPolicy: 'Always', containers: [{ name: 'c', image: 'busybox' }] },
  status: { phase, qosClass: 'BestEffort' },
});

test('a new object\'s strings equal to the last one\'s are taken from it; the rest are pooled; uid and resourceVersion are not', () => {
  const pool = new RecordingPool();
  const sharing = new ObjectSharing(pool);
  const members = ['spec', 'status', 'metadata'];
  const a = pod('a', 'uid-a', '10', 'Pending');
  sharing.compact(a, undefined, members);
  assert.ok(pool.asked.includes('a') && pool.asked.includes('Pending') && pool.asked.includes('busybox'), 'the first object is pooled whole (without a model)');
  assert.ok(pool.asked.includes('uid-a'), 'without a model, internAll pools every string as before');
  pool.asked.length = 0;
  const b = pod('b', 'uid-b', '11', 'Running');
  const text = JSON.stringify(b);
  sharing.compact(b, undefined, members, a);
  assert.equal(JSON.stringify(b), text, 'the object is unchanged');
  assert.deepEqual(pool.asked.sort(), ['Running', 'b'], 'only the strings that differ from a\'s are looked up; uid and resourceVersion are left alone');
  assert.equal(b.spec.containers, a.spec.containers, 'equal subtrees are still shared');
});

test('an update is compared with its previous version; a member left as it was is not walked', () => {
  const pool = new RecordingPool();
  const sharing = new ObjectSharing(pool);
  const members = ['spec', 'status', 'metadata'];
  const v1 = pod('a', 'uid-a', '10', 'Pending');
  sharing.compact(v1, undefined, members);
  pool.asked.length = 0;
  const v2 = pod('a', 'uid-a', '12', 'Running');
  sharing.compact(v2, v1, members);
  assert.deepEqual(pool.asked, ['Running']);
  assert.equal(v2.spec, v1.spec, 'the unchanged spec is the previous version\'s');
});

test('an update keeps the previous version\'s uid string (one copy a pod, not one a version), never the pool\'s', () => {
  const pool = new RecordingPool();
  const sharing = new ObjectSharing(pool);
  const members = ['spec', 'status', 'metadata'];
  const v1 = pod('a', 'uid-a', '10', 'Pending');
  sharing.compact(v1, undefined, members, pod('z', 'uid-z', '9', 'Pending'));
  pool.asked.length = 0;
  // A uid equal in content but another string, as JSON.parse gives each event its own.
  const v2 = pod('a', ['uid', 'a'].join('-'), '12', 'Running');
  sharing.compact(v2, v1, members);
  assert.equal(v2.metadata.uid, 'uid-a');
  assert.ok(!pool.asked.includes('uid-a'), 'not looked up in the pool');
  const v3 = pod('a', 'uid-other', '13', 'Running');
  sharing.compact(v3, v2, members);
  assert.equal(v3.metadata.uid, 'uid-other', 'a different uid is its own');
});
