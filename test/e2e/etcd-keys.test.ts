/**
 * `k8ts server --etcd-servers` stores objects under kube-apiserver's keys, so what the
 * kubernetes.io pages type finds them: `ETCDCTL_API=3 etcdctl get /registry/pods/default/nginx`,
 * `etcdctl get /registry/secrets/default/s1` ("Encrypting Confidential Data at Rest"),
 * `etcdctl get /registry --prefix --keys-only`. And an etcd a k8ts before this layout wrote
 * (objects under /registry/core/pods/..., the registry's own keys) keeps working: at start the
 * server moves every object to its upstream key, and kubectl reads each back unchanged.
 * Real etcd, real etcdctl (/usr/bin/etcdctl, Debian's etcd-client), real kubectl.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Etcd3 } from 'etcd3';
import { eventually, startCluster, type Cluster } from './harness.js';
import { startEtcd, type PrivateEtcd } from './etcd.js';
import { etcdKeyLayout } from '../../src/storage/etcd/key-layout.js';

const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-etcd-keys-'));
let etcd: PrivateEtcd;
let cluster: Cluster | undefined;

const start = () => startCluster({ dataDir, controllers: 'none', extraArgs: ['--etcd-servers', etcd.url] });

async function etcdctl(args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)('etcdctl', ['--endpoints', etcd.url, ...args], { env: { ...process.env, ETCDCTL_API: '3' } });
  return stdout;
}

const keysUnder = async (prefix: string) => (await etcdctl(['get', prefix, '--prefix', '--keys-only'])).split('\n').filter(Boolean);

const node = 'apiVersion: v1\nkind: Node\nmetadata:\n  name: worker-1\n';
const endpoints = 'apiVersion: v1\nkind: Endpoints\nmetadata:\n  name: manual\n  namespace: default\nsubsets:\n- addresses: [{ip: 10.1.2.3}]\n  ports: [{port: 80}]\n';
const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.keys.example.com}
spec:
  group: keys.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;
const widget = 'apiVersion: keys.example.com/v1\nkind: Widget\nmetadata:\n  name: w1\n  namespace: default\ncolor: blue\n';

/** What kubectl reads back of each object, to compare across the migration. */
const objects = [
  ['deployment', 'web'], ['pod', 'nginx'], ['node', 'worker-1'], ['service', 'web'], ['secret', 's1'], ['configmap', 'c1'],
  ['endpoints', 'manual'], ['customresourcedefinition', 'widgets.keys.example.com'], ['widgets.keys.example.com', 'w1'],
] as const;

async function readBack(c: Cluster): Promise<Record<string, { uid: string; body: unknown }>> {
  const out: Record<string, { uid: string; body: unknown }> = {};
  for (const [kind, name] of objects) {
    const o = JSON.parse((await c.kubectl(['get', kind, name, '-o', 'json'])).stdout) as {
      metadata: { uid: string; resourceVersion?: string; managedFields?: unknown }; spec?: unknown; data?: unknown; color?: unknown; subsets?: unknown;
    };
    out[`${kind}/${name}`] = { uid: o.metadata.uid, body: { spec: o.spec, data: o.data, color: o.color, subsets: o.subsets } };
  }
  return out;
}

before(async () => {
  etcd = await startEtcd();
  cluster = await start();
});
after(async () => {
  await cluster?.stop('SIGKILL');
  await etcd?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('etcd keys as kube-apiserver lays them out', () => {
  test('kubectl-created objects land at upstream\'s keys, readable with etcdctl', async () => {
    const c = cluster!;
    await c.kubectl(['create', 'deployment', 'web', '--image=nginx']);
    await c.kubectl(['run', 'nginx', '--image=nginx']);
    await c.kubectl(['create', '-f', '-'], { input: node });
    await c.kubectl(['create', 'service', 'clusterip', 'web', '--tcp=80:80']);
    await c.kubectl(['create', 'secret', 'generic', 's1', '--from-literal=key1=supersecret']);
    await c.kubectl(['create', 'configmap', 'c1', '--from-literal=a=b']);
    await c.kubectl(['create', '-f', '-'], { input: endpoints });
    await c.kubectl(['create', '-f', '-'], { input: crd });
    await eventually(async () => (await c.kubectl(['create', '-f', '-'], { input: widget, allowFail: true })).code === 0, 60_000, 'the CRD served');

    const deployment = await etcdctl(['get', '/registry/deployments/default/web']);
    assert.match(deployment, /^\/registry\/deployments\/default\/web\n/);
    assert.match(deployment, /"kind":"Deployment"/);
    assert.match(await etcdctl(['get', '/registry/pods/default/nginx', '--print-value-only']), /"image":"nginx"/);
    assert.match(await etcdctl(['get', '/registry/minions/worker-1', '--keys-only']), /^\/registry\/minions\/worker-1$/m);
    assert.match(await etcdctl(['get', '/registry/services/specs/default/web', '--print-value-only']), /"kind":"Service"/);
    assert.match(await etcdctl(['get', '/registry/services/endpoints/default/manual', '--print-value-only']), /10\.1\.2\.3/);
    // The "Encrypting Confidential Data at Rest" page's check: without encryption the secret's data is there to read.
    assert.match(await etcdctl(['get', '/registry/secrets/default/s1', '--print-value-only']), /c3VwZXJzZWNyZXQ=/);
    assert.match(await etcdctl(['get', '/registry/apiextensions.k8s.io/customresourcedefinitions/widgets.keys.example.com', '--keys-only']), /widgets/);
    assert.match(await etcdctl(['get', '/registry/keys.example.com/widgets/default/w1', '--print-value-only']), /"color":"blue"/);

    const all = await keysUnder('/registry');
    for (const key of ['/registry/configmaps/default/c1', '/registry/namespaces/default', '/registry/serviceaccounts/default/default',
      '/registry/clusterroles/cluster-admin', '/registry/priorityclasses/system-node-critical', '/registry/flowschemas/exempt']) {
      assert.ok(all.includes(key), `${key} in etcdctl get /registry --prefix --keys-only`);
    }
    assert.deepEqual(all.filter((k) => /^\/registry\/(core|apps|rbac\.authorization\.k8s\.io)\//.test(k)), [], 'no registry-internal paths in etcd');
    // The server reads what it wrote through the same keys (a get and a list from its watch cache).
    assert.equal((await c.kubectl(['get', 'svc', 'web', '-o', 'jsonpath={.spec.ports[0].port}'])).stdout, '80');
    assert.match((await c.kubectl(['get', 'nodes', '-o', 'name'])).stdout, /node\/worker-1/);
  });

  test('an etcd with k8ts\'s old layout (/registry/core/pods/...) is moved at start; kubectl reads every object back', async () => {
    const beforeMove = await readBack(cluster!);
    assert.equal(await cluster!.stop(), 0);
    cluster = undefined;
    // Rewrite etcd as a k8ts before this layout left it: every object under the registry's own key.
    const layout = etcdKeyLayout();
    const raw = new Etcd3({ hosts: etcd.url });
    let rewritten = 0;
    try {
      for (const [key, value] of Object.entries(await raw.getAll().prefix('/registry/').buffers())) {
        const old = layout.fromEtcd(key);
        if (old === key) continue;
        await raw.put(old).value(value);
        await raw.delete().key(key);
        rewritten++;
      }
    } finally {
      raw.close();
    }
    assert.ok(rewritten > 50, `rewrote ${rewritten} keys`);
    assert.ok((await keysUnder('/registry/core/pods/')).includes('/registry/core/pods/default/nginx'));

    cluster = await start();
    assert.match(cluster.serverLog(), new RegExp(`moving ${rewritten} objects from k8ts's old keys to upstream's`));
    assert.match(cluster.serverLog(), new RegExp(`moved ${rewritten} objects to upstream's keys`));
    assert.deepEqual(await readBack(cluster), beforeMove);
    assert.deepEqual((await keysUnder('/registry')).filter((k) => /^\/registry\/(core|apps)\//.test(k)), []);
    assert.match(await etcdctl(['get', '/registry/pods/default/nginx', '--keys-only']), /nginx/);
    // Writes after the move land at upstream's keys, and a restart has nothing more to move.
    await cluster.kubectl(['label', 'pod', 'nginx', 'moved=yes']);
    assert.match(await etcdctl(['get', '/registry/pods/default/nginx', '--print-value-only']), /"moved":"yes"/);
    assert.equal(await cluster.stop(), 0);
    cluster = await start();
    assert.doesNotMatch(cluster.serverLog(), /etcd key layout/);
    assert.equal((await cluster.kubectl(['get', 'pod', 'nginx', '-o', 'jsonpath={.metadata.labels.moved}'])).stdout, 'yes');
  });
});
