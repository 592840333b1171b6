/**
 * A create, PATCH, PUT or binding hands the object it wrote to the watch cache, which keeps
 * it for the write's event instead of parsing the stored value again (docs/design-notes.md).
 * Against a real server on SQLite and on etcd, after each write the object the cache serves
 * (a consistent list, answered from the cache) and the object storage holds (a GET, which
 * reads storage) are the same as the write's answer, field for field and in JSON text.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';
import { apiRequest, apiServerOnly } from './helpers.js';
import { startEtcd, type PrivateEtcd } from './etcd.js';

const pods = '/api/v1/namespaces/default/pods';

for (const storage of ['sqlite', 'etcd'] as const) describe(`written objects handed to the watch cache (${storage})`, () => {
  let cluster: Cluster;
  let etcd: PrivateEtcd | undefined;

  before(async () => {
    if (storage === 'etcd') etcd = await startEtcd();
    cluster = await startCluster({ extraArgs: etcd ? [...apiServerOnly.extraArgs, '--etcd-servers', etcd.url] : apiServerOnly.extraArgs });
  });

  after(async () => {
    await cluster?.stop();
    await cluster?.cleanup();
    await etcd?.stop();
  });

  async function send(method: string, path: string, body: object, contentType?: string) {
    return apiRequest(cluster, path, { method, body: JSON.stringify(body), contentType });
  }

  /** The pod as the cache serves it (a list without resourceVersion: consistent, from the cache) and as storage holds it (GET). */
  async function cachedAndStored(name: string): Promise<{ cached: any; stored: any }> {
    const list = await apiRequest(cluster, `${pods}?fieldSelector=metadata.name%3D${name}`);
    assert.equal(list.status, 200, list.body);
    const items = list.json().items;
    assert.equal(items.length, 1);
    const get = await apiRequest(cluster, `${pods}/${name}`);
    assert.equal(get.status, 200, get.body);
    return { cached: items[0], stored: get.json() };
  }

  async function expectSame(name: string, answer: any): Promise<void> {
    const { cached, stored } = await cachedAndStored(name);
    assert.deepEqual(cached, stored);
    assert.equal(JSON.stringify(cached), JSON.stringify(stored));
    assert.deepEqual(answer, stored);
  }

  test('create, PATCH, PUT of status and binding: cache, storage and answer agree', async () => {
    const created = await send('POST', pods, {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'handover', labels: { app: 'a' } },
      spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
    });
    assert.equal(created.status, 201, created.body);
    await expectSame('handover', created.json());

    const patched = await send('PATCH', `${pods}/handover`, { metadata: { labels: { app: 'b', tier: 'x' } } }, 'application/merge-patch+json');
    assert.equal(patched.status, 200, patched.body);
    assert.equal(patched.json().metadata.labels.app, 'b');
    await expectSame('handover', patched.json());

    const status = { ...patched.json(), status: { ...patched.json().status, phase: 'Pending', message: 'from the test' } };
    const put = await send('PUT', `${pods}/handover/status`, status);
    assert.equal(put.status, 200, put.body);
    assert.equal(put.json().status.message, 'from the test');
    await expectSame('handover', put.json());

    const bound = await send('POST', `${pods}/handover/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'handover' }, target: { kind: 'Node', name: 'node-1' } });
    assert.equal(bound.status, 201, bound.body);
    const { cached, stored } = await cachedAndStored('handover');
    assert.deepEqual(cached, stored);
    assert.equal(stored.spec.nodeName, 'node-1');
    assert.equal(stored.status.conditions.find((c: any) => c.type === 'PodScheduled')?.status, 'True');
    assert.ok(Number(stored.metadata.resourceVersion) > Number(put.json().metadata.resourceVersion));

    // A second binding is refused as upstream, and the cache still holds the first one's pod.
    const again = await send('POST', `${pods}/handover/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'handover' }, target: { kind: 'Node', name: 'node-2' } });
    assert.equal(again.status, 409, again.body);
    assert.equal((await cachedAndStored('handover')).cached.spec.nodeName, 'node-1');
  });

  test('a create that loses to an existing name leaves the cache as storage has it', async () => {
    const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'taken' }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } };
    const first = await send('POST', pods, body);
    assert.equal(first.status, 201, first.body);
    const second = await send('POST', pods, { ...body, metadata: { name: 'taken', labels: { second: 'yes' } } });
    assert.equal(second.status, 409, second.body);
    await expectSame('taken', first.json());
  });
});
