/**
 * What one bind costs the storage, and upstream's BindingREST semantics around it.
 *
 * A scheduler binds every pod once (POST pods/x/binding): upstream's BindingREST admits the
 * Binding as a CREATE of pods/binding and sets spec.nodeName in one GuaranteedUpdate, starting
 * from the watch cache's copy (cachedExistingObject), with no pod update admission, no pod
 * validation and no managedFields entry. Counted at the Backend seam as
 * create-storage-access.test.ts counts a create: one storage write (the pod) and no read, on
 * SQLite and on etcd, so the bind path cannot grow unnoticed.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';
import { apiRequest, apiServerOnly, manifestDir, noIdentityLease, storageCounts } from './helpers.js';
import { startEtcd, type PrivateEtcd } from './etcd.js';

const reads = ['get', 'list', 'count'] as const;
const writes = ['create', 'update', 'delete'] as const;

async function storageAccess(cluster: Cluster, run: () => Promise<unknown>) {
  const before = await storageCounts(cluster);
  await run();
  const after = await storageCounts(cluster);
  const delta = (op: string) => (after[op] ?? 0) - (before[op] ?? 0);
  const byOp = Object.fromEntries([...reads, ...writes].map((op) => [op, delta(op)]));
  return { reads: reads.reduce((n, op) => n + delta(op), 0), writes: writes.reduce((n, op) => n + delta(op), 0), byOp };
}

for (const storage of ['sqlite', 'etcd'] as const) describe(`one bind costs one storage write and no storage read (${storage})`, () => {
  let cluster: Cluster;
  let etcd: PrivateEtcd | undefined;
  const files = manifestDir();
  const pods = '/api/v1/namespaces/default/pods';

  before(async () => {
    if (storage === 'etcd') etcd = await startEtcd();
    // No controllers: no scheduler binds the test's pods first.
    cluster = await startCluster({ extraArgs: [...apiServerOnly.extraArgs, ...noIdentityLease, ...(etcd ? ['--etcd-servers', etcd.url] : [])] });
  });

  after(async () => {
    files.close();
    await cluster?.stop();
    await cluster?.cleanup();
    await etcd?.stop();
  });

  const send = (method: string, path: string, body?: object) => apiRequest(cluster, path, { method, body: body && JSON.stringify(body) });
  const binding = (name: string, node: string, meta: Record<string, unknown> = {}) =>
    ({ apiVersion: 'v1', kind: 'Binding', metadata: { name, ...meta }, target: { apiVersion: 'v1', kind: 'Node', name: node } });

  async function createPod(name: string, spec: Record<string, unknown> = {}, namespace = 'default'): Promise<any> {
    const res = await send('POST', `/api/v1/namespaces/${namespace}/pods`, {
      apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }], ...spec },
    });
    assert.equal(res.status, 201, res.body);
    // The watch cache holds the pod once a consistent list (served from it) shows it.
    const list = await apiRequest(cluster, `/api/v1/namespaces/${namespace}/pods?fieldSelector=metadata.name%3D${name}`);
    assert.equal(list.json().items.length, 1);
    return res.json();
  }

  test('a bind: 1 write (the pod), 0 reads; spec.nodeName, PodScheduled, no managedFields entry', async () => {
    const created = await createPod('b1');
    const access = await storageAccess(cluster, async () => {
      const res = await send('POST', `${pods}/b1/binding`, binding('b1', 'node-1', { uid: created.metadata.uid }));
      assert.equal(res.status, 201, res.body);
      assert.deepEqual({ kind: res.json().kind, status: res.json().status, code: res.json().code }, { kind: 'Status', status: 'Success', code: 201 });
    });
    assert.deepEqual({ reads: access.reads, writes: access.writes }, { reads: 0, writes: 1 }, JSON.stringify(access.byOp));
    assert.equal(access.byOp.update, 1);
    const pod = (await send('GET', `${pods}/b1`)).json();
    assert.equal(pod.spec.nodeName, 'node-1');
    const scheduled = pod.status.conditions.filter((c: any) => c.type === 'PodScheduled');
    assert.deepEqual(scheduled.map((c: any) => [c.status, c.lastProbeTime]), [['True', null]]);
    assert.ok(scheduled[0].lastTransitionTime);
    assert.deepEqual(pod.metadata.managedFields, created.metadata.managedFields, 'the bind adds no managedFields entry, as upstream');
    assert.deepEqual(pod.spec.tolerations, created.spec.tolerations, 'no pod admission ran on the bind');
  });

  test('a dry-run bind: no write, no read, the pod unbound', async () => {
    await createPod('b2');
    const access = await storageAccess(cluster, async () => {
      const res = await send('POST', `${pods}/b2/binding?dryRun=All`, binding('b2', 'node-1'));
      assert.equal(res.status, 201, res.body);
    });
    assert.deepEqual({ reads: access.reads, writes: access.writes }, { reads: 0, writes: 0 }, JSON.stringify(access.byOp));
    assert.equal((await send('GET', `${pods}/b2`)).json().spec.nodeName, undefined);
  });

  test('the Binding\'s annotations are merged into the pod\'s; the legacy bindings resource binds the same way', async () => {
    await createPod('b3');
    const res = await send('POST', '/api/v1/namespaces/default/bindings', binding('b3', 'node-2', { annotations: { 'example.com/why': 'test' } }));
    assert.equal(res.status, 201, res.body);
    const pod = (await send('GET', `${pods}/b3`)).json();
    assert.equal(pod.spec.nodeName, 'node-2');
    assert.equal(pod.metadata.annotations['example.com/why'], 'test');
  });

  test('upstream\'s refusals: already bound, uid precondition, scheduling gates, name mismatch, target', async () => {
    await createPod('r1');
    assert.equal((await send('POST', `${pods}/r1/binding`, binding('r1', 'node-1'))).status, 201);
    const again = await send('POST', `${pods}/r1/binding`, binding('r1', 'node-2'));
    assert.equal(again.status, 409, again.body);
    assert.equal(again.json().message, 'Operation cannot be fulfilled on pods/binding "r1": pod r1 is already assigned to node "node-1"');

    await createPod('r2');
    const wrongUid = await send('POST', `${pods}/r2/binding`, binding('r2', 'node-1', { uid: 'not-the-pods-uid' }));
    assert.equal(wrongUid.status, 409, wrongUid.body);
    assert.match(wrongUid.json().message, /^Operation cannot be fulfilled on pods "r2": Precondition failed: UID in precondition: not-the-pods-uid, UID in object meta: /);

    await createPod('r3', { schedulingGates: [{ name: 'example.com/wait' }] });
    const gated = await send('POST', `${pods}/r3/binding`, binding('r3', 'node-1'));
    assert.equal(gated.status, 409, gated.body);
    assert.equal(gated.json().message, 'Operation cannot be fulfilled on pods/binding "r3": pod r3 has non-empty .spec.schedulingGates');

    const misnamed = await send('POST', `${pods}/r2/binding`, binding('other', 'node-1'));
    assert.equal(misnamed.status, 400, misnamed.body);
    assert.equal(misnamed.json().message, 'name in URL does not match name in Binding object');

    const badTarget = await send('POST', `${pods}/r2/binding`, { ...binding('r2', 'node-1'), target: { kind: 'Pod', name: 'x' } });
    assert.equal(badTarget.status, 400, badTarget.body);
    assert.match(badTarget.json().message, /target\.kind: Unsupported value: "Pod"/);
    assert.equal((await send('GET', `${pods}/r2`)).json().spec.nodeName, undefined);
  });

  test('admission sees a CREATE of pods/binding with the Binding as its object', async () => {
    await cluster.kubectl(['apply', '-f', files.write('policy.yaml', `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: { name: no-forbidden-node }
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - { apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods/binding] }
  validations:
  - expression: "object.kind == 'Binding' && object.target.name != 'forbidden-node'"
    message: binding to forbidden-node refused
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: { name: no-forbidden-node }
spec:
  policyName: no-forbidden-node
  validationActions: [Deny]
`)]);
    await createPod('a1');
    // The policy's caches fill from a watch: wait for its first refusal.
    let refused: Awaited<ReturnType<typeof send>> | undefined;
    for (let i = 0; i < 100 && !refused; i++) {
      const res = await send('POST', `${pods}/a1/binding?dryRun=All`, binding('a1', 'forbidden-node'));
      if (res.status !== 201) refused = res; else await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(refused, 'the policy refused the Binding');
    assert.match(refused.json().message, /binding to forbidden-node refused/);
    const allowed = await send('POST', `${pods}/a1/binding`, binding('a1', 'node-1'));
    assert.equal(allowed.status, 201, allowed.body);
    await cluster.kubectl(['delete', 'validatingadmissionpolicybinding,validatingadmissionpolicy', 'no-forbidden-node']);
  });

  test('NamespaceLifecycle: no bind in a terminating namespace (403, as any create there)', async () => {
    await cluster.kubectl(['create', 'namespace', 'ending']);
    await createPod('t1', {}, 'ending');
    // No namespace controller runs (--controllers none): the namespace stays Terminating. Dry runs
    // until the server's namespace cache has seen it, so the pod stays unbound meanwhile.
    await cluster.kubectl(['delete', 'namespace', 'ending', '--wait=false']);
    let res: Awaited<ReturnType<typeof send>> | undefined;
    for (let i = 0; i < 100; i++) {
      res = await send('POST', '/api/v1/namespaces/ending/pods/t1/binding?dryRun=All', binding('t1', 'node-1'));
      if (res.status !== 201) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(res!.status, 403, res!.body);
    assert.equal(res!.json().message, 'pods "t1" is forbidden: unable to create new content in namespace ending because it is being terminated');
  });
});
