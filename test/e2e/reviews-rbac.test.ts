/**
 * Reviews and impersonation under the default authorization (Node,RBAC), driven
 * by the real kubectl: the admin (system:masters) may do anything; a token
 * user may not impersonate until a ClusterRole grants `impersonate`; can-i
 * answers from RBAC bindings, and --list prints the user's RBAC rules.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startCluster, eventually, type Cluster } from './harness.js';

let cluster: Cluster;
let dataDir: string;
const ALICE = 'alice-token-0123456789';

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-reviews-rbac-'));
  const tokenFile = join(dataDir, 'tokens.csv');
  writeFileSync(tokenFile, `${ALICE},alice,uid-alice,"dev"\n`);
  cluster = await startCluster({ dataDir, extraArgs: ['--token-auth-file', tokenFile] });
});
after(async () => {
  await cluster?.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

const kubectl = (args: string[], input?: string) => cluster.kubectl(args, { allowFail: true, input });
/** kubectl as alice: her token instead of the admin's certificate. */
const asAlice = (args: string[]) => kubectl(['--user', 'alice', ...args]);

describe('can-i and whoami under RBAC', () => {
  before(async () => {
    // A kubeconfig user for alice's token beside the admin's certificate user.
    const r = await kubectl(['config', 'set-credentials', 'alice', `--token=${ALICE}`]);
    assert.equal(r.code, 0, r.stderr);
  });

  test('the admin may; an impersonated user without bindings may not', async () => {
    assert.equal((await kubectl(['auth', 'can-i', 'create', 'pods'])).stdout, 'yes\n');
    const no = await kubectl(['auth', 'can-i', 'create', 'pods', '--as=jane']);
    assert.equal(no.stdout, 'no\n');
    assert.equal(no.code, 1);
    const whoami = parse((await kubectl(['auth', 'whoami', '--as=jane', '-o', 'yaml'])).stdout);
    assert.deepEqual(whoami.status.userInfo, { username: 'jane', groups: ['system:authenticated'] });
  });

  test('a Role and RoleBinding make can-i answer yes in their namespace only', async () => {
    for (const args of [
      ['create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods', '-n', 'default'],
      ['create', 'rolebinding', 'jane-reads', '--role=pod-reader', '--user=jane', '-n', 'default'],
    ]) assert.equal((await kubectl(args)).code, 0);
    await eventually(async () => (await kubectl(['auth', 'can-i', 'list', 'pods', '--as=jane', '-n', 'default'])).stdout === 'yes\n', 30_000, 'jane may list pods');
    assert.equal((await kubectl(['auth', 'can-i', 'list', 'pods', '--as=jane', '-n', 'kube-system'])).stdout, 'no\n');
    assert.equal((await kubectl(['auth', 'can-i', 'delete', 'pods', '--as=jane', '-n', 'default'])).stdout, 'no\n');
    const list = await kubectl(['auth', 'can-i', '--list', '--as=jane', '-n', 'default']);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^pods\s+\[\]\s+\[\]\s+\[get list\]$/m);
    assert.match(list.stdout, /^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    assert.doesNotMatch(list.stdout, /^\*\.\*/m);
  });

  test('the admin\'s --list carries cluster-admin\'s rules', async () => {
    const list = await kubectl(['auth', 'can-i', '--list']);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/m);
    assert.match(list.stdout, /^\s+\[\*\]\s+\[\]\s+\[\*\]$/m);
  });

  test('impersonation needs the impersonate verb', async () => {
    assert.equal((await asAlice(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'])).stdout, 'alice');
    // When kubectl must refresh discovery it reads those answers raw and says "unknown" (as against
    // kube-apiserver); with discovery cached by the admin's calls, the list's own 403 is shown.
    const refused = await asAlice(['get', 'pods', '--as=jane']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Error from server \(Forbidden\): (unknown|users "jane" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope)\n$/);
    const typed = await asAlice(['auth', 'can-i', 'list', 'pods', '--as=jane']);
    assert.match(typed.stderr, /Error from server \(Forbidden\): users "jane" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope/);
    const group = await asAlice(['auth', 'can-i', 'list', 'pods', '--as=alice', '--as-group=system:masters']);
    assert.match(group.stderr, /users "alice" is forbidden: User "alice" cannot impersonate resource "users"/);
    for (const args of [
      ['create', 'clusterrole', 'impersonate-jane', '--verb=impersonate', '--resource=users', '--resource-name=jane'],
      ['create', 'clusterrolebinding', 'alice-impersonates', '--clusterrole=impersonate-jane', '--user=alice'],
    ]) assert.equal((await kubectl(args)).code, 0);
    await eventually(async () => (await asAlice(['auth', 'whoami', '--as=jane', '-o', 'jsonpath={.status.userInfo.username}'])).stdout === 'jane', 30_000, 'alice may impersonate jane');
    assert.equal((await asAlice(['auth', 'can-i', 'list', 'pods', '--as=jane', '-n', 'default'])).stdout, 'yes\n');
    const bob = await asAlice(['auth', 'can-i', 'list', 'pods', '--as=bob']);
    assert.match(bob.stderr, /users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope/);
    const sa = await asAlice(['auth', 'can-i', 'list', 'pods', '--as=system:serviceaccount:kube-system:default']);
    assert.match(sa.stderr, /serviceaccounts "default" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "kube-system"/);
  });

  test('SubjectAccessReview needs its own permission; the admin may ask about anyone', async () => {
    const sar = 'apiVersion: authorization.k8s.io/v1\nkind: SubjectAccessReview\nspec:\n  user: jane\n  resourceAttributes: {verb: list, resource: pods, namespace: default}\n';
    const admin = await kubectl(['create', '--validate=false', '-o', 'json', '-f', '-'], sar);
    assert.equal(admin.code, 0, admin.stderr);
    const status = JSON.parse(admin.stdout).status;
    assert.equal(status.allowed, true);
    assert.match(status.reason, /^RBAC: allowed by RoleBinding "jane-reads\/default" of Role "pod-reader" to User "jane"$/);
    const alice = await kubectl(['--user', 'alice', 'create', '--validate=false', '-o', 'json', '-f', '-'], sar);
    assert.match(alice.stderr, /subjectaccessreviews.authorization.k8s.io is forbidden: User "alice" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope/);
  });
});
