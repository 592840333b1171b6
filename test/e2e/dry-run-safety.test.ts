/**
 * A dry run writes nothing, however it is asked (issue #19, data safety):
 *
 *  - DELETE of a collection with `{"dryRun":["All"]}` in its DeleteOptions
 *    body, as client-go's DeleteCollection sends it: the answer lists what
 *    would go, and every object is still there (it used to delete them all).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';
import { apiRequest } from './helpers.js';

describe('dry runs write nothing', () => {
  let cluster: Cluster;
  before(async () => { cluster = await startCluster(); });
  after(async () => { await cluster?.cleanup(); });

  const configMaps = async (ns: string) => (await apiRequest(cluster, `/api/v1/namespaces/${ns}/configmaps`)).json().items.map((c: { metadata: { name: string } }) => c.metadata.name).sort();
  const create = (ns: string, name: string, q = '') => apiRequest(cluster, `/api/v1/namespaces/${ns}/configmaps${q}`, { method: 'POST', body: JSON.stringify({ metadata: { name }, data: { k: 'v' } }) });

  it('DELETE of a collection with dryRun All in its DeleteOptions body deletes nothing', async () => {
    assert.equal((await apiRequest(cluster, '/api/v1/namespaces', { method: 'POST', body: JSON.stringify({ metadata: { name: 'dc' } }) })).status, 201);
    for (const n of ['keep1', 'keep2']) assert.equal((await create('dc', n)).status, 201);
    const r = await apiRequest(cluster, '/api/v1/namespaces/dc/configmaps', {
      method: 'DELETE', body: JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] }),
    });
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json().items.map((c: { metadata: { name: string } }) => c.metadata.name).sort(), ['keep1', 'keep2']);
    assert.deepEqual(await configMaps('dc'), ['keep1', 'keep2']);
    // The same body on one object's DELETE, and the query's dryRun on the collection, keep them too.
    assert.equal((await apiRequest(cluster, '/api/v1/namespaces/dc/configmaps/keep1', { method: 'DELETE', body: JSON.stringify({ dryRun: ['All'] }) })).status, 200);
    assert.equal((await apiRequest(cluster, '/api/v1/namespaces/dc/configmaps?dryRun=All', { method: 'DELETE' })).status, 200);
    assert.deepEqual(await configMaps('dc'), ['keep1', 'keep2']);
  });
});
