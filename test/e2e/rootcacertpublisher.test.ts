/**
 * The root CA certificate publisher: every namespace gets a kube-root-ca.crt
 * ConfigMap holding the cluster CA that kubeconfigs trust, and it comes back
 * when deleted or changed.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, type Cluster } from './harness.js';
import { adminCredentials } from './helpers.js';

let cluster: Cluster;
let ca: string;
before(async () => {
  cluster = await startCluster({ controllers: 'root-ca-cert-publisher' });
  ca = adminCredentials(cluster.kubeconfig).ca;
});
after(async () => { await cluster?.cleanup(); });

const caIn = async (ns: string) => {
  const r = await cluster.kubectl(['get', 'configmap', 'kube-root-ca.crt', '-n', ns, '-o', 'jsonpath={.data.ca\\.crt}'], { allowFail: true });
  return r.code === 0 ? r.stdout : undefined;
};

describe('kube-root-ca.crt', () => {
  test('is in every namespace with the cluster CA', async () => {
    for (const ns of ['default', 'kube-system', 'kube-public']) {
      assert.equal(await eventually(() => caIn(ns), 30_000, `kube-root-ca.crt in ${ns}`), ca);
    }
    assert.match(ca, /^-----BEGIN CERTIFICATE-----/);
    const annotation = (await cluster.kubectl(['get', 'configmap', 'kube-root-ca.crt', '-o', 'jsonpath={.metadata.annotations.kubernetes\\.io/description}'])).stdout;
    assert.match(annotation, /^Contains a CA bundle that can be used to verify the kube-apiserver/);
  });

  test('is published into a new namespace', async () => {
    await cluster.kubectl(['create', 'namespace', 'fresh']);
    assert.equal(await eventually(() => caIn('fresh'), 30_000, 'kube-root-ca.crt in fresh'), ca);
  });

  test('comes back when deleted, and is put back when changed', async () => {
    await eventually(() => caIn('default'), 30_000, 'published');
    await cluster.kubectl(['delete', 'configmap', 'kube-root-ca.crt']);
    assert.equal(await eventually(() => caIn('default'), 30_000, 'recreated'), ca);
    await cluster.kubectl(['patch', 'configmap', 'kube-root-ca.crt', '--type=merge', '-p', '{"data":{"ca.crt":"tampered"}}']);
    assert.equal(await eventually(async () => { const v = await caIn('default'); return v === ca ? v : undefined; }, 30_000, 'restored'), ca);
  });
});
