/**
 * A dry run writes nothing, however it is asked (issue #19, data safety):
 *
 *  - DELETE of a collection with `{"dryRun":["All"]}` in its DeleteOptions
 *    body, as client-go's DeleteCollection sends it: the answer lists what
 *    would go, and every object is still there (it used to delete them all);
 *  - dryRun values other than `All` (`all`, `true`, an empty one, `All`
 *    beside another) on create, update, patch and delete: upstream's 422
 *    `CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value:
 *    ...` and nothing written (they used to be taken for a real write).
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

  for (const q of ['dryRun=all', 'dryRun=true', 'dryRun=', 'dryRun=All&dryRun=foo']) {
    it(`${q}: upstream's 422 on create, update, patch and delete, and nothing written`, async () => {
      const values = new URLSearchParams(q).getAll('dryRun');
      const shown = `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
      const want = (kind: string) => `${kind}.meta.k8s.io "" is invalid: dryRun: Unsupported value: ${shown}: supported values: "All"`;
      const name = `cm-${values.join('-').toLowerCase() || 'empty'}`;
      const created = await create('default', name, `?${q}`);
      assert.equal(created.status, 422, created.body);
      assert.equal(created.json().message, want('CreateOptions'));
      assert.equal((await apiRequest(cluster, `/api/v1/namespaces/default/configmaps/${name}`)).status, 404);
      assert.equal((await create('default', name)).status, 201);
      const path = `/api/v1/namespaces/default/configmaps/${name}`;
      const updated = await apiRequest(cluster, `${path}?${q}`, { method: 'PUT', body: JSON.stringify({ metadata: { name }, data: { k: 'changed' } }) });
      assert.equal(updated.status, 422, updated.body);
      assert.equal(updated.json().message, want('UpdateOptions'));
      const patched = await apiRequest(cluster, `${path}?${q}`, { method: 'PATCH', contentType: 'application/merge-patch+json', body: JSON.stringify({ data: { k: 'changed' } }) });
      assert.equal(patched.status, 422, patched.body);
      assert.equal(patched.json().message, want('PatchOptions'));
      const deleted = await apiRequest(cluster, `${path}?${q}`, { method: 'DELETE' });
      assert.equal(deleted.status, 422, deleted.body);
      assert.equal(deleted.json().message, want('DeleteOptions'));
      const collection = await apiRequest(cluster, `/api/v1/namespaces/default/configmaps?${q}`, { method: 'DELETE' });
      assert.equal(collection.status, 422, collection.body);
      assert.equal((await apiRequest(cluster, path)).json().data.k, 'v');
    });
  }
});
