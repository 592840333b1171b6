/**
 * Access and identity reviews and impersonation, driven by the real kubectl
 * (`auth can-i [--list]`, `auth whoami`, `--as/--as-group/--as-uid`, `create`
 * of reviews) and @kubernetes/client-node against a real `k8ts server`.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { AuthenticationV1Api, AuthorizationV1Api, KubeConfig } from './client-node-package.js';
import { startCluster, type Cluster } from './harness.js';
import { adminCredentials } from './helpers.js';

let cluster: Cluster;
const TOKEN = 'reviews-token-0123456789';

before(async () => {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-reviews-'));
  const tokenFile = join(dataDir, 'tokens.csv');
  writeFileSync(tokenFile, `${TOKEN},alice,uid-alice,"dev,ops"\n`);
  // AlwaysAllow: every review answers allowed; test/e2e/reviews-rbac.test.ts has the Node,RBAC default.
  cluster = await startCluster({ dataDir, extraArgs: ['--token-auth-file', tokenFile, '--authorization-mode', 'AlwaysAllow'] });
});
after(async () => {
  await cluster?.cleanup();
  const { rmSync } = await import('node:fs');
  if (cluster) rmSync(cluster.dataDir, { recursive: true, force: true });
});

const kubectl = (args: string[], input?: string) => cluster.kubectl(args, { allowFail: true, input });

/** A POST with the admin certificate and extra headers (impersonation that kubectl refuses to send). */
function post(path: string, body: object, headers: Record<string, string | string[]>): Promise<{ status: number; type: string; body: string }> {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, cluster.url), {
      method: 'POST', agent: false, ...adminCredentials(cluster.kubeconfig),
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': Buffer.byteLength(data), ...headers },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: text }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

describe('kubectl auth can-i (AlwaysAllow)', () => {
  test('answers yes for the admin, for subresources, namespaces and impersonated users', async () => {
    for (const args of [
      ['create', 'pods'], ['get', 'pods', '--subresource=log'], ['delete', 'nodes'], ['list', 'deployments.apps', '-n', 'kube-system'],
      ['create', 'pods', '--as=jane'], ['get', '/healthz'], ['*', '*'],
    ]) {
      const r = await kubectl(['auth', 'can-i', ...args]);
      assert.equal(r.stdout, 'yes\n', `can-i ${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.code, 0);
    }
  });

  test('--list prints the rules of SelfSubjectRulesReview', async () => {
    const r = await kubectl(['auth', 'can-i', '--list', '-n', 'default']);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
    assert.deepEqual(lines[0], ['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs']);
    assert.deepEqual(lines.slice(1), [['*.*', '[]', '[]', '[*]'], ['[*]', '[]', '[*]']]);
  });
});

describe('kubectl auth whoami and impersonation', () => {
  test('the admin is kubernetes-admin in system:masters', async () => {
    const r = await kubectl(['auth', 'whoami']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ATTRIBUTE\s+VALUE\nUsername\s+kubernetes-admin\nGroups\s+\[system:masters system:authenticated\]\n$/);
    const y = parse((await kubectl(['auth', 'whoami', '-o', 'yaml'])).stdout);
    assert.equal(y.kind, 'SelfSubjectReview');
    assert.equal(y.apiVersion, 'authentication.k8s.io/v1');
    assert.deepEqual(y.status, { userInfo: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] } });
  });

  test('--as, --as-group and --as-uid change who the server sees', async () => {
    const jane = parse((await kubectl(['auth', 'whoami', '--as=jane', '-o', 'yaml'])).stdout);
    assert.deepEqual(jane.status.userInfo, { username: 'jane', groups: ['system:authenticated'] });
    const full = parse((await kubectl(['auth', 'whoami', '--as=jane', '--as-group=dev', '--as-group=ops', '--as-uid=42', '-o', 'yaml'])).stdout);
    assert.deepEqual(full.status.userInfo, { username: 'jane', uid: '42', groups: ['dev', 'ops', 'system:authenticated'] });
    const sa = parse((await kubectl(['auth', 'whoami', '--as=system:serviceaccount:kube-system:default', '-o', 'yaml'])).stdout);
    assert.deepEqual(sa.status.userInfo, {
      username: 'system:serviceaccount:kube-system:default', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
    });
  });

  test('extra values from Impersonate-Extra-* headers; groups without a user are upstream\'s 500', async () => {
    const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
    const r = await post('/apis/authentication.k8s.io/v1/selfsubjectreviews', review, { 'Impersonate-User': 'jane', 'Impersonate-Extra-Example.com%2fScopes': 'view' });
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(JSON.parse(r.body).status.userInfo, { username: 'jane', groups: ['system:authenticated'], extra: { 'example.com/scopes': ['view'] } });
    const bad = await post('/apis/authentication.k8s.io/v1/selfsubjectreviews', review, { 'Impersonate-Group': 'admins' });
    assert.equal(bad.status, 500);
    assert.equal(bad.type, 'text/plain; charset=utf-8');
    assert.equal(bad.body, 'Internal Server Error: "/apis/authentication.k8s.io/v1/selfsubjectreviews": requested [{Group  admins    }] without impersonating a user\n');
  });
});

describe('reviews created with kubectl create', () => {
  // Create-only kinds have no PATCH in /openapi/v3, so kubectl's client-side validation wants /openapi/v2 protobuf.
  const create = (yaml: string) => kubectl(['create', '--validate=false', '-o', 'json', '-f', '-'], yaml);

  test('SubjectAccessReview echoes the spec with the status', async () => {
    const r = await create('apiVersion: authorization.k8s.io/v1\nkind: SubjectAccessReview\nspec:\n  user: jane\n  resourceAttributes: {verb: get, resource: pods, namespace: default}\n');
    assert.equal(r.code, 0, r.stderr);
    const got = JSON.parse(r.stdout);
    assert.deepEqual(got.spec, { user: 'jane', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } });
    assert.deepEqual(got.status, { allowed: true });
  });

  test('validation and namespace errors in upstream\'s words', async () => {
    const noUser = await create('apiVersion: authorization.k8s.io/v1\nkind: SubjectAccessReview\nspec:\n  resourceAttributes: {verb: get}\n');
    assert.equal(noUser.code, 1);
    assert.match(noUser.stderr, /The SubjectAccessReview "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified/);
    const local = await create('apiVersion: authorization.k8s.io/v1\nkind: LocalSubjectAccessReview\nmetadata: {namespace: kube-system}\nspec:\n  user: jane\n  resourceAttributes: {verb: get, namespace: default}\n');
    assert.match(local.stderr, /The LocalSubjectAccessReview "" is invalid: spec.resourceAttributes.namespace: Invalid value: "default": must match metadata.namespace/);
    const ok = await create('apiVersion: authorization.k8s.io/v1\nkind: LocalSubjectAccessReview\nmetadata: {namespace: kube-system}\nspec:\n  groups: [dev]\n  resourceAttributes: {verb: get, namespace: kube-system}\n');
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(JSON.parse(ok.stdout).status.allowed, true);
  });

  test('TokenReview authenticates the token file\'s token and not an unknown one', async () => {
    const review = (token: string) => `apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec:\n  token: ${token}\n`;
    const good = await create(review(TOKEN));
    assert.equal(good.code, 0, good.stderr);
    assert.deepEqual(JSON.parse(good.stdout).status, { authenticated: true, user: { username: 'alice', uid: 'uid-alice', groups: ['dev', 'ops', 'system:authenticated'] } });
    const bad = await create(review('nope'));
    assert.deepEqual(JSON.parse(bad.stdout).status, { user: {} });
  });
});

describe('@kubernetes/client-node', () => {
  test('createSelfSubjectAccessReview, createSelfSubjectRulesReview and createSelfSubjectReview', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(cluster.kubeconfig);
    const authz = kc.makeApiClient(AuthorizationV1Api);
    const ssar = await authz.createSelfSubjectAccessReview({ body: { spec: { resourceAttributes: { verb: 'create', resource: 'pods', namespace: 'default' } } } });
    assert.equal(ssar.status?.allowed, true);
    const ssrr = await authz.createSelfSubjectRulesReview({ body: { spec: { namespace: 'default' } } });
    assert.deepEqual(ssrr.status?.resourceRules.map((r) => ({ verbs: r.verbs, apiGroups: r.apiGroups, resources: r.resources })), [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
    const who = await kc.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({ body: {} });
    assert.equal(who.status?.userInfo?.username, 'kubernetes-admin');
  });
});
