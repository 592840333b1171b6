/**
 * Writes start from the watch cache's copy (upstream's Cacher.GuaranteedUpdate hands storage
 * the cached object as cachedExistingObject), and a renewal that changes only fields its
 * manager already owns keeps managedFields as stored with a new time (issue #20: the cost of
 * 500 Lease renewals a second at 5,000 nodes). Against a real server on SQLite and on etcd:
 *  - a PUT and a PATCH of an object the cache holds read no storage;
 *  - a stale resourceVersion is still 409 with upstream's words, and concurrent patches (each
 *    may start from a copy another one already made stale) lose no write;
 *  - managedFields: a renewal moves the writer's time only; another manager taking a field over
 *    still splits ownership as upstream does.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';
import { apiRequest, apiServerOnly, noIdentityLease, storageCounts } from './helpers.js';
import { startEtcd, type PrivateEtcd } from './etcd.js';

const leases = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const microTime = (d: Date) => d.toISOString().replace(/Z$/, '000Z');

for (const storage of ['sqlite', 'etcd'] as const) describe(`updates from the watch cache (${storage})`, () => {
  let cluster: Cluster;
  let etcd: PrivateEtcd | undefined;

  before(async () => {
    if (storage === 'etcd') etcd = await startEtcd();
    cluster = await startCluster({ extraArgs: [...apiServerOnly.extraArgs, ...noIdentityLease, ...(etcd ? ['--etcd-servers', etcd.url] : [])] });
  });

  after(async () => {
    await cluster?.stop();
    await cluster?.cleanup();
    await etcd?.stop();
  });

  async function send(method: string, path: string, body: object, contentType?: string) {
    return apiRequest(cluster, path, { method, body: JSON.stringify(body), contentType });
  }

  async function lease(name: string, manager = 'kubelet'): Promise<any> {
    const res = await send('POST', `${leases}?fieldManager=${manager}`, {
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name },
      spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: microTime(new Date()) },
    });
    assert.equal(res.status, 201, res.body);
    // A list without resourceVersion is a consistent read: once it answers, the cache holds the create.
    assert.equal((await apiRequest(cluster, leases)).status, 200);
    return res.json();
  }

  async function storageGets(run: () => Promise<void>): Promise<number> {
    const before = await storageCounts(cluster);
    await run();
    const after = await storageCounts(cluster);
    return (after.get ?? 0) - (before.get ?? 0);
  }

  test('a PUT and a PATCH of a cached object read no storage; a stale resourceVersion is 409', async () => {
    const created = await lease('node-a');
    let renewed: any;
    const gets = await storageGets(async () => {
      const next = structuredClone(created);
      next.spec.renewTime = microTime(new Date(Date.now() + 1000));
      const put = await send('PUT', `${leases}/node-a?fieldManager=kubelet`, next);
      assert.equal(put.status, 200, put.body);
      renewed = put.json();
      assert.equal(renewed.spec.renewTime, next.spec.renewTime);
      assert.ok(Number(renewed.metadata.resourceVersion) > Number(created.metadata.resourceVersion));
      await apiRequest(cluster, leases);
      const patch = await send('PATCH', `${leases}/node-a`, { spec: { leaseDurationSeconds: 41 } }, 'application/merge-patch+json');
      assert.equal(patch.status, 200, patch.body);
      assert.equal(patch.json().spec.leaseDurationSeconds, 41);
    });
    assert.equal(gets, 0, 'storage gets during a PUT and a PATCH of a cached object');

    const stale = await send('PUT', `${leases}/node-a`, created);
    assert.equal(stale.status, 409, stale.body);
    assert.equal(stale.json().message, 'Operation cannot be fulfilled on leases.coordination.k8s.io "node-a": the object has been modified; please apply your changes to the latest version and try again');
  });

  test('concurrent patches, each possibly from a stale cached copy, lose no write', async () => {
    await lease('node-b');
    const n = 24;
    const answers = await Promise.all(Array.from({ length: n }, (_, i) =>
      send('PATCH', `${leases}/node-b`, { metadata: { annotations: { [`a${i}`]: String(i) } } }, 'application/merge-patch+json')));
    for (const a of answers) assert.equal(a.status, 200, a.body);
    const got = (await apiRequest(cluster, `${leases}/node-b`)).json();
    for (let i = 0; i < n; i++) assert.equal(got.metadata.annotations?.[`a${i}`], String(i), `annotation a${i} of ${JSON.stringify(got.metadata.annotations)}`);
  });

  test('a renewal moves the writer\'s managedFields time only; another manager still takes fields over', async () => {
    const created = await lease('node-c');
    assert.deepEqual(created.metadata.managedFields.map((e: any) => [e.manager, e.operation]), [['kubelet', 'Update']]);
    const fields = created.metadata.managedFields[0].fieldsV1;
    await sleep(1100); // managedFields times have second precision
    const next = structuredClone(created);
    next.spec.renewTime = microTime(new Date());
    const renewed = (await send('PUT', `${leases}/node-c?fieldManager=kubelet`, next)).json();
    assert.equal(renewed.metadata.managedFields.length, 1);
    assert.deepEqual(renewed.metadata.managedFields[0].fieldsV1, fields);
    assert.ok(renewed.metadata.managedFields[0].time > created.metadata.managedFields[0].time, 'the renewal renewed the time');

    // The same object sent back unchanged is a no-op: same resourceVersion, same time.
    const same = (await send('PUT', `${leases}/node-c?fieldManager=kubelet`, renewed)).json();
    assert.equal(same.metadata.resourceVersion, renewed.metadata.resourceVersion);
    assert.deepEqual(same.metadata.managedFields, renewed.metadata.managedFields);

    // Another manager changing a field the kubelet owns takes it: two entries, the field moved.
    const other = structuredClone(same);
    other.spec.holderIdentity = 'someone-else';
    const taken = (await send('PUT', `${leases}/node-c?fieldManager=intruder`, other)).json();
    const byManager = Object.fromEntries(taken.metadata.managedFields.map((e: any) => [e.manager, e.fieldsV1]));
    assert.deepEqual(Object.keys(byManager).sort(), ['intruder', 'kubelet']);
    assert.deepEqual(byManager.intruder, { 'f:spec': { 'f:holderIdentity': {} } });
    assert.equal(byManager.kubelet['f:spec']['f:holderIdentity'], undefined, 'the kubelet lost holderIdentity');
    assert.ok(byManager.kubelet['f:spec']['f:renewTime'], 'the kubelet kept renewTime');
  });
});
