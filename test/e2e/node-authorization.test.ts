/**
 * Node authorization and NodeRestriction with real node credentials (issue
 * #8's Done-when): a real `k8ts server`, client certificates for
 * system:node:n1 and system:node:n2 issued by its CA, and the real kubectl.
 * n1 may write its own Node, Lease and the status of pods bound to it, and
 * read the secrets its pods use; it gets upstream's 403s for n2's Node,
 * n2's Lease, pods bound to n2, a secret no pod of its own uses, and a pod
 * that is not a mirror pod.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startCluster, type Cluster } from './harness.js';
import { apiRequest } from './helpers.js';
import { nodeKubeconfig } from './node-credentials.js';

let cluster: Cluster;
const kubeconfigs: Record<string, string> = {};

/** kubectl as a node (the later --kubeconfig wins over the harness's admin one). */
const asNode = (node: string, args: string[], input?: string) =>
  cluster.kubectl(['--kubeconfig', kubeconfigs[node], ...args], { input, allowFail: true });

const asNodeRequest = (node: string, path: string, method: string, body?: unknown) =>
  apiRequest({ ...cluster, kubeconfig: kubeconfigs[node] }, path, {
    method, body: body === undefined ? undefined : JSON.stringify(body),
    contentType: method === 'PATCH' ? 'application/merge-patch+json' : undefined,
  });

const nodeManifest = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } } });
const leaseManifest = (name: string) => JSON.stringify({
  apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: 'kube-node-lease' }, spec: { holderIdentity: name, leaseDurationSeconds: 40 },
});
const podUsingSecret = (name: string, node: string, secret: string) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
  spec: { nodeName: node, containers: [{ name: 'c', image: 'nginx', envFrom: [{ secretRef: { name: secret } }] }] },
});

function assertForbidden(r: { code: number; stderr: string }, message: string): void {
  assert.notEqual(r.code, 0, 'expected the request to be refused');
  assert.ok(r.stderr.includes('Error from server (Forbidden): ') && r.stderr.includes(message), `expected 403 "${message}", got: ${r.stderr}`);
}

async function assertRequestForbidden(node: string, path: string, method: string, body: unknown, message: string): Promise<void> {
  const r = await asNodeRequest(node, path, method, body);
  assert.equal(r.status, 403, r.body);
  assert.equal(r.json().message, message);
}

describe('node authorization with node credentials', () => {
  before(async () => {
    cluster = await startCluster({ controllers: 'none' });
    for (const n of ['n1', 'n2']) kubeconfigs[n] = await nodeKubeconfig(cluster, n);
    // Each node registers itself and its Lease, as a kubelet does.
    for (const n of ['n1', 'n2']) {
      const node = await asNode(n, ['create', '-f', '-'], nodeManifest(n));
      assert.equal(node.code, 0, node.stderr);
      const lease = await asNode(n, ['create', '-f', '-'], leaseManifest(n));
      assert.equal(lease.code, 0, lease.stderr);
    }
    await cluster.kubectl(['create', 'secret', 'generic', 'used-by-n1', '--from-literal=k=v']);
    await cluster.kubectl(['create', 'secret', 'generic', 'used-by-n2', '--from-literal=k=v']);
    await cluster.kubectl(['create', 'secret', 'generic', 'unused', '--from-literal=k=v']);
    await cluster.kubectl(['create', '-f', '-'], { input: podUsingSecret('p1', 'n1', 'used-by-n1') });
    await cluster.kubectl(['create', '-f', '-'], { input: podUsingSecret('p2', 'n2', 'used-by-n2') });
  });
  after(async () => { await cluster?.cleanup(); });

  it('a node writes its own Node, Lease and pod status', async () => {
    const label = await asNode('n1', ['label', 'node', 'n1', 'node.kubernetes.io/exclude-from-external-load-balancers=true']);
    assert.equal(label.code, 0, label.stderr);
    const renew = await asNode('n1', ['-n', 'kube-node-lease', 'patch', 'lease', 'n1', '--type=merge', '-p', '{"spec":{"leaseDurationSeconds":41}}']);
    assert.equal(renew.code, 0, renew.stderr);
    const status = await asNodeRequest('n1', '/api/v1/namespaces/default/pods/p1/status', 'PATCH', { status: { phase: 'Running' } });
    assert.equal(status.status, 200, status.body);
  });

  it("cannot modify another node's Node object", async () => {
    const message = 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"';
    await assertRequestForbidden('n1', '/api/v1/nodes/n2', 'PATCH', { metadata: { labels: { x: 'y' } } }, message);
    await assertRequestForbidden('n1', '/api/v1/nodes/n2/status', 'PATCH', { status: { phase: 'Running' } }, message);
    await assertRequestForbidden('n1', '/api/v1/nodes/n2', 'DELETE', undefined,
      'nodes "n2" is forbidden: User "system:node:n1" cannot delete resource "nodes" in API group "" at the cluster scope');
    // kubectl reads the object before it patches it: a node may read only its own.
    assertForbidden(await asNode('n1', ['label', 'node', 'n2', 'x=y']),
      `nodes "n2" is forbidden: User "system:node:n1" cannot get resource "nodes" in API group "" at the cluster scope: node 'n1' cannot read 'n2', only its own Node object`);
  });

  it('cannot set labels a kubelet may not set on its own Node, nor change its taints', async () => {
    assertForbidden(await asNode('n1', ['label', 'node', 'n1', 'node-restriction.kubernetes.io/trusted=yes']),
      'nodes "n1" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io/trusted');
    assertForbidden(await asNode('n1', ['taint', 'node', 'n1', 'k=v:NoSchedule']), 'nodes "n1" is forbidden: node "n1" is not allowed to modify taints');
  });

  it('cannot register with labels only an administrator sets', async () => {
    kubeconfigs.n3 = await nodeKubeconfig(cluster, 'n3');
    const n3 = JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n3', labels: { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/os': 'linux' } } });
    assertForbidden(await asNode('n3', ['create', '-f', '-'], n3),
      'nodes "n3" is forbidden: node "n3" is not allowed to set the following labels: node-role.kubernetes.io/control-plane');
    assertForbidden(await asNode('n3', ['create', '-f', '-'], nodeManifest('n4')), 'nodes "n4" is forbidden: node "n3" is not allowed to modify node "n4"');
  });

  it("cannot read or write another node's Lease", async () => {
    const reason = 'can only access node lease with the same name as the requesting node';
    const refused = (verb: string) =>
      `leases.coordination.k8s.io "n2" is forbidden: User "system:node:n1" cannot ${verb} resource "leases" in API group "coordination.k8s.io" in the namespace "kube-node-lease": ${reason}`;
    await assertRequestForbidden('n1', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n2', 'PATCH', { spec: { leaseDurationSeconds: 1 } }, refused('patch'));
    assertForbidden(await asNode('n1', ['-n', 'kube-node-lease', 'get', 'lease', 'n2']), refused('get'));
    assertForbidden(await asNode('n1', ['-n', 'kube-node-lease', 'delete', 'lease', 'n2']), refused('delete'));
    // The name of a create is only in the body: NodeRestriction refuses it.
    await cluster.kubectl(['-n', 'kube-node-lease', 'delete', 'lease', 'n2']);
    assertForbidden(await asNode('n1', ['create', '-f', '-'], leaseManifest('n2')),
      `leases.coordination.k8s.io "n2" is forbidden: ${reason}`);
  });

  it('cannot write pods bound to another node', async () => {
    const status = await asNodeRequest('n1', '/api/v1/namespaces/default/pods/p2/status', 'PATCH', { status: { phase: 'Failed' } });
    assert.equal(status.status, 403);
    assert.equal(status.json().message, 'pods "p2" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself');
    assertForbidden(await asNode('n1', ['delete', 'pod', 'p2', '--wait=false']),
      'pods "p2" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself');
    const evict = await asNodeRequest('n1', '/api/v1/namespaces/default/pods/p2/eviction', 'POST',
      { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p2', namespace: 'default' } });
    assert.equal(evict.status, 403);
    assert.equal(evict.json().message, 'pods "p2" is forbidden: node n1 can only evict pods with spec.nodeName set to itself');
    const p2 = JSON.parse((await cluster.kubectl(['get', 'pod', 'p2', '-o', 'json'])).stdout);
    assert.equal(p2.status?.phase, 'Pending');
    assert.equal(p2.metadata.deletionTimestamp, undefined);
  });

  it("reads the secret its pod uses, not another node's nor an unused one", async () => {
    await eventually(async () => (await asNode('n1', ['get', 'secret', 'used-by-n1', '-o', 'name'])).code === 0, 20_000, 'n1 may read its pod\'s secret');
    for (const name of ['used-by-n2', 'unused']) {
      assertForbidden(await asNode('n1', ['get', 'secret', name]),
        `secrets "${name}" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "default": no relationship found between node 'n1' and this object`);
    }
    assertForbidden(await asNode('n1', ['get', 'secrets']),
      'secrets is forbidden: User "system:node:n1" cannot list resource "secrets" in API group "" in the namespace "default": No Object name found');
  });

  it('loses a secret once the pod using it is gone', async () => {
    await eventually(async () => (await asNode('n2', ['get', 'secret', 'used-by-n2', '-o', 'name'])).code === 0, 20_000, 'n2 may read its pod\'s secret');
    await cluster.kubectl(['delete', 'pod', 'p2', '--grace-period=0', '--force']);
    await eventually(async () => (await asNode('n2', ['get', 'secret', 'used-by-n2'])).stderr.includes("no relationship found between node 'n2'"), 20_000, 'n2 loses the secret');
  });

  it('reads only its own Node and pods bound to it', async () => {
    assertForbidden(await asNode('n1', ['get', 'node', 'n2']),
      `nodes "n2" is forbidden: User "system:node:n1" cannot get resource "nodes" in API group "" at the cluster scope: node 'n1' cannot read 'n2', only its own Node object`);
    assertForbidden(await asNode('n1', ['get', 'pods', '-A']),
      'pods is forbidden: User "system:node:n1" cannot list resource "pods" in API group "" at the cluster scope: can only list/watch pods with spec.nodeName field selector');
    const mine = await asNode('n1', ['get', 'pods', '-A', '--field-selector', 'spec.nodeName=n1', '-o', 'name']);
    assert.equal(mine.code, 0, mine.stderr);
    assert.equal(mine.stdout.trim(), 'pod/p1');
    const own = await asNode('n1', ['get', 'nodes', '--field-selector', 'metadata.name=n1', '-o', 'name']);
    assert.equal(own.code, 0, own.stderr);
    assert.equal(own.stdout.trim(), 'node/n1');
  });

  it('creates only mirror pods bound to itself', async () => {
    assertForbidden(await asNode('n1', ['run', 'plain', '--image=nginx', '--overrides', '{"spec":{"nodeName":"n1"}}']),
      'pods "plain" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods');
    const n1 = JSON.parse((await cluster.kubectl(['get', 'node', 'n1', '-o', 'json'])).stdout);
    const mirror = (name: string, nodeName: string, extra: any = {}) => JSON.stringify({
      apiVersion: 'v1', kind: 'Pod',
      metadata: {
        name, namespace: 'default', annotations: { 'kubernetes.io/config.mirror': 'hash', 'kubernetes.io/config.source': 'file' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: n1.metadata.uid, controller: true }],
      },
      spec: { nodeName, containers: [{ name: 'c', image: 'nginx', ...extra }] },
    });
    assertForbidden(await asNode('n1', ['create', '-f', '-'], mirror('elsewhere', 'n2')),
      'pods "elsewhere" is forbidden: node "n1" can only create pods with spec.nodeName set to itself');
    assertForbidden(await asNode('n1', ['create', '-f', '-'], mirror('with-config', 'n1', { envFrom: [{ configMapRef: { name: 'cm' } }] })),
      'pods "with-config" is forbidden: node "n1" can not create pods that reference configmaps');
    const ok = await asNode('n1', ['create', '-f', '-'], mirror('static-n1', 'n1'));
    assert.equal(ok.code, 0, ok.stderr);
    const gone = await asNode('n1', ['delete', 'pod', 'static-n1', '--grace-period=0', '--wait=false']);
    assert.equal(gone.code, 0, gone.stderr);
  });

  it('mints service-account tokens only bound to its own pods (NodeRestriction on TokenRequest)', async () => {
    await cluster.kubectl(['create', 'serviceaccount', 'agent']);
    await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p3', namespace: 'default' },
      spec: { nodeName: 'n1', serviceAccountName: 'agent', containers: [{ name: 'c', image: 'nginx' }] },
    }) });
    await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p4', namespace: 'default' },
      spec: { nodeName: 'n2', serviceAccountName: 'agent', containers: [{ name: 'c', image: 'nginx' }] },
    }) });
    const uid = (name: string) => cluster.kubectl(['get', 'pod', name, '-o', 'jsonpath={.metadata.uid}']).then((r) => r.stdout);
    const [p3, p4] = [await uid('p3'), await uid('p4')];
    const path = '/api/v1/namespaces/default/serviceaccounts/agent/token';
    const tokenRequest = (ref?: object) => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [], ...(ref ? { boundObjectRef: ref } : {}) } });
    // The node authorizer lets n1 ask (a pod of n1 uses the account); NodeRestriction judges the binding.
    await eventually(async () => (await asNodeRequest('n1', path, 'POST', tokenRequest({ apiVersion: 'v1', kind: 'Pod', name: 'p3', uid: p3 }))).status === 201, 20_000, 'n1 mints a token bound to its pod');
    await assertRequestForbidden('n1', path, 'POST', tokenRequest(), 'serviceaccounts "agent" is forbidden: node requested token not bound to a pod');
    await assertRequestForbidden('n1', path, 'POST', tokenRequest({ apiVersion: 'v1', kind: 'Pod', name: 'p3' }),
      'serviceaccounts "agent" is forbidden: node requested token with a pod binding without a uid');
    await assertRequestForbidden('n1', path, 'POST', tokenRequest({ apiVersion: 'v1', kind: 'Pod', name: 'p3', uid: p4 }),
      `serviceaccounts "agent" is forbidden: the UID in the bound object reference (${p4}) does not match the UID in record. The object might have been deleted and then recreated`);
    await assertRequestForbidden('n1', path, 'POST', tokenRequest({ apiVersion: 'v1', kind: 'Pod', name: 'p4', uid: p4 }),
      'serviceaccounts "agent" is forbidden: node requested token bound to a pod scheduled on a different node');
    // An administrator is not a node: an unbound token as before.
    const admin = await apiRequest(cluster, path, { method: 'POST', body: JSON.stringify(tokenRequest()) });
    assert.equal(admin.status, 201, admin.body);
  });

  it('bootstraps the system:node ClusterRole, bound to no one', async () => {
    const role = JSON.parse((await cluster.kubectl(['get', 'clusterrole', 'system:node', '-o', 'json'])).stdout);
    assert.ok(role.rules.some((r: any) => r.resources.includes('pods/status') && r.verbs.includes('patch')));
    const binding = JSON.parse((await cluster.kubectl(['get', 'clusterrolebinding', 'system:node', '-o', 'json'])).stdout);
    assert.equal(binding.roleRef.name, 'system:node');
    assert.equal(binding.subjects, undefined);
  });

  it('leaves users that are not nodes alone', async () => {
    const r = await cluster.kubectl(['label', 'node', 'n2', 'node-restriction.kubernetes.io/trusted=yes']);
    assert.equal(r.code, 0);
  });
});
