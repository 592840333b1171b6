/**
 * The hardening issue's finding 3: large valid bodies blocked the event loop
 (a 2.6 MiB YAML ConfigMap with 200,000 keys took 31 s; a protobuf Pod with
 * 1,000,000 empty containers took 45 s and answered "Maximum call stack size
 * exceeded"). Each body is sent exactly as the issue describes it
 * to a real server while a bystander asserts that /readyz and a GET from
 * another client answer within 1 s (test/e2e/bystander.ts); then the answer
 * is checked against upstream's:
 * - the two ConfigMaps are valid, but their stored form is over etcd's
 *   default 1.5 MiB request limit: 500 `etcdserver: request is too large`;
 * - the Pod: upstream's 422 Invalid, one cause per field error (2,999,999:
 *   each container's name and image are Required, and every name after the
 *   first is a Duplicate), the message joining them all, as NewInvalid does;
 * - a body over 3 MiB: 413 before it is decoded;
 * - an object whose stored form is just over 1.5 MiB: the etcd refusal; just under: 201.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';
import { apiRequest, apiServerOnly } from './helpers.js';
import { duringAttack } from './bystander.js';
import { jsonConfigMap, protobufPod, yamlConfigMap, type LargeBody } from './large-bodies.js';
import { binaryRequestChunks } from './protobuf-client.js';

let cluster: Cluster;

before(async () => { cluster = await startCluster(apiServerOnly); });
after(async () => { await cluster?.cleanup(); });

const send = (b: LargeBody) => apiRequest(cluster, b.path, { method: 'POST', body: b.body, contentType: b.contentType });

const etcdTooLarge = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'etcdserver: request is too large', code: 500 };

test('a YAML ConfigMap with 200,000 keys: the bystander is served; the stored form is over 1.5 MiB', async () => {
  const body = yamlConfigMap();
  assert.ok(body.body.length > 2.3 * 1024 * 1024 && body.body.length < 3 * 1024 * 1024);
  const res = await duringAttack(cluster, () => send(body));
  assert.equal(res.status, 500, res.body.slice(0, 300));
  assert.deepEqual(res.json(), etcdTooLarge);
  assert.equal((await apiRequest(cluster, `/api/v1/namespaces/default/configmaps/${body.name}`)).status, 404);
});

test('a JSON ConfigMap with 250,000 keys: the bystander is served; the stored form is over 1.5 MiB', async () => {
  const body = jsonConfigMap();
  const res = await duringAttack(cluster, () => send(body));
  assert.equal(res.status, 500, res.body.slice(0, 300));
  assert.deepEqual(res.json(), etcdTooLarge);
});

test('a protobuf Pod with 1,000,000 empty containers: the bystander is served; 422 naming every field', async () => {
  const pod = protobufPod();
  assert.ok(pod.body.length > 1.9 * 1024 * 1024 && pod.body.length < 2.1 * 1024 * 1024);
  // The answer is about 430 MiB of JSON: read as bytes, not as one string, and joined only after
  // the bystander (in this process) stopped, so that it measures the server, not this loop's copy.
  const raw = await duringAttack(cluster, () => binaryRequestChunks(cluster, pod.path, { method: 'POST', body: pod.body, contentType: pod.contentType, accept: 'application/json' }));
  const res = { ...raw, body: Buffer.concat(raw.chunks) };
  assert.equal(res.status, 422, res.body.subarray(0, 300).toString());
  assert.equal(res.headers['content-type'], 'application/json');
  const head = res.body.subarray(0, 400).toString();
  const expectedHead = '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Pod \\"pb-1m\\" is invalid: ['
    + 'spec.containers[0].name: Required value, spec.containers[0].image: Required value, '
    + 'spec.containers[1].name: Required value, spec.containers[1].image: Required value, spec.containers[1].name: Duplicate value: \\"\\", '
    + 'spec.containers[2].name: Required value';
  assert.equal(head.slice(0, expectedHead.length), expectedHead);
  const tail = res.body.subarray(res.body.length - 300).toString();
  assert.ok(tail.endsWith('spec.containers[999999].image"},{"reason":"FieldValueDuplicate","message":"Duplicate value: \\"\\"","field":"spec.containers[999999].name"}]},"code":422}\n'), tail);
  const detailsAt = res.body.indexOf('"reason":"Invalid","details":{"name":"pb-1m","kind":"Pod","causes":[{"reason":"FieldValueRequired","message":"Required value","field":"spec.containers[0].name"}');
  assert.ok(detailsAt > 0, 'details with the first cause');
  assert.equal(res.body.subarray(detailsAt - 100, detailsAt).toString().endsWith('spec.containers[999999].name: Duplicate value: \\"\\"]",'), true);
  let causes = 0;
  for (let at = res.body.indexOf('{"reason":"FieldValue', detailsAt); at >= 0; at = res.body.indexOf('{"reason":"FieldValue', at + 20)) causes++;
  assert.equal(causes, 2_999_999);
  assert.equal((await apiRequest(cluster, `/api/v1/namespaces/default/pods/${pod.name}`)).status, 404);
});

test('a body just over 3 MiB: 413 RequestEntityTooLarge, the bystander served', async () => {
  const value = 'x'.repeat(3 * 1024 * 1024);
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'over-3mib' }, data: { k: value } });
  const res = await duringAttack(cluster, () => apiRequest(cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', body }));
  assert.equal(res.status, 413);
  assert.deepEqual(res.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Request entity too large: limit is 3145728', reason: 'RequestEntityTooLarge', code: 413 });
});

test('an object stored over 1.5 MiB is refused as etcd refuses it; one just under is created', async () => {
  // Container args have no size limit of their own: only the stored size bounds them.
  const pod = (name: string, bytes: number) => JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx', args: ['a'.repeat(bytes)] }] },
  });
  const over = await duringAttack(cluster, () => apiRequest(cluster, '/api/v1/namespaces/default/pods', { method: 'POST', body: pod('over', 1.5 * 1024 * 1024) }));
  assert.equal(over.status, 500, over.body.slice(0, 300));
  assert.deepEqual(over.json(), etcdTooLarge);
  const under = await apiRequest(cluster, '/api/v1/namespaces/default/pods', { method: 'POST', body: pod('under', 1.4 * 1024 * 1024) });
  assert.equal(under.status, 201, under.body.slice(0, 300));
  // A dry run never reaches storage, so etcd's limit does not apply to it (as upstream).
  const dry = await apiRequest(cluster, '/api/v1/namespaces/default/pods?dryRun=All', { method: 'POST', body: pod('dry', 1.5 * 1024 * 1024) });
  assert.equal(dry.status, 201, dry.body.slice(0, 300));
});
