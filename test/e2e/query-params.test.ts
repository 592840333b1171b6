/**
 * Boolean query parameters as other clients spell them: the Python client
 * sends `watch=True`, which upstream reads as a watch (only absence, `0` and
 * `false` in any case are false).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';
import { apiRequest } from './helpers.js';

describe('boolean query parameters', () => {
  let cluster: Cluster;
  before(async () => { cluster = await startCluster({ extraArgs: ['--controllers', 'none'] }); });
  after(async () => { await cluster?.cleanup(); });

  for (const spelling of ['True', 'true', '1', 't', 'TRUE']) {
    test(`watch=${spelling} is a watch`, async () => {
      const r = await apiRequest(cluster, `/api/v1/namespaces?watch=${spelling}&timeoutSeconds=1`);
      assert.equal(r.status, 200);
      const first = JSON.parse(r.body.split('\n')[0]);
      assert.equal(first.type, 'ADDED', r.body.slice(0, 200));
      assert.equal(first.object.kind, 'Namespace');
    });
  }

  for (const spelling of ['false', 'False', '0']) {
    test(`watch=${spelling} is a list`, async () => {
      const r = await apiRequest(cluster, `/api/v1/namespaces?watch=${spelling}`);
      assert.equal(r.status, 200);
      assert.equal(r.json().kind, 'NamespaceList');
    });
  }

  test('allowWatchBookmarks=True with sendInitialEvents=True marks the end of the initial events', async () => {
    const r = await apiRequest(cluster, '/api/v1/namespaces?watch=True&sendInitialEvents=True&allowWatchBookmarks=True&resourceVersionMatch=NotOlderThan&timeoutSeconds=1');
    assert.equal(r.status, 200, r.body);
    const events = r.body.trim().split('\n').map((l) => JSON.parse(l));
    const bookmark = events.find((e) => e.type === 'BOOKMARK');
    assert.equal(bookmark?.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
  });
});

describe('object shapes as upstream serializes them', () => {
  let cluster: Cluster;
  before(async () => { cluster = await startCluster({ extraArgs: ['--controllers', 'none'] }); });
  after(async () => { await cluster?.cleanup(); });

  test('a Service always carries status.loadBalancer, on create and on get', async () => {
    const created = await apiRequest(cluster, '/api/v1/namespaces/default/services', {
      method: 'POST', body: JSON.stringify({ metadata: { name: 'web' }, spec: { ports: [{ port: 80 }], selector: { app: 'web' } } }),
    });
    assert.equal(created.status, 201, created.body);
    assert.deepEqual(created.json().status, { loadBalancer: {} });
    const got = await apiRequest(cluster, '/api/v1/namespaces/default/services/web');
    assert.deepEqual(got.json().status, { loadBalancer: {} });
    const patched = await apiRequest(cluster, '/api/v1/namespaces/default/services/web', {
      method: 'PATCH', contentType: 'application/merge-patch+json', body: JSON.stringify({ metadata: { labels: { a: 'b' } } }),
    });
    assert.deepEqual(patched.json().status, { loadBalancer: {} });
  });
});
