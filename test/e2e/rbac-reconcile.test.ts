/**
 * The default RBAC policy is reconciled at every start, as kube-apiserver's
 * rbac/bootstrap-roles hook does: a default ClusterRole that lost rules gets
 * them back (what a user added stays), a default ClusterRoleBinding gets its
 * subjects back, and an object annotated
 * rbac.authorization.kubernetes.io/autoupdate: "false" is left alone. Edited
 * with the real kubectl, checked after a real restart on the same data dir.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, type Cluster } from './harness.js';

const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-rbac-reconcile-'));
let cluster: Cluster | undefined;

after(async () => {
  await cluster?.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

const get = async (kind: string, name: string) => JSON.parse((await cluster!.kubectl(['get', kind, name, '-o', 'json'])).stdout);
const replace = (obj: unknown) => cluster!.kubectl(['replace', '-f', '-'], { input: JSON.stringify(obj) });
const csrRule = (verbs: string[]) => ({ apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs });

test('a restart restores what the defaults miss, keeps what users added, and leaves autoupdate "false" alone', async () => {
  cluster = await startCluster({ dataDir });

  // system:node-bootstrapper loses list and watch, gains a rule and a label.
  const bootstrapper = await get('clusterrole', 'system:node-bootstrapper');
  assert.deepEqual(bootstrapper.rules, [csrRule(['create', 'get', 'list', 'watch'])]);
  const extra = { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] };
  await replace({ ...bootstrapper, metadata: { ...bootstrapper.metadata, labels: { ...bootstrapper.metadata.labels, team: 'infra' } },
    rules: [csrRule(['create', 'get']), extra] });
  // selfnodeclient is protected, then emptied.
  const self = await get('clusterrole', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient');
  await replace({ ...self, metadata: { ...self.metadata, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, rules: [] });
  // system:basic-user's binding loses system:authenticated and gains alice.
  const basic = await get('clusterrolebinding', 'system:basic-user');
  await replace({ ...basic, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }] });

  await cluster.stop();
  cluster = await startCluster({ dataDir });

  const reconciled = await get('clusterrole', 'system:node-bootstrapper');
  // Upstream appends the missing permissions as atomic rules after the stored ones.
  assert.deepEqual(reconciled.rules, [csrRule(['create', 'get']), extra, csrRule(['list']), csrRule(['watch'])]);
  assert.equal(reconciled.metadata.labels.team, 'infra');
  assert.equal(reconciled.metadata.labels['kubernetes.io/bootstrapping'], 'rbac-defaults');
  assert.equal(reconciled.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate'], 'true');

  const untouched = await get('clusterrole', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient');
  assert.deepEqual(untouched.rules ?? [], []);
  assert.equal(untouched.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate'], 'false');

  const binding = await get('clusterrolebinding', 'system:basic-user');
  assert.deepEqual(binding.subjects, [
    { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' },
    { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' },
  ]);
  // Reconciling is idempotent: a second restart rewrites nothing.
  const versions = async () => JSON.parse((await cluster!.kubectl(['get', 'clusterroles,clusterrolebindings', '-o', 'json'])).stdout).items
    .map((o: any) => `${o.kind}/${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
  const before = await versions();
  assert.ok(before.length > 20, before.join(' '));
  await cluster.stop();
  cluster = await startCluster({ dataDir });
  assert.deepEqual(await versions(), before);
});
