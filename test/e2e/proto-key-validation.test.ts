/**
 * A label or annotation key "__proto__" is validated as any other key: upstream answers 422
 * (a qualified name starts and ends with an alphanumeric character). JSON.parse keeps such a
 * key as an own property, but copying the map into a plain object dropped it (an assignment to
 * `__proto__` sets the prototype), so k8ts stored the pod (201) with the key in it. The bodies
 * are sent as raw JSON text: an object literal with that key would not carry it.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';
import { apiRequest, apiServerOnly } from './helpers.js';

const pods = '/api/v1/namespaces/default/pods';
const qualifiedName = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
  + "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('a "__proto__" map key is validated', () => {
  let cluster: Cluster;
  before(async () => { cluster = await startCluster(apiServerOnly); });
  after(async () => { await cluster?.stop(); await cluster?.cleanup(); });

  const create = (name: string, meta: string) => apiRequest(cluster, pods, {
    method: 'POST', body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"${name}",${meta}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`,
  });

  test('as a label key: 422 in upstream\'s words, nothing stored', async () => {
    const res = await create('proto-label', '"labels":{"__proto__":"x"}');
    assert.equal(res.status, 422, res.body);
    assert.equal(res.json().message, `Pod "proto-label" is invalid: metadata.labels: Invalid value: "__proto__": ${qualifiedName}`);
    assert.equal((await apiRequest(cluster, `${pods}/proto-label`)).status, 404);
  });

  test('as an annotation key', async () => {
    const res = await create('proto-annotation', '"annotations":{"__proto__":"x"}');
    assert.equal(res.status, 422, res.body);
    assert.equal(res.json().message, `Pod "proto-annotation" is invalid: metadata.annotations: Invalid value: "__proto__": ${qualifiedName}`);
  });

  test('a valid key beside it is no excuse, and a pod without it is created', async () => {
    assert.equal((await create('proto-both', '"labels":{"app":"a","__proto__":"x"}')).status, 422);
    assert.equal((await create('proto-none', '"labels":{"app":"a"}')).status, 201);
  });
});
