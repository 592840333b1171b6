/**
 * The API server's watch cache (upstream's cacher), against a real server on SQLite and on a
 * real etcd: a watch from a resourceVersion whose events the ring has dropped is 410 Expired
 * with upstream's words; a list without resourceVersion right after a write sees the write
 * (a consistent read from the cache, also when the write was to another resource); lists with
 * resourceVersion=0, selectors and watches read no storage (counted at the Backend seam, as
 * create-storage-access.test.ts counts them); a first page from the cache continues from
 * storage at the cache's revision; selector transitions reach a watcher as ADDED/DELETED; a
 * node's pods (the spec.nodeName field selector of every kubelet) come from the cache's node
 * index and follow creates, bindings and deletes.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';
import { apiRequest, apiServerOnly, apiStream, noIdentityLease, storageCounts } from './helpers.js';
import { startEtcd, type PrivateEtcd } from './etcd.js';

const ringSize = 10;
const cms = '/api/v1/namespaces/default/configmaps';

type Counts = Record<string, number>;

/** Storage reads (get, list, count) made while `run` ran. */
async function storageReads(cluster: Cluster, run: () => Promise<unknown>): Promise<Counts> {
  const before = await storageCounts(cluster);
  await run();
  const after = await storageCounts(cluster);
  return Object.fromEntries(['get', 'list', 'count'].map((op) => [op, (after[op] ?? 0) - (before[op] ?? 0)]));
}

for (const storage of ['sqlite', 'etcd'] as const) describe(`the watch cache (${storage})`, () => {
  let cluster: Cluster;
  let etcd: PrivateEtcd | undefined;

  before(async () => {
    if (storage === 'etcd') etcd = await startEtcd();
    const extra = [...apiServerOnly.extraArgs, ...noIdentityLease, '--default-watch-cache-size', String(ringSize)];
    cluster = await startCluster({ extraArgs: etcd ? [...extra, '--etcd-servers', etcd.url] : extra });
  });

  after(async () => {
    await cluster?.stop();
    await cluster?.cleanup();
    await etcd?.stop();
  });

  async function create(path: string, body: object): Promise<any> {
    const res = await apiRequest(cluster, path, { method: 'POST', body: JSON.stringify(body) });
    assert.equal(res.status, 201, res.body);
    return res.json();
  }
  const configMap = (name: string, labels?: Record<string, string>) => create(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels } });

  test('a watch from a resourceVersion the ring has dropped is 410 Expired; one the ring holds is replayed', async () => {
    const first = await configMap('ring-0');
    const made = [];
    for (let i = 1; i <= ringSize + 5; i++) made.push(await configMap(`ring-${i}`));
    const from = Number(first.metadata.resourceVersion);
    const expired = await apiStream(cluster, `${cms}?watch=1&resourceVersion=${from}`);
    assert.equal(expired.status, 200);
    await expired.ended;
    assert.equal(expired.events.length, 1, JSON.stringify(expired.events));
    const status = expired.events[0];
    assert.equal(status.type, 'ERROR');
    assert.equal(status.object.code, 410);
    assert.equal(status.object.reason, 'Expired');
    const m = /^too old resource version: (\d+) \((\d+)\)$/.exec(status.object.message);
    assert.ok(m, status.object.message);
    assert.equal(Number(m[1]), from);
    assert.ok(Number(m[2]) > from);

    // The last few creates are still in the ring: a watch from the third-last replays the last two.
    const resumeAt = made[made.length - 3].metadata.resourceVersion;
    const replay = await apiStream(cluster, `${cms}?watch=1&resourceVersion=${resumeAt}`);
    try {
      await replay.waitFor((e) => e.object?.metadata?.name === `ring-${ringSize + 5}`, 'the replay of the last create');
      assert.deepEqual(replay.events.map((e) => [e.type, e.object.metadata.name]), [['ADDED', `ring-${ringSize + 4}`], ['ADDED', `ring-${ringSize + 5}`]]);
    } finally {
      replay.close();
    }
  });

  test('objects whose events left the ring (their text no longer kept) are listed, watched and updated as storage has them', async () => {
    const old = await configMap('aged', { aged: 'yes' });
    for (let i = 0; i < ringSize + 2; i++) await configMap(`ager-${i}`);
    const stored = await apiRequest(cluster, `${cms}/aged`);
    for (const q of ['resourceVersion=0&labelSelector=aged%3Dyes', 'labelSelector=aged%3Dyes', 'fieldSelector=metadata.name%3Daged']) {
      const list = await apiRequest(cluster, `${cms}?${q}`);
      assert.equal(list.status, 200, list.body);
      assert.deepEqual(list.json().items, [stored.json()], q);
      assert.ok(list.body.includes(stored.body), `${q}: the item's text is the object's JSON`);
    }
    const w = await apiStream(cluster, `${cms}?watch=1&resourceVersion=0&labelSelector=aged%3Dyes`);
    try {
      await w.waitFor((e) => e.type === 'ADDED', 'the initial ADDED');
      assert.deepEqual(w.events[0], { type: 'ADDED', object: stored.json() });
    } finally {
      w.close();
    }
    const res = await apiRequest(cluster, `${cms}/aged`, { method: 'PUT', body: JSON.stringify({ ...old, data: { k: 'v' } }) });
    assert.equal(res.status, 200, res.body);
    assert.deepEqual(res.json().data, { k: 'v' });
    assert.deepEqual(res.json().metadata.managedFields.length, old.metadata.managedFields.length);
  });

  test('a list without resourceVersion right after a write sees it (consistent read from the cache)', async () => {
    for (let i = 0; i < 20; i++) {
      const cm = await configMap(`fresh-${i}`);
      const list = (await apiRequest(cluster, `${cms}?labelSelector=`)).json();
      assert.ok(list.items.some((x: any) => x.metadata.name === `fresh-${i}`), `fresh-${i} listed`);
      assert.ok(Number(list.metadata.resourceVersion) >= Number(cm.metadata.resourceVersion));
    }
    // After a write to another resource the list's resourceVersion still covers it.
    const secret = await create('/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'other' } });
    const list = (await apiRequest(cluster, cms)).json();
    assert.ok(Number(list.metadata.resourceVersion) >= Number(secret.metadata.resourceVersion), `${list.metadata.resourceVersion} >= ${secret.metadata.resourceVersion}`);
  });

  test('lists (resourceVersion 0, none, selectors) and watches read no storage', async () => {
    await configMap('sel-a', { app: 'a' });
    await configMap('sel-b', { app: 'b' });
    const reads = await storageReads(cluster, async () => {
      const zero = (await apiRequest(cluster, `${cms}?resourceVersion=0`)).json();
      assert.ok(zero.items.length >= 2);
      const selected = (await apiRequest(cluster, `${cms}?labelSelector=app%3Da`)).json();
      assert.deepEqual(selected.items.map((x: any) => x.metadata.name), ['sel-a']);
      const byField = (await apiRequest(cluster, `/api/v1/configmaps?fieldSelector=metadata.name%3Dsel-b`)).json();
      assert.deepEqual(byField.items.map((x: any) => x.metadata.name), ['sel-b']);
      const w = await apiStream(cluster, `${cms}?watch=1&resourceVersion=0&labelSelector=app%3Db&timeoutSeconds=1`);
      await w.ended;
      assert.deepEqual(w.events.map((e) => [e.type, e.object.metadata.name]), [['ADDED', 'sel-b']]);
    });
    assert.deepEqual(reads, { get: 0, list: 0, count: 0 });
  });

  test('a first page comes from the cache, the next ones from storage at its revision', async () => {
    for (const n of ['page-1', 'page-2', 'page-3']) await configMap(n, { page: 'yes' });
    const all = (await apiRequest(cluster, `${cms}?labelSelector=page%3Dyes`)).json().items.map((x: any) => x.metadata.name);
    const firstReads = await storageReads(cluster, async () => {
      const first = (await apiRequest(cluster, `${cms}?labelSelector=page%3Dyes&limit=2`)).json();
      assert.deepEqual(first.items.map((x: any) => x.metadata.name), all.slice(0, 2));
      assert.ok(first.metadata.continue);
      assert.equal(first.metadata.remainingItemCount, undefined, 'a filtered list does not know how many are left');
      const next = (await apiRequest(cluster, `${cms}?labelSelector=page%3Dyes&limit=2&continue=${first.metadata.continue}`)).json();
      assert.deepEqual(next.items.map((x: any) => x.metadata.name), all.slice(2));
      assert.equal(next.metadata.resourceVersion, first.metadata.resourceVersion);
    });
    assert.equal(firstReads.list > 0, true, 'the continuation read storage');
    const unfiltered = (await apiRequest(cluster, `${cms}?limit=1`)).json();
    const total = (await apiRequest(cluster, cms)).json().items.length;
    assert.equal(unfiltered.metadata.remainingItemCount, total - 1);
  });

  test('an object that starts or stops matching a watch\'s selector is ADDED or DELETED for it', async () => {
    await configMap('moving');
    const w = await apiStream(cluster, `${cms}?watch=1&labelSelector=tier%3Dfront`);
    try {
      const patch = (tier: string) => apiRequest(cluster, `${cms}/moving`, {
        method: 'PATCH', contentType: 'application/merge-patch+json', body: JSON.stringify({ metadata: { labels: { tier } } }),
      });
      assert.equal((await patch('front')).status, 200);
      await w.waitFor((e) => e.type === 'ADDED', 'ADDED on match');
      assert.equal((await patch('back')).status, 200);
      await w.waitFor((e) => e.type === 'DELETED', 'DELETED on mismatch');
      assert.equal((await patch('front')).status, 200);
      await w.waitFor((e) => e.type === 'ADDED', 'ADDED again', 2);
      assert.deepEqual(w.events.map((e) => [e.type, e.object.metadata.labels?.tier]), [['ADDED', 'front'], ['DELETED', 'back'], ['ADDED', 'front']]);
    } finally {
      w.close();
    }
  });
  test('a node\'s pods (spec.nodeName) are listed from the node index, follow bindings and deletes, and read no storage', async () => {
    const pods = '/api/v1/namespaces/default/pods';
    const pod = (name: string, nodeName?: string) => create(pods, {
      apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
    });
    const onNode = async (node: string, path = '/api/v1/pods', extra = '') =>
      (await apiRequest(cluster, `${path}?fieldSelector=spec.nodeName%3D${node}${extra}`)).json().items.map((x: any) => x.metadata.name);
    // The first node list builds the index from the cached pods; later ones read it as events move pods.
    await pod('idx-b', 'idx-n1');
    assert.deepEqual(await onNode('idx-n1'), ['idx-b']);
    await pod('idx-a', 'idx-n1');
    await pod('idx-c');
    await pod('idx-d', 'idx-n2');
    const reads = await storageReads(cluster, async () => {
      assert.deepEqual(await onNode('idx-n1'), ['idx-a', 'idx-b'], 'in key order');
      assert.deepEqual(await onNode('idx-n1', pods, '&resourceVersion=0'), ['idx-a', 'idx-b'], 'one namespace, from the cache as it is');
      assert.deepEqual(await onNode('idx-n2', '/api/v1/namespaces/other/pods'), [], 'another namespace');
      assert.deepEqual(await onNode('idx-n1', pods, '&limit=1'), ['idx-a'], 'a first page');
      assert.deepEqual(await onNode('idx-n1', pods, `,metadata.name%3Didx-b`), ['idx-b'], 'the rest of the selection still applies');
      const bind = await apiRequest(cluster, `${pods}/idx-c/binding`, {
        method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'Binding', metadata: { name: 'idx-c' }, target: { kind: 'Node', name: 'idx-n2' } }),
      });
      assert.equal(bind.status, 201, bind.body);
      assert.deepEqual(await onNode('idx-n2'), ['idx-c', 'idx-d'], 'a bound pod is on its node');
      assert.ok(!(await onNode('')).includes('idx-c'), 'and no longer unscheduled');
      const gone = await apiRequest(cluster, `${pods}/idx-a?gracePeriodSeconds=0`, { method: 'DELETE' });
      assert.equal(gone.status, 200, gone.body);
      assert.deepEqual(await onNode('idx-n1'), ['idx-b'], 'a deleted pod leaves its node');
      const w = await apiStream(cluster, `${pods}?watch=1&resourceVersion=0&fieldSelector=spec.nodeName%3Didx-n2&timeoutSeconds=1`);
      await w.ended;
      assert.deepEqual(w.events.map((e) => [e.type, e.object.metadata.name]), [['ADDED', 'idx-c'], ['ADDED', 'idx-d']], 'a watch\'s initial events too');
    });
    assert.equal(reads.list + reads.count, 0, JSON.stringify(reads));
  });
});
