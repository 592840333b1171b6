/**
 * apiregistration.k8s.io/v1 APIService and the aggregation layer, against a
 * real server and the real kubectl: the local APIServices kube-apiserver
 * registers for its own groups, and upstream's validation.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, type Cluster } from './harness.js';
import { apiServerOnly, cells } from './helpers.js';

let cluster: Cluster;

before(async () => { cluster = await startCluster(apiServerOnly); });
after(async () => { await cluster?.cleanup(); });

describe('APIService', () => {
  test('kubectl get apiservices lists every built-in group version as Local and Available', async () => {
    const out = (await cluster.kubectl(['get', 'apiservices'])).stdout.trim().split('\n');
    assert.deepEqual(cells(out[0]), ['NAME', 'SERVICE', 'AVAILABLE', 'AGE']);
    const rows = new Map(out.slice(1).map((l) => { const c = cells(l); return [c[0], c.slice(1, 3)]; }));
    for (const name of ['v1.', 'v1.apps', 'v1.batch', 'v2.autoscaling', 'v1.autoscaling', 'v1.apiregistration.k8s.io', 'v1.rbac.authorization.k8s.io']) {
      assert.deepEqual(rows.get(name), ['Local', 'True'], name);
    }
    const apps = JSON.parse((await cluster.kubectl(['get', 'apiservice', 'v1.apps', '-o', 'json'])).stdout);
    assert.deepEqual(apps.spec, { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
    assert.equal(apps.metadata.labels['kube-aggregator.kubernetes.io/automanaged'], 'onstart');
    const cond = apps.status.conditions[0];
    assert.deepEqual([cond.type, cond.status, cond.reason, cond.message], ['Available', 'True', 'Local', 'Local APIServices are always available']);
  });

  test('a CRD group gets a local APIService while it is served', async () => {
    await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify({
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.aggr.example.com' },
      spec: { group: 'aggr.example.com', scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    }) });
    await cluster.kubectl(['wait', '--for=condition=Established', 'crd/gadgets.aggr.example.com', '--timeout=60s']);
    const svc = JSON.parse((await cluster.kubectl(['get', 'apiservice', 'v1.aggr.example.com', '-o', 'json'])).stdout);
    assert.deepEqual(svc.spec, { group: 'aggr.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
    await cluster.kubectl(['delete', 'crd', 'gadgets.aggr.example.com']);
    await eventually(async () => /NotFound/.test((await cluster.kubectl(['get', 'apiservice', 'v1.aggr.example.com'], { allowFail: true })).stderr), 10_000, 'APIService removed');
  });

  test('upstream validation: the name is version.group, priorities in range, no caBundle without a service', async () => {
    const r = await cluster.kubectl(['create', '-f', '-'], { allowFail: true, input: JSON.stringify({
      apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'wrong' },
      spec: { group: 'wardle.example.com', version: 'v1alpha1', groupPriorityMinimum: 0, versionPriority: 15, caBundle: Buffer.from('x').toString('base64') },
    }) });
    assert.notEqual(r.code, 0);
    assert.equal(r.stderr.trim(), 'The APIService "wrong" is invalid: \n'
      + '* metadata.name: Invalid value: "wrong": must be `spec.version+"."+spec.group`: "v1alpha1.wardle.example.com"\n'
      + '* spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000\n'
      + '* spec.caBundle: Invalid value: "1 bytes": local APIServices may not have a caBundle');
  });
});
