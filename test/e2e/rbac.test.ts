/**
 * RBAC with real kubectl and real credentials: a user with a client
 * certificate issued by the cluster CA and no binding is refused in upstream's
 * words; a RoleBinding to `view` lets it read and not write; ClusterRole
 * aggregation feeds view; escalation is refused; anonymous requests may read
 * /version and nothing else; the in-process controllers and scheduler work
 * under their own identities.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { buildKubeconfig, issueCertificate, writeKubeconfig } from '../../src/pki/index.js';
import { eventually, startCluster, type Cluster, type KubectlResult } from './harness.js';
import { apiRequest } from './helpers.js';

describe('RBAC (e2e)', { timeout: 240_000 }, () => {
  let cluster: Cluster;
  /** kubectl as jane (groups developers, system:authenticated). */
  let jane: (args: string[]) => Promise<KubectlResult>;

  before(async () => {
    cluster = await startCluster({ controllers: 'all' });
    const pki = join(cluster.dataDir, 'pki');
    const ca = { certPem: readFileSync(join(pki, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(pki, 'ca.key'), 'utf8') };
    const cert = await issueCertificate({ ca, commonName: 'jane', organizations: ['developers'], usages: ['client'], days: 1 });
    const kubeconfig = join(cluster.dataDir, 'jane.conf');
    await writeKubeconfig(kubeconfig, buildKubeconfig({ server: cluster.url, caCertPem: ca.certPem, userName: 'jane', clientCertPem: cert.certPem, clientKeyPem: cert.keyPem }));
    const base = ['--kubeconfig', kubeconfig, '--cache-dir', join(cluster.dataDir, 'jane-cache')];
    jane = (args) => new Promise((resolve) => {
      execFile('kubectl', [...base, ...args], (err, stdout, stderr) => resolve({ stdout, stderr, code: err ? (typeof err.code === 'number' ? err.code : 1) : 0 }));
    });
  });
  after(async () => { await cluster?.cleanup(); });

  test('a user without a binding is refused in upstream words: get, list, create, a non-resource path', async () => {
    const list = await jane(['get', 'pods']);
    assert.equal(list.stderr, 'Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"\n');
    const get = await jane(['get', 'pod', 'x']);
    assert.equal(get.stderr, 'Error from server (Forbidden): pods "x" is forbidden: User "jane" cannot get resource "pods" in API group "" in the namespace "default"\n');
    const create = await jane(['create', 'configmap', 'c1']);
    assert.equal(create.stderr, 'error: failed to create configmap: configmaps is forbidden: User "jane" cannot create resource "configmaps" in API group "" in the namespace "default"\n');
    const raw = await jane(['get', '--raw', '/metrics']);
    assert.equal(raw.stderr, 'Error from server (Forbidden): forbidden: User "jane" cannot get path "/metrics"\n');
    const nodes = await jane(['get', 'nodes']);
    assert.equal(nodes.stderr, 'Error from server (Forbidden): nodes is forbidden: User "jane" cannot list resource "nodes" in API group "" at the cluster scope\n');
  });

  test('kubectl create rolebinding --clusterrole=view: jane may get and list in that namespace, not create, not elsewhere', async () => {
    await cluster.kubectl(['create', 'configmap', 'seen', '--from-literal=k=v']);
    await cluster.kubectl(['create', 'rolebinding', 'jane-view', '--clusterrole=view', '--user=jane', '-n', 'default']);
    // The aggregation controller fills view, and the authorizer's cache follows the writes.
    await eventually(async () => (await jane(['get', 'configmap', 'seen', '-o', 'name'])).stdout === 'configmap/seen\n', 30_000, 'jane reads configmaps');
    assert.equal((await jane(['get', 'pods'])).code, 0);
    const create = await jane(['create', 'configmap', 'c2']);
    assert.equal(create.stderr, 'error: failed to create configmap: configmaps is forbidden: User "jane" cannot create resource "configmaps" in API group "" in the namespace "default"\n');
    const other = await jane(['get', 'pods', '-n', 'kube-system']);
    assert.equal(other.stderr, 'Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "kube-system"\n');
  });

  test('a ClusterRole labelled aggregate-to-view adds its rules to view, and so to jane', async () => {
    const before = await jane(['get', 'secrets']);
    assert.equal(before.stderr, 'Error from server (Forbidden): secrets is forbidden: User "jane" cannot list resource "secrets" in API group "" in the namespace "default"\n');
    await cluster.kubectl(['create', 'clusterrole', 'secret-lister', '--verb=list', '--resource=secrets']);
    await cluster.kubectl(['label', 'clusterrole', 'secret-lister', 'rbac.authorization.k8s.io/aggregate-to-view=true']);
    await eventually(async () => (await jane(['get', 'secrets'])).code === 0, 30_000, 'view aggregates secret-lister');
    const view = JSON.parse((await cluster.kubectl(['get', 'clusterrole', 'view', '-o', 'json'])).stdout);
    assert.ok(view.rules.some((r: any) => r.resources?.includes('secrets') && r.verbs.includes('list')), JSON.stringify(view.rules));
  });

  test('escalation: jane (admin of a namespace) may grant what she holds, not more; upstream message', async () => {
    await cluster.kubectl(['create', 'namespace', 'team']);
    await cluster.kubectl(['create', 'rolebinding', 'jane-admin', '--clusterrole=admin', '--user=jane', '-n', 'team']);
    await eventually(async () => (await jane(['create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods', '-n', 'team'])).code === 0, 30_000, 'jane creates a role she holds');
    const role = await jane(['create', 'role', 'node-reader', '--verb=get', '--resource=nodes', '-n', 'team']);
    assert.equal(role.stderr, 'Error from server (Forbidden): roles.rbac.authorization.k8s.io "node-reader" is forbidden: user "jane" (groups=["developers" "system:authenticated"]) '
      + 'is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}\n');
    const bind = await jane(['create', 'rolebinding', 'self-admin', '--clusterrole=cluster-admin', '--user=jane', '-n', 'team']);
    assert.match(bind.stderr, /^error: failed to create rolebinding: rolebindings\.rbac\.authorization\.k8s\.io "self-admin" is forbidden: user "jane" \(groups=\["developers" "system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]\}\n\{NonResourceURLs:\["\*"\], Verbs:\["\*"\]\}\n$/);
    assert.equal((await jane(['create', 'rolebinding', 'bob-reads', '--role=pod-reader', '--user=bob', '-n', 'team'])).code, 0);
    assert.equal((await jane(['create', 'rolebinding', 'bob-views', '--clusterrole=view', '--user=bob', '-n', 'team'])).code, 0);
    // bind on the role lets a user bind what it does not hold.
    await cluster.kubectl(['create', 'clusterrole', 'bind-node-reader', '--verb=bind', '--resource=clusterroles', '--resource-name=node-reader']);
    await cluster.kubectl(['create', 'clusterrole', 'node-reader', '--verb=get', '--resource=nodes']);
    await cluster.kubectl(['create', 'rolebinding', 'jane-binds', '--clusterrole=bind-node-reader', '--user=jane', '-n', 'team']);
    await eventually(async () => (await jane(['create', 'rolebinding', 'bob-nodes', '--clusterrole=node-reader', '--user=bob', '-n', 'team'])).code === 0, 30_000, 'bind verb');
  });

  test('anonymous: /version and /healthz answer, /api/v1/pods is 403 for system:anonymous', async () => {
    const version = await apiRequest(cluster, '/version', { anonymous: true });
    assert.equal(version.status, 200);
    assert.equal((await apiRequest(cluster, '/healthz', { anonymous: true })).body, 'ok');
    const pods = await apiRequest(cluster, '/api/v1/pods', { anonymous: true });
    assert.equal(pods.status, 403);
    assert.equal(pods.json().message, 'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" at the cluster scope');
  });

  test('the controller manager and scheduler work under their own identities and hold their leader Leases', async () => {
    await cluster.kubectl(['create', 'deployment', 'web', '--image=nginx', '--replicas=2']);
    await eventually(async () => (await cluster.kubectl(['get', 'pods', '-l', 'app=web', '-o', 'name'])).stdout.trim().split('\n').filter(Boolean).length === 2,
      60_000, 'deployment pods created by the controller manager');
    const leases = JSON.parse((await cluster.kubectl(['get', 'leases', '-n', 'kube-system', '-o', 'json'])).stdout).items.map((l: any) => l.metadata.name);
    assert.ok(leases.includes('kube-scheduler') && leases.includes('kube-controller-manager'), leases.join(','));
  });
});
