/**
 * Regressions for the defects issue #23 lists, each against a real server and
 * the real kubectl: a CronJob schedule robfig/cron accepts, the optional
 * default StorageClass, a CRD group's preferred version by kube-aware
 * priority, the storage version's defaults on read, and 406 for a Table of a
 * kind that has no table convertor.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, type Cluster } from './harness.js';
import { apiRequest } from './helpers.js';

let cluster: Cluster;

before(async () => { cluster = await startCluster({ controllers: 'persistentvolume-binder' }); });
after(async () => { await cluster?.cleanup(); });

const ok = async (c: Cluster, args: string[], input?: string) => {
  const r = await c.kubectl(args, { input, allowFail: true });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};

/** A CRD that lists v1beta1 and v1alpha1 before v1; v1 is stored and has a default v1beta1 lacks. */
const widgetsCRD = JSON.stringify({
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.versions.example.com' },
  spec: {
    group: 'versions.example.com', scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [
      { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } },
      { name: 'v1alpha1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
      {
        name: 'v1', served: true, storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string', default: 'blue' } } } } } },
      },
    ],
  },
});

describe('issue #23 defects', () => {
  test('a CronJob schedule with a day of month that never comes (59 23 31 2 *) is accepted, as robfig/cron checks ranges only', async () => {
    const out = await ok(cluster, ['create', 'cronjob', 'feb31', '--image=busybox', '--schedule=59 23 31 2 *', '-o', 'jsonpath={.spec.schedule}']);
    assert.equal(out, '59 23 31 2 *');
    // A value out of its field's range is still refused.
    const bad = await cluster.kubectl(['create', 'cronjob', 'feb32', '--image=busybox', '--schedule=59 23 32 2 *'], { allowFail: true });
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /spec\.schedule/);
  });

  test('the default StorageClass local-path says in kubectl describe where it comes from and how to go without it', async () => {
    await eventually(async () => (await cluster.kubectl(['get', 'storageclass', 'local-path'], { allowFail: true })).code === 0, 30_000, 'local-path created');
    const out = await ok(cluster, ['describe', 'storageclass', 'local-path']);
    assert.match(out, /IsDefaultClass:\s+Yes/);
    assert.match(out, /--default-storage-class=false/);
  });

  test('--default-storage-class=false: no StorageClass is created, as upstream', async () => {
    const bare = await startCluster({ controllers: 'persistentvolume-binder', extraArgs: ['--default-storage-class=false'] });
    try {
      // The controller runs (a claim gets a Pending status from it), yet no class appears.
      await ok(bare, ['create', '-f', '-'], JSON.stringify({
        apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: 'default' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } } },
      }));
      await eventually(async () => (await ok(bare, ['get', 'pvc', 'c', '-o', 'jsonpath={.status.phase}'])) === 'Pending', 30_000, 'claim Pending');
      assert.equal(await ok(bare, ['get', 'storageclass', '-o', 'name']), '');
    } finally {
      await bare.cleanup();
    }
  });

  test('a CRD group prefers v1 over v1beta1 and v1alpha1 whatever order the CRD lists them in', async () => {
    await ok(cluster, ['apply', '-f', '-'], widgetsCRD);
    await ok(cluster, ['wait', '--for=condition=Established', 'crd/widgets.versions.example.com', '--timeout=60s']);
    const group = (await apiRequest(cluster, '/apis/versions.example.com')).json();
    assert.equal(group.preferredVersion.version, 'v1');
    assert.deepEqual(group.versions.map((v: { version: string }) => v.version), ['v1', 'v1beta1', 'v1alpha1']);
    const aggregated = (await apiRequest(cluster, '/apis', { headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } })).json();
    const entry = aggregated.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'versions.example.com');
    assert.deepEqual(entry.versions.map((v: { version: string }) => v.version), ['v1', 'v1beta1', 'v1alpha1']);
    // kubectl follows the preferred version.
    await ok(cluster, ['create', '-f', '-'], JSON.stringify({ apiVersion: 'versions.example.com/v1beta1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, spec: { size: 1 } }));
    assert.equal(await ok(cluster, ['get', 'widgets', 'w1', '-o', 'jsonpath={.apiVersion}']), 'versions.example.com/v1');
  });

  test('an object written through a version without defaults reads with the storage version\'s defaults', async () => {
    // w1 was written through v1beta1 (no default for color) and is stored as v1 (default blue).
    for (const version of ['v1', 'v1beta1']) {
      const w = (await apiRequest(cluster, `/apis/versions.example.com/${version}/namespaces/default/widgets/w1`)).json();
      assert.equal(w.spec.color, 'blue', version);
    }
    const listed = (await apiRequest(cluster, '/apis/versions.example.com/v1/namespaces/default/widgets')).json();
    assert.equal(listed.items[0].spec.color, 'blue');
    // An object written through v1 with another color keeps it.
    await ok(cluster, ['create', '-f', '-'], JSON.stringify({ apiVersion: 'versions.example.com/v1', kind: 'Widget', metadata: { name: 'w2', namespace: 'default' }, spec: { size: 2, color: 'red' } }));
    assert.equal(await ok(cluster, ['get', 'widgets', 'w2', '-o', 'jsonpath={.spec.color}']), 'red');
  });

  test('a Table of a SelfSubjectAccessReview is 406, as upstream (no table convertor)', async () => {
    const body = JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { nonResourceAttributes: { path: '/', verb: 'get' } } });
    const plain = await apiRequest(cluster, '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { method: 'POST', body });
    assert.equal(plain.status, 201);
    const table = await apiRequest(cluster, '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      method: 'POST', body, headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    });
    assert.equal(table.status, 406, table.body);
    assert.deepEqual(table.json(), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      reason: 'NotAcceptable', code: 406,
    });
    // A Table range followed by JSON falls back to JSON.
    const fallback = await apiRequest(cluster, '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      method: 'POST', body, headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json' },
    });
    assert.equal(fallback.status, 201);
    assert.equal(fallback.json().kind, 'SelfSubjectAccessReview');
  });
});
