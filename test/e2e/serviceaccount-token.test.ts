/**
 * Service-account tokens through the real kubectl: `kubectl create token`
 * (TokenRequest, sent as protobuf), tokens that authenticate as the service
 * account, `--duration`, `--audience`, binding to a pod, and tokens that stop
 * working (401) once their service account or pod is gone.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { startCluster, eventually, type Cluster } from './harness.js';
import { adminCredentials } from './helpers.js';

let cluster: Cluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster?.cleanup(); });

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
const createToken = async (args: string[]) => (await cluster.kubectl(['create', 'token', ...args])).stdout.trim();

/** GET `path` with only the bearer token (no client certificate), trusting the cluster CA. */
function asBearer(token: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, cluster.url), { headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' }, ca: adminCredentials(cluster.kubeconfig).ca, agent: false }, (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** kubectl with a kubeconfig that holds only the token. */
function kubectlWithToken(token: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = join(cluster.dataDir, `token-${Math.random().toString(36).slice(2)}.conf`);
  const ca = Buffer.from(adminCredentials(cluster.kubeconfig).ca).toString('base64');
  writeFileSync(file, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'sa',
    clusters: [{ name: 'k8ts', cluster: { server: cluster.url, 'certificate-authority-data': ca } }],
    users: [{ name: 'sa', user: { token } }], contexts: [{ name: 'sa', context: { cluster: 'k8ts', user: 'sa' } }],
  }));
  return new Promise((resolve) => execFile('kubectl', ['--kubeconfig', file, ...args], (err, stdout, stderr) =>
    resolve({ code: err ? (typeof (err as any).code === 'number' ? (err as any).code : 1) : 0, stdout, stderr })));
}

describe('kubectl create token', () => {
  test('gives a signed token of the service account that authenticates', async () => {
    const token = await createToken(['default']);
    const header = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8'));
    assert.equal(header.alg, 'ES256');
    assert.match(header.kid, /^[A-Za-z0-9_-]{43}$/);
    const c = claimsOf(token);
    const uid = (await cluster.kubectl(['get', 'sa', 'default', '-o', 'jsonpath={.metadata.uid}'])).stdout;
    assert.equal(c.iss, 'https://kubernetes.default.svc.cluster.local');
    assert.deepEqual(c.aud, ['https://kubernetes.default.svc.cluster.local']);
    assert.equal(c.sub, 'system:serviceaccount:default:default');
    assert.equal(c.exp - c.iat, 3600);
    assert.deepEqual(c['kubernetes.io'], { namespace: 'default', serviceaccount: { name: 'default', uid } });
    // A service account without a binding is authenticated and refused, in upstream's words.
    const refused = await asBearer(token, '/api/v1/namespaces/default/pods');
    assert.equal(refused.status, 403, refused.body);
    assert.equal(JSON.parse(refused.body).message,
      'pods is forbidden: User "system:serviceaccount:default:default" cannot list resource "pods" in API group "" in the namespace "default"');
    // Bound to a reader role (for every service account, as the rest of this file needs), it reads. (A role of its own:
    // this cluster runs no clusterrole-aggregation controller to fill in `view`.)
    await cluster.kubectl(['create', 'clusterrole', 'reader', '--verb=get,list,watch', '--resource=pods,serviceaccounts']);
    await cluster.kubectl(['create', 'clusterrolebinding', 'serviceaccounts-reader', '--clusterrole=reader', '--group=system:serviceaccounts']);
    await eventually(async () => (await asBearer(token, '/api/v1/namespaces/default/pods')).status === 200, 30_000, 'the bound service account to list pods');
    const k = await kubectlWithToken(token, ['get', 'serviceaccounts', '-n', 'default', '-o', 'name']);
    assert.equal(k.code, 0, k.stderr);
    assert.match(k.stdout, /serviceaccount\/default/);
  });

  test('--duration sets the life; less than 10 minutes is refused with upstream words', async () => {
    const c = claimsOf(await createToken(['default', '--duration', '10m']));
    assert.equal(c.exp - c.iat, 600);
    const short = await cluster.kubectl(['create', 'token', 'default', '--duration', '5m'], { allowFail: true });
    assert.notEqual(short.code, 0);
    assert.equal(short.stderr.trim(), 'error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes');
    const missing = await cluster.kubectl(['create', 'token', 'nobody'], { allowFail: true });
    assert.equal(missing.stderr.trim(), 'error: failed to create token: serviceaccounts "nobody" not found');
  });

  test('a token for another audience does not authenticate to the API server', async () => {
    const token = await createToken(['default', '--audience', 'vault']);
    assert.deepEqual(claimsOf(token).aud, ['vault']);
    assert.equal((await asBearer(token, '/api/v1/namespaces/default/pods')).status, 401);
  });

  test('a token bound to a pod carries the pod and is refused once the pod is deleted', async () => {
    await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'holder' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }) });
    const podUID = (await cluster.kubectl(['get', 'pod', 'holder', '-o', 'jsonpath={.metadata.uid}'])).stdout;
    const token = await createToken(['default', '--bound-object-kind', 'Pod', '--bound-object-name', 'holder', '--bound-object-uid', podUID]);
    assert.deepEqual(claimsOf(token)['kubernetes.io'].pod, { name: 'holder', uid: podUID });
    assert.equal((await asBearer(token, '/api/v1/namespaces/default/pods')).status, 200);
    const wrongUID = await cluster.kubectl(['create', 'token', 'default', '--bound-object-kind', 'Pod', '--bound-object-name', 'holder', '--bound-object-uid', 'not-the-uid'], { allowFail: true });
    assert.match(wrongUID.stderr, /the UID in the bound object reference \(not-the-uid\) does not match the UID in record/);
    await cluster.kubectl(['delete', 'pod', 'holder', '--grace-period=0', '--force']);
    await eventually(async () => (await asBearer(token, '/api/v1/namespaces/default/pods')).status === 401, 30_000, 'the pod-bound token to be refused');
  });

  test('a token of a deleted service account is refused, and one of a recreated namespace-mate too', async () => {
    await cluster.kubectl(['create', 'serviceaccount', 'robot']);
    const token = await createToken(['robot']);
    assert.equal((await asBearer(token, '/api/v1/namespaces/default/pods')).status, 200);
    await cluster.kubectl(['delete', 'serviceaccount', 'robot']);
    assert.equal((await asBearer(token, '/api/v1/namespaces/default/pods')).status, 401);
    await cluster.kubectl(['create', 'serviceaccount', 'robot']);
    assert.equal((await asBearer(token, '/api/v1/namespaces/default/pods')).status, 401, 'a new service account of the same name has another uid');
  });
});
