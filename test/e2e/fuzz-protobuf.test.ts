/**
 * Fuzzing the protobuf body decoder of a real `k8ts server`: garbage bytes
 * (with and without the `k8s\0` magic), valid encodings cut short at every
 * length, and valid encodings with bytes changed, sent as
 * application/vnd.kubernetes.protobuf to create, update, delete and
 * subresource endpoints. Every request must be answered (no hang) below 500,
 * a refusal must be a Status (400 BadRequest when the body did not decode),
 * and the server must go on serving.
 *
 * Bounded and reproducible: K8TS_FUZZ_RUNS (cases per property, default 200),
 * K8TS_FUZZ_SEED (default fixed, printed).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import fc from 'fast-check';
import { startCluster, Cluster } from './harness.js';
import { adminCredentials, apiRequest, apiServerOnly } from './helpers.js';
import { encodeObject } from '../../src/api/protobuf/envelope.js';

const numRuns = Number(process.env.K8TS_FUZZ_RUNS ?? 200);
const seed = Number(process.env.K8TS_FUZZ_SEED ?? 90_210);
const deadlineMs = 10_000;

let cluster: Cluster;
let agent: https.Agent;

before(async () => {
  console.log(`fuzz-protobuf: seed ${seed}, ${numRuns} cases per property (K8TS_FUZZ_SEED, K8TS_FUZZ_RUNS)`);
  cluster = await startCluster(apiServerOnly);
  agent = new https.Agent({ keepAlive: true, ...adminCredentials(cluster.kubeconfig) });
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'target' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  assert.equal((await send('POST', '/api/v1/namespaces/default/pods', encodeObject(pod)!)).status, 201);
  const deploy = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'target' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } };
  assert.equal((await send('POST', '/apis/apps/v1/namespaces/default/deployments', encodeObject(deploy)!)).status, 201);
});
after(async () => {
  agent?.destroy();
  await cluster?.cleanup();
});

/** One request; rejects when the server does not answer within the deadline. */
function send(method: string, path: string, body: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, cluster.url), {
      method, agent, headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf', Accept: 'application/json', 'Content-Length': body.length },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => { clearTimeout(timer); resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }); });
    });
    const timer = setTimeout(() => { req.destroy(); reject(new Error(`no answer to ${method} ${path} in ${deadlineMs} ms`)); }, deadlineMs);
    req.on('error', (e) => { clearTimeout(timer); reject(e); });
    req.end(body);
  });
}

/** Where a protobuf body can go, with a valid body of its kind to mutate. */
const targets: { method: string; path: string; valid: Buffer }[] = [
  { method: 'POST', path: '/api/v1/namespaces/default/pods', valid: encodeObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'fz', labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } }] } })! },
  { method: 'POST', path: '/api/v1/namespaces/default/secrets', valid: encodeObject({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'fz' }, data: { k: 'aGk=' } })! },
  { method: 'PUT', path: '/api/v1/namespaces/default/pods/target', valid: encodeObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'target' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } })! },
  { method: 'PUT', path: '/apis/apps/v1/namespaces/default/deployments/target/scale', valid: encodeObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'target' }, spec: { replicas: 2 } })! },
  { method: 'POST', path: '/api/v1/namespaces/default/pods/target/binding', valid: encodeObject({ apiVersion: 'v1', kind: 'Binding', metadata: { name: 'target' }, target: { kind: 'Node', name: 'n' } })! },
  { method: 'DELETE', path: '/api/v1/namespaces/default/configmaps/none', valid: encodeObject({ apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, preconditions: { uid: 'x' } })! },
  { method: 'POST', path: '/apis/apps/v1/namespaces/default/controllerrevisions', valid: encodeObject({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'fz' }, data: { a: [1, 2] }, revision: 1 })! },
];

const magic = Buffer.from('k8s\0', 'latin1');
const target = fc.constantFrom(...targets);

/** The oracle: answered, below 500, a Status when refused, BadRequest for a 400. */
function check(res: { status: number; body: string }, what: string): void {
  assert.ok(res.status > 0 && res.status < 500, `${what}: ${res.status} ${res.body}`);
  if (res.status >= 400) {
    const status = JSON.parse(res.body);
    assert.equal(status.kind, 'Status', `${what}: ${res.body}`);
    if (res.status === 400) assert.equal(status.reason, 'BadRequest', `${what}: ${res.body}`);
  }
}

async function stillServes(): Promise<void> {
  assert.equal((await apiRequest(cluster, '/version')).status, 200);
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'alive-' } };
  assert.equal((await send('POST', '/api/v1/namespaces/default/configmaps', encodeObject(cm)!)).status, 201);
}

const run = (property: fc.IAsyncProperty<any>) => fc.assert(property, { numRuns, seed, endOnFailure: true });

test('garbage bytes, with and without the magic: 400, never a crash or hang', { timeout: 300_000 }, async () => {
  await run(fc.asyncProperty(target, fc.boolean(), fc.uint8Array({ maxLength: 512 }), async (t, withMagic, bytes) => {
    const body = withMagic ? Buffer.concat([magic, bytes]) : Buffer.from(bytes);
    const res = await send(t.method, t.path, body);
    check(res, `${t.method} ${t.path} ${body.toString('hex')}`);
    // Without the magic nothing decodes; an empty (or blank) DELETE body is no options at all, as upstream reads it.
    if (!withMagic && body.toString().trim()) assert.equal(res.status, 400, res.body);
  }));
  await stillServes();
});

test('valid encodings cut short: answered, never a crash or hang', { timeout: 300_000 }, async () => {
  await run(fc.asyncProperty(target, fc.nat(), async (t, at) => {
    const body = t.valid.subarray(0, at % t.valid.length);
    check(await send(t.method, t.path, body), `${t.method} ${t.path} cut at ${at % t.valid.length}`);
  }));
  await stillServes();
});

test('valid encodings with bytes changed: answered, never a crash or hang', { timeout: 300_000 }, async () => {
  await run(fc.asyncProperty(target, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }), async (t, edits) => {
    const body = Buffer.from(t.valid);
    for (const [at, value] of edits) body[4 + (at % (body.length - 4))] = value;
    check(await send(t.method, t.path, body), `${t.method} ${t.path} ${body.toString('hex')}`);
  }));
  await stillServes();
});

test('deeply nested groups and huge lengths: 400', { timeout: 60_000 }, async () => {
  // Wire type 3 (start group) 100,000 times: a decoder that recurses without bound overflows its stack.
  const groups = Buffer.concat([magic, Buffer.alloc(100_000, 0x0b)]);
  const res1 = await send('POST', '/api/v1/namespaces/default/pods', groups);
  assert.equal(res1.status, 400, res1.body);
  // A length of 2^31 for the raw field.
  const huge = Buffer.concat([magic, Buffer.from([0x12, 0x80, 0x80, 0x80, 0x80, 0x08, 0x00])]);
  const res2 = await send('POST', '/api/v1/namespaces/default/pods', huge);
  assert.equal(res2.status, 400, res2.body);
  await stillServes();
});
