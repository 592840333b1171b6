/**
 * The scheduler's per-pod resources memo (scheduler/nodeinfo.ts): pods whose resources depend only
 * on one shared `resources` object share one PodResources; any pod whose requests or host ports
 * could differ gets its own, with the sums it would have had alone.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { podResources } from '../../src/scheduler/nodeinfo.js';
import { SchedulerCache } from '../../src/scheduler/cache.js';

const shared = Object.freeze({ requests: Object.freeze({ cpu: '100m', memory: '16Mi' }) });
const pod = (name: string, spec: Pod['spec']): Pod => ({ metadata: { name, namespace: 'default', uid: name }, spec });
const one = (name: string, extra: Record<string, unknown> = {}) => pod(name, { containers: [{ name: 'c', image: 'i', resources: shared, ...extra }] });

describe('podResources memo', () => {
  it('pods of one container sharing a resources object share one PodResources', () => {
    const a = podResources(one('a'));
    assert.equal(podResources(one('b', { volumeMounts: [{ name: 'kube-api-access-b', mountPath: '/x' }] })), a);
    assert.equal(a.requests.milliCPU, 100);
    assert.equal(a.requests.memory, 16 * 2 ** 20);
  });

  const cases: [string, Pod, number, number][] = [
    ['host ports', one('p', { ports: [{ containerPort: 80, hostPort: 8080 }] }), 100, 1],
    ['an init container', pod('i', { containers: [{ name: 'c', resources: shared }], initContainers: [{ name: 'i', resources: { requests: { cpu: '2' } } }] }), 2000, 0],
    ['overhead', pod('o', { containers: [{ name: 'c', resources: shared }], overhead: { cpu: '50m' } }), 150, 0],
    ['two containers', pod('t', { containers: [{ name: 'c', resources: shared }, { name: 'd', resources: shared }] }), 200, 0],
  ];
  for (const [name, p, milliCPU, hostPorts] of cases) {
    it(`a pod with ${name} gets its own`, () => {
      const r = podResources(p);
      assert.notEqual(r, podResources(one('x')));
      assert.equal(r.requests.milliCPU, milliCPU);
      assert.equal(r.hostPorts.length, hostPorts);
    });
  }

  it('pods without resources share the BestEffort entry', () => {
    const a = podResources(pod('a', { containers: [{ name: 'c' }] }));
    assert.equal(podResources(pod('b', { containers: [{ name: 'd' }] })), a);
    assert.equal(a.requests.milliCPU, 0);
    assert.equal(a.nonZero.milliCPU, 100);
  });
});

describe('SchedulerCache assumed pods', () => {
  const node = { metadata: { name: 'n1' }, status: { allocatable: { cpu: '1', memory: '1Gi', pods: '10' } } };
  it('assume, confirm, forget and remove keep the node sums', () => {
    const cache = new SchedulerCache();
    cache.addNode(node);
    const p = one('a');
    cache.assumePod(p, 'n1');
    assert.equal(cache.isAssumed('default/a'), true);
    assert.equal(cache.get('n1')!.requested.milliCPU, 100);
    cache.addPod({ ...p, spec: { ...p.spec!, nodeName: 'n1' } });
    assert.equal(cache.isAssumed('default/a'), false);
    assert.equal(cache.get('n1')!.requested.milliCPU, 100);
    cache.forgetPod('default/a'); // confirmed: not forgotten
    assert.equal(cache.podCount, 1);
    cache.removePod(p);
    assert.equal(cache.podCount, 0);
    assert.equal(cache.get('n1')!.requested.milliCPU, 0);
    cache.assumePod(one('b'), 'n1');
    cache.forgetPod('default/b');
    assert.equal(cache.isAssumed('default/b'), false);
    assert.equal(cache.get('n1')!.pods.size, 0);
  });
});
