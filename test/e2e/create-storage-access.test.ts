/**
 * What one create costs the storage (shared/design.md: "A create costs one
 * storage write and no storage read; a test counts them"). Admission plugins
 * and authorizers read watch-fed caches, so `kubectl create` of a Pod, a
 * Deployment, a ConfigMap or a Service with the default admission chain
 * makes exactly one storage write (the object) and no storage read.
 *
 * Counted on SQLite and on etcd at the Backend seam: the server's /metrics counts every storage
 * operation (k8ts_storage_request_duration_seconds_count by operation),
 * read before and after each kubectl run. kubectl's own discovery and
 * OpenAPI requests are part of the run and read nothing either.
 *
 * The Service: upstream 1.32 also writes its allocators' state (the cluster
 * IP and node port bitmaps in /registry/ranges), two more writes, so that
 * several API servers share one allocation. k8ts allocates from the
 * Services it caches (registry/service-allocation.ts), so its count is one.
 *
 * The same budget for the two writes a large cluster sends most (issue #20):
 * a Lease renewal and a pod status write, each one write and no read.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';
import { manifestDir, noIdentityLease, storageCounts } from './helpers.js';
import { startEtcd, type PrivateEtcd } from './etcd.js';

const reads = ['get', 'list', 'count'] as const;
const writes = ['create', 'update', 'delete'] as const;


/** Storage operations made while `run` ran, as { reads, writes, by operation }. */
async function storageAccess(cluster: Cluster, run: () => Promise<unknown>) {
  const before = await storageCounts(cluster);
  await run();
  const after = await storageCounts(cluster);
  const delta = (op: string) => (after[op] ?? 0) - (before[op] ?? 0);
  const byOp = Object.fromEntries([...reads, ...writes].map((op) => [op, delta(op)]));
  return { reads: reads.reduce((n, op) => n + delta(op), 0), writes: writes.reduce((n, op) => n + delta(op), 0), byOp };
}

/** Waits until the server makes no storage call for `quietMs` (start-up loops: service accounts, namespaces). */
async function settled(cluster: Cluster, quietMs = 1500, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = JSON.stringify(await storageCounts(cluster));
  for (;;) {
    await new Promise((r) => setTimeout(r, quietMs));
    const now = JSON.stringify(await storageCounts(cluster));
    if (now === last) return;
    if (Date.now() > deadline) assert.fail('the server kept calling storage while idle');
    last = now;
  }
}

/** The same counts on both backends: on etcd every read the request path made was a network round trip. */
for (const storage of ['sqlite', 'etcd'] as const) describe(`one create costs one storage write and no storage read (${storage})`, () => {
  let cluster: Cluster;
  let etcd: PrivateEtcd | undefined;
  const files = manifestDir();

  before(async () => {
    if (storage === 'etcd') etcd = await startEtcd();
    cluster = await startCluster({ extraArgs: [...noIdentityLease, ...(etcd ? ['--etcd-servers', etcd.url] : [])] });
    // Objects the admission plugins look at, so the counts cover their cache hits, not empty namespaces:
    // a LimitRange and a ResourceQuota (its status filled as the quota controller would), a PriorityClass, a StorageClass.
    await cluster.kubectl(['create', 'namespace', 'counted']);
    await cluster.kubectl(['apply', '-f', files.write('setup.yaml', `
apiVersion: v1
kind: LimitRange
metadata: { name: limits, namespace: counted }
spec:
  limits:
  - type: Container
    default: { cpu: 200m }
    defaultRequest: { cpu: 100m }
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: { name: counted-default }
value: 1000
globalDefault: true
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: { name: counted-sc }
provisioner: example.com/none
`)]);
    await settled(cluster);
  });

  after(async () => {
    files.close();
    await cluster?.stop();
    await cluster?.cleanup();
    await etcd?.stop();
  });

  test('a Pod: 1 write, 0 reads, and the cached LimitRange and PriorityClass were applied', async () => {
    const access = await storageAccess(cluster, () => cluster.kubectl(['run', 'p1', '-n', 'counted', '--image=registry.k8s.io/pause:3.10']));
    assert.deepEqual({ reads: access.reads, writes: access.writes }, { reads: 0, writes: 1 }, JSON.stringify(access.byOp));
    assert.equal(access.byOp.create, 1);
    const pod = JSON.parse((await cluster.kubectl(['get', 'pod', 'p1', '-n', 'counted', '-o', 'json'])).stdout);
    assert.equal(pod.spec.priority, 1000, 'Priority read the PriorityClass from its cache');
    assert.equal(pod.spec.priorityClassName, 'counted-default');
    assert.deepEqual(pod.spec.containers[0].resources, { limits: { cpu: '200m' }, requests: { cpu: '100m' } }, 'LimitRanger read the LimitRange from its cache');
    assert.equal(pod.spec.serviceAccountName, 'default');
  });

  test('a second Pod of the same shape (its managed fields remembered): 1 write, 0 reads, the same fields at its own time', async () => {
    const pod = (name: string, tier: string) => files.write(`${name}.yaml`, `
apiVersion: v1
kind: Pod
metadata: { name: ${name}, namespace: counted, labels: { tier: ${tier} } }
spec:
  containers: [{ name: c, image: registry.k8s.io/pause:3.10 }]
`);
    await cluster.kubectl(['create', '-f', pod('same-1', 'front')]);
    const access = await storageAccess(cluster, () => cluster.kubectl(['create', '-f', pod('same-2', 'back')]));
    assert.deepEqual({ reads: access.reads, writes: access.writes }, { reads: 0, writes: 1 }, JSON.stringify(access.byOp));
    const get = async (name: string) => JSON.parse((await cluster.kubectl(['get', 'pod', name, '-n', 'counted', '-o', 'json', '--show-managed-fields'])).stdout);
    const [first, second] = [await get('same-1'), await get('same-2')];
    assert.equal(second.metadata.managedFields.length, 1);
    assert.deepEqual(second.metadata.managedFields[0].fieldsV1, first.metadata.managedFields[0].fieldsV1, 'a label value differs, its key does not');
    // Tracked before admission, as upstream: LimitRanger's resources are not the creator's.
    assert.deepEqual(second.metadata.managedFields[0].fieldsV1['f:spec']['f:containers'], { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:imagePullPolicy': {}, 'f:name': {}, 'f:resources': {}, 'f:terminationMessagePath': {}, 'f:terminationMessagePolicy': {} } });
    assert.equal(second.metadata.managedFields[0].manager, 'kubectl-create');
    assert.equal(second.metadata.managedFields[0].time, second.metadata.creationTimestamp);
  });

  test('a dry-run create: no write, no read', async () => {
    const access = await storageAccess(cluster, () => cluster.kubectl(['run', 'p3', '-n', 'counted', '--image=registry.k8s.io/pause:3.10', '--dry-run=server']));
    assert.deepEqual({ reads: access.reads, writes: access.writes }, { reads: 0, writes: 0 }, JSON.stringify(access.byOp));
  });

  test('a kubelet\'s list of its node\'s pods (spec.nodeName field selector, cluster-wide): no storage read', async () => {
    const access = await storageAccess(cluster, () => cluster.kubectl(['get', 'pods', '-A', '--field-selector', 'spec.nodeName=counted-node', '-o', 'name']));
    assert.deepEqual({ reads: access.reads, writes: access.writes }, { reads: 0, writes: 0 }, JSON.stringify(access.byOp));
  });

  test('a Deployment: 1 write, 0 reads', async () => {
    const access = await storageAccess(cluster, () => cluster.kubectl(['create', 'deployment', 'd1', '-n', 'counted', '--image=registry.k8s.io/pause:3.10']));
    assert.deepEqual({ reads: access.reads, writes: access.writes }, { reads: 0, writes: 1 }, JSON.stringify(access.byOp));
  });

  test('a ConfigMap: 1 write, 0 reads', async () => {
    const access = await storageAccess(cluster, () => cluster.kubectl(['create', 'configmap', 'c1', '-n', 'counted', '--from-literal=k=v']));
    assert.deepEqual({ reads: access.reads, writes: access.writes }, { reads: 0, writes: 1 }, JSON.stringify(access.byOp));
  });

  test('a NodePort Service: 1 write, 0 reads, with a cluster IP and a node port no other Service holds', async () => {
    const access = await storageAccess(cluster, () => cluster.kubectl(['create', 'service', 'nodeport', 's1', '-n', 'counted', '--tcp=80:80']));
    assert.deepEqual({ reads: access.reads, writes: access.writes }, { reads: 0, writes: 1 }, JSON.stringify(access.byOp));
    const list = JSON.parse((await cluster.kubectl(['get', 'services', '-A', '-o', 'json'])).stdout);
    const ips = list.items.map((s: any) => s.spec.clusterIP);
    assert.equal(new Set(ips).size, ips.length, `cluster IPs are distinct: ${ips}`);
    const s1 = list.items.find((s: any) => s.metadata.name === 's1');
    assert.match(s1.spec.clusterIP, /^10\.(9[6-9]|10[0-9]|11[01])\./);
    assert.ok(s1.spec.ports[0].nodePort >= 30000 && s1.spec.ports[0].nodePort <= 32767);
  });

  test('a create in a namespace with a ResourceQuota still charges the quota, as upstream: 2 writes, 0 reads', async () => {
    await cluster.kubectl(['create', 'quota', 'q', '-n', 'counted', '--hard=configmaps=10']);
    // The resourcequota controller does not run here (--controllers none): fill status as it would.
    const used = (await cluster.kubectl(['get', 'configmaps', '-n', 'counted', '-o', 'name'])).stdout.split('\n').filter(Boolean).length;
    await cluster.kubectl(['patch', 'resourcequota', 'q', '-n', 'counted', '--subresource=status', '--type=merge',
      '-p', JSON.stringify({ status: { hard: { configmaps: '10' }, used: { configmaps: String(used) } } })]);
    await settled(cluster);
    const access = await storageAccess(cluster, () => cluster.kubectl(['create', 'configmap', 'c2', '-n', 'counted', '--from-literal=k=v']));
    assert.deepEqual({ reads: access.reads, writes: access.writes }, { reads: 0, writes: 2 }, JSON.stringify(access.byOp));
    const q = JSON.parse((await cluster.kubectl(['get', 'resourcequota', 'q', '-n', 'counted', '-o', 'json'])).stdout);
    assert.equal(q.status.used.configmaps, String(used + 1));
    // A second create starts from the charged quota, not the cache's older copy: no lost race, no re-read.
    const again = await storageAccess(cluster, () => cluster.kubectl(['create', 'configmap', 'c3', '-n', 'counted', '--from-literal=k=v']));
    assert.deepEqual({ reads: again.reads, writes: again.writes }, { reads: 0, writes: 2 }, JSON.stringify(again.byOp));
  });

  // The two writes a 5,000-node cluster sends most (issue #20): each kubelet's Lease renewal every 10 s, and its
  // status write once per pod it starts. Sent with the resourceVersion the client holds (no GET, as the kubelet
  // does): the write starts from the watch cache's copy, so each costs one storage write and no storage read.
  const replaced = async (kind: string, name: string, ns: string, change: (obj: any) => void, args: string[] = []) => {
    const obj = JSON.parse((await cluster.kubectl(['get', kind, name, '-n', ns, '-o', 'json', '--show-managed-fields'])).stdout);
    change(obj);
    const file = files.write(`${kind}-${name}.json`, JSON.stringify(obj));
    await settled(cluster);
    return storageAccess(cluster, () => cluster.kubectl(['replace', '-f', file, ...args]));
  };

  test('a Lease renewal (PUT with the held resourceVersion): 1 write, 0 reads', async () => {
    await cluster.kubectl(['apply', '-f', files.write('lease.yaml', `
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: { name: counted-node, namespace: counted }
spec: { holderIdentity: counted-node, leaseDurationSeconds: 40, renewTime: "2026-12-03T10:00:00.000000Z" }
`)]);
    const access = await replaced('lease', 'counted-node', 'counted', (l) => { l.spec.renewTime = '2026-12-03T10:00:10.000000Z'; });
    assert.deepEqual({ reads: access.reads, writes: access.writes }, { reads: 0, writes: 1 }, JSON.stringify(access.byOp));
    assert.equal(access.byOp.update, 1);
    const lease = JSON.parse((await cluster.kubectl(['get', 'lease', 'counted-node', '-n', 'counted', '-o', 'json'])).stdout);
    assert.equal(lease.spec.renewTime, '2026-12-03T10:00:10.000000Z');
  });

  test('a pod status write (PUT pods/status with the held resourceVersion): 1 write, 0 reads, the spec and its creator\'s fields kept', async () => {
    await cluster.kubectl(['run', 'st', '-n', 'counted', '--image=registry.k8s.io/pause:3.10']);
    const before = JSON.parse((await cluster.kubectl(['get', 'pod', 'st', '-n', 'counted', '-o', 'json', '--show-managed-fields'])).stdout);
    const access = await replaced('pod', 'st', 'counted', (p) => {
      p.spec.containers[0].image = 'ignored/on-a-status-write';
      p.status = { ...p.status, phase: 'Running', podIP: '10.244.0.9', podIPs: [{ ip: '10.244.0.9' }],
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-12-03T10:00:00Z' }] };
    }, ['--subresource=status']);
    assert.deepEqual({ reads: access.reads, writes: access.writes }, { reads: 0, writes: 1 }, JSON.stringify(access.byOp));
    assert.equal(access.byOp.update, 1);
    const after = JSON.parse((await cluster.kubectl(['get', 'pod', 'st', '-n', 'counted', '-o', 'json', '--show-managed-fields'])).stdout);
    assert.equal(after.status.phase, 'Running');
    assert.deepEqual(after.spec, before.spec, 'a status write does not change the spec');
    // The creator's entry is written again as stored; the status writer gets its own entry with only status fields.
    assert.deepEqual(after.metadata.managedFields[0], before.metadata.managedFields[0]);
    const status = after.metadata.managedFields.find((e: any) => e.subresource === 'status');
    assert.deepEqual(Object.keys(status.fieldsV1), ['f:status']);
    assert.ok(status.fieldsV1['f:status']['f:podIP']);
  });

  test('a namespace and a service account created just before the pod are found (a cache miss reads storage)', async () => {
    // Both writes and the pod's create come as fast as kubectl can send them; whether the watch has
    // delivered them or not, the pod is admitted (upstream's live lookup on a miss).
    await cluster.kubectl(['apply', '-f', files.write('fresh.yaml', `
apiVersion: v1
kind: Namespace
metadata: { name: fresh }
---
apiVersion: v1
kind: ServiceAccount
metadata: { name: builder, namespace: fresh }
---
apiVersion: v1
kind: Pod
metadata: { name: p, namespace: fresh }
spec:
  serviceAccountName: builder
  containers: [{ name: c, image: registry.k8s.io/pause:3.10 }]
`)]);
    const pod = JSON.parse((await cluster.kubectl(['get', 'pod', 'p', '-n', 'fresh', '-o', 'json'])).stdout);
    assert.equal(pod.spec.serviceAccountName, 'builder');
    const missing = await cluster.kubectl(['run', 'q', '-n', 'nowhere', '--image=registry.k8s.io/pause:3.10'], { allowFail: true });
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /namespaces "nowhere" not found/);
  });
});
