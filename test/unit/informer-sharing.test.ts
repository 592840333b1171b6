/**
 * The control loops' informers share what alike pods have in common (util/shared-objects.ts, as
 * the watch cache does): two pods of one template, as the informer's transform sees them (with
 * the cached version and the last pod added), read and serialize exactly as decoded, hold one
 * frozen copy of their containers, tolerations and owner references, and a write to a shared part
 * throws instead of changing the other pod.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { ObjectSharing } from '../../src/util/shared-objects.js';

const pod = (name: string, ip: string): Pod => ({
  metadata: {
    name, namespace: 'default', uid: `uid-${name}`, labels: { app: 'web', 'pod-template-hash': '6dc5' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-6dc5', uid: 'rs-uid', controller: true, blockOwnerDeletion: true }],
  },
  spec: {
    nodeName: 'node-1', containers: [{ name: 'web', image: 'nginx', resources: { requests: { cpu: '10m' } } }],
    tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
  },
  status: { phase: 'Running', podIP: ip, conditions: [{ type: 'Ready', status: 'True' }] },
});

describe('informer sharing of alike pods', () => {
  it('two pods of one template share their common parts and read as decoded', () => {
    const sharing = new ObjectSharing();
    const members = ['spec', 'status', 'metadata'];
    const a = sharing.compact(JSON.parse(JSON.stringify(pod('a', '10.0.0.1'))) as Pod, undefined, members);
    const b = sharing.compact(JSON.parse(JSON.stringify(pod('b', '10.0.0.2'))) as Pod, undefined, members, a);
    assert.equal(JSON.stringify(a), JSON.stringify(pod('a', '10.0.0.1')));
    assert.equal(JSON.stringify(b), JSON.stringify(pod('b', '10.0.0.2')));
    assert.equal(a.spec!.containers, b.spec!.containers);
    assert.equal(a.spec!.tolerations, b.spec!.tolerations);
    assert.equal(a.metadata!.ownerReferences, b.metadata!.ownerReferences);
    assert.equal(a.status!.conditions, b.status!.conditions);
    assert.notEqual(a.metadata, b.metadata);
    assert.throws(() => { (b.spec!.containers[0] as { image: string }).image = 'changed'; }, TypeError);
    assert.equal(a.spec!.containers[0]!.image, 'nginx');
  });

  it('an update that leaves the spec as it was keeps the cached spec', () => {
    const sharing = new ObjectSharing();
    const members = ['spec', 'status', 'metadata'];
    const v1 = sharing.compact(JSON.parse(JSON.stringify(pod('a', '10.0.0.1'))) as Pod, undefined, members);
    const v2 = sharing.compact(JSON.parse(JSON.stringify(pod('a', '10.0.0.9'))) as Pod, v1, members);
    assert.equal(v2.spec, v1.spec);
    assert.equal(v2.status!.podIP, '10.0.0.9');
  });
});
