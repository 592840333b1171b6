/**
 * Custom resources through @kubernetes/client-node, unmodified: the
 * CustomObjectsApi creates, lists (with a label selector), merge- and
 * JSON-patches them, and a Watch sees the adds, updates and deletes.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CustomObjectsApi, KubeConfig, PatchStrategy, Watch, setHeaderOptions } from './client-node-package.js';
import { parse } from 'yaml';
import { startCluster, eventually, Cluster } from './harness.js';
import { apiServerOnly } from './helpers.js';
import { cronTab, cronTabCRD, crdName } from './crd-fixture.js';

let cluster: Cluster;
let api: CustomObjectsApi;
let kc: KubeConfig;
const group = 'stable.example.com';
const ref = { group, version: 'v1', namespace: 'default', plural: 'crontabs' };

before(async () => {
  cluster = await startCluster(apiServerOnly);
  await cluster.kubectl(['apply', '-f', '-'], { input: cronTabCRD });
  await cluster.kubectl(['wait', '--for=condition=Established', `crd/${crdName}`, '--timeout=60s']);
  kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfig);
  api = kc.makeApiClient(CustomObjectsApi);
});
after(async () => { await cluster?.cleanup(); });

describe('client-node CustomObjectsApi', () => {
  test('create, list, patch and watch custom resources', async () => {
    const events: string[] = [];
    const watch = new Watch(kc);
    const req = await watch.watch(`/apis/${group}/v1/namespaces/default/crontabs`, {},
      (type, obj) => { events.push(`${type} ${obj.metadata.name} ${obj.spec?.replicas}`); }, () => {});
    try {
      await api.createNamespacedCustomObject({ ...ref, body: parse(cronTab('a')) });
      await api.createNamespacedCustomObject({ ...ref, body: { ...parse(cronTab('b')), metadata: { name: 'b', labels: { app: 'other' } } } });
      const list: any = await api.listNamespacedCustomObject({ ...ref, labelSelector: 'app=cron' });
      assert.equal(list.kind, 'CronTabList');
      assert.deepEqual(list.items.map((i: any) => i.metadata.name), ['a']);
      assert.equal(list.items[0].spec.image, 'nginx');

      const merged: any = await api.patchNamespacedCustomObject({ ...ref, name: 'a', body: { spec: { replicas: 3 } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
      assert.equal(merged.spec.replicas, 3);
      const patched: any = await api.patchNamespacedCustomObject({ ...ref, name: 'a', body: [{ op: 'replace', path: '/spec/replicas', value: 4 }] },
        setHeaderOptions('Content-Type', PatchStrategy.JsonPatch));
      assert.equal(patched.spec.replicas, 4);
      await assert.rejects(api.patchNamespacedCustomObject({ ...ref, name: 'a', body: { spec: { replicas: 30 } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch)), (e: any) => e.code === 422 && /should be less than or equal to 10/.test(e.body));

      await api.deleteNamespacedCustomObject({ ...ref, name: 'b' });
      await eventually(async () => events.includes('DELETED b 2'), 10_000, 'the delete event');
      assert.deepEqual(events, ['ADDED a 2', 'ADDED b 2', 'MODIFIED a 3', 'MODIFIED a 4', 'DELETED b 2']);
    } finally {
      req.abort();
    }
  });
});
