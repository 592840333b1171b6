/**
 * Pod watches selecting one spec.nodeName (each kubelet's) are indexed by node in the watch cache:
 * a pod's events go to its node's watchers only, yet every watcher still sees what upstream's
 * cacher sends it: ADDED when a pod is bound to its node, DELETED when it goes, nothing for
 * other nodes' pods; the scheduler's `spec.nodeName=` watch sees a pod leave on binding.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';
import { apiRequest, apiServerOnly, apiStream, type ApiStream } from './helpers.js';

const pods = '/api/v1/namespaces/default/pods';

describe('node-indexed pod watches', () => {
  let cluster: Cluster;
  before(async () => { cluster = await startCluster(apiServerOnly); });
  after(async () => { await cluster?.stop(); await cluster?.cleanup(); });

  const watch = (selector: string, rv: string) => apiStream(cluster, `/api/v1/pods?watch=1&resourceVersion=${rv}&fieldSelector=${encodeURIComponent(selector)}`);
  const seen = (w: ApiStream) => w.events.map((e) => [e.type, e.object.metadata.name]);

  test('each node\'s watch sees its pods only, with ADDED on binding and DELETED on removal', async () => {
    const created = await apiRequest(cluster, pods, { method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'idx-a' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }) });
    assert.equal(created.status, 201, created.body);
    const rv = created.json().metadata.resourceVersion;
    const [n1, n2, unscheduled, all] = await Promise.all([watch('spec.nodeName=node-1', rv), watch('spec.nodeName=node-2', rv), watch('spec.nodeName=', '0'), watch('metadata.namespace=default', rv)]);
    try {
      await unscheduled.waitFor((e) => e.object?.metadata?.name === 'idx-a', 'the unscheduled pod listed');
      const bound = await apiRequest(cluster, `${pods}/idx-a/binding`, { method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'Binding', metadata: { name: 'idx-a' }, target: { kind: 'Node', name: 'node-1' } }) });
      assert.equal(bound.status, 201, bound.body);
      await n1.waitFor((e) => e.type === 'ADDED', 'node-1 sees the pod bound to it');
      await unscheduled.waitFor((e) => e.type === 'DELETED', 'the unscheduled watch sees it leave');
      const del = await apiRequest(cluster, `${pods}/idx-a?gracePeriodSeconds=0`, { method: 'DELETE' });
      assert.equal(del.status, 200, del.body);
      await n1.waitFor((e) => e.type === 'DELETED', 'node-1 sees the pod go');
      await all.waitFor((e) => e.type === 'DELETED', 'the unindexed watch sees the delete');
      assert.deepEqual(seen(n1), [['ADDED', 'idx-a'], ['DELETED', 'idx-a']]);
      assert.deepEqual(seen(unscheduled), [['ADDED', 'idx-a'], ['DELETED', 'idx-a']]);
      assert.deepEqual(seen(n2), [], 'node-2 saw nothing');
      assert.deepEqual(seen(all).map((x) => x[0]), ['MODIFIED', 'DELETED']);
    } finally {
      for (const w of [n1, n2, unscheduled, all]) w.close();
    }
  });
});
