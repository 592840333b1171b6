/**
 * Defects the fuzz suite (fuzz.test.ts) found, each replayed as the exact
 * request that broke the server, followed by proof that it still serves.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { startCluster, Cluster } from './harness.js';
import { apiServerOnly, apiRequest } from './helpers.js';

let cluster: Cluster;

before(async () => { cluster = await startCluster(apiServerOnly); });
after(async () => { await cluster?.cleanup(); });

async function stillServes() {
  const res = await apiRequest(cluster, '/version');
  assert.equal(res.status, 200);
}

describe('fuzz findings', () => {
  test('an unknown field named past U+00FF is warned about, not a 500 (Node refused the Warning header)', async () => {
    const res = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', {
      method: 'POST', body: JSON.stringify({ metadata: { name: 'fz-warning' }, 'Ā': '', 'del\x7f': 1 }),
    });
    assert.equal(res.status, 201, res.body);
    assert.equal(res.headers.warning, '299 - "unknown field \\"\\u0100\\"", 299 - "unknown field \\"del\\u007f\\""');
    await stillServes();
  });

  test('a method llhttp does not know gets a 405 Status, not a bare 400', async () => {
    const res = await apiRequest(cluster, '/apis/apps/v1/namespaces/x/daemonsets', { method: 'FOO' });
    assert.equal(res.status, 405);
    assert.deepEqual(res.json(), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 405, reason: 'MethodNotAllowed',
      message: 'the server does not allow this method on the requested resource',
    });
    await stillServes();
  });

  test('headers past the parser limit get a 431 Status', async () => {
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = https.request(new URL('/version', cluster.url), { rejectUnauthorized: false, headers: { 'X-Long': 'x'.repeat(20_000) }, agent: false }, (r) => {
        let body = '';
        r.on('data', (d) => { body += d; });
        r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(res.status, 431);
    assert.equal(JSON.parse(res.body).reason, 'RequestHeaderFieldsTooLarge');
    await stillServes();
  });

  test('DeleteOptions with a wrongly typed field is a 400, not a 500, and deletes nothing', async () => {
    const created = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: JSON.stringify({ metadata: { name: 'fz-delete' } }) });
    assert.equal(created.status, 201, created.body);
    const res = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps/fz-delete', {
      method: 'DELETE', body: '{"propagationPolicy":"Orphan","preconditions":{"uid":"x","resourceVersion":"1"},"dryRun":1e+21}',
    });
    assert.equal(res.status, 400, res.body);
    assert.equal(res.json().message, 'json: cannot unmarshal number into Go struct field DeleteOptions.dryRun of type []string');
    assert.equal((await apiRequest(cluster, '/api/v1/namespaces/default/configmaps/fz-delete')).status, 200);
    await stillServes();
  });

  test('a null toleration is refused as invalid (422), not a 500', async () => {
    const res = await apiRequest(cluster, '/api/v1/namespaces/default/pods', {
      method: 'POST',
      body: '{"kind":"Pod","metadata":{"name":"pod-iw"},"spec":{"containers":[{"name":"main","image":"busybox:1.36"}],"tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},null]}}',
    });
    assert.equal(res.status, 422, res.body);
    assert.equal(res.json().details.causes[0].field, 'spec.tolerations[1].operator');
    await stillServes();
  });

  test('an unknown field with a 70 KB name gets a bounded Warning header, which clients can read', async () => {
    const res = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', {
      method: 'POST', body: JSON.stringify({ metadata: { name: 'fz-long-warning' }, ['x'.repeat(70_000)]: 1 }),
    });
    assert.equal(res.status, 201, res.body);
    assert.equal(res.headers.warning, `299 - "unknown field \\"${'x'.repeat(241)}"`);
    await stillServes();
  });

  test('a list limit past int64 is a 400 in strconv words, not a SQLite datatype mismatch (500)', async () => {
    const res = await apiRequest(cluster, '/api/v1/pods?limit=99999999999999999999');
    assert.equal(res.status, 400, res.body);
    assert.equal(res.json().message, 'strconv.ParseInt: parsing "99999999999999999999": value out of range');
    const max = await apiRequest(cluster, '/api/v1/pods?limit=9223372036854775807');
    assert.equal(max.status, 200, max.body);
    await stillServes();
  });
});
