/**
 * `k8ts server --etcd-servers` on a private etcd, driven by kubectl: objects live in etcd
 * (not in the data directory's SQLite file), resourceVersions are etcd's revisions, watches
 * deliver, a restart or a SIGKILL loses nothing acknowledged, and two servers sharing the
 * etcd and the PKI serve one cluster: each sees the other's writes and watch events. A server
 * outlives an etcd outage.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { eventually, startCluster, type Cluster } from './harness.js';
import { cells, killChild, lineReader } from './helpers.js';
import { startEtcd, type PrivateEtcd } from './etcd.js';

const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-etcd-'));
let etcd: PrivateEtcd;
let cluster: Cluster;
const started: Cluster[] = [];

const start = async (dir = dataDir) => {
  const c = await startCluster({ dataDir: dir, controllers: 'none', extraArgs: ['--etcd-servers', etcd.url] });
  started.push(c);
  return c;
};

before(async () => {
  etcd = await startEtcd();
  cluster = await start();
});
after(async () => {
  for (const c of started) await c.stop('SIGKILL');
  await etcd?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const configMap = (name: string, value: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\ndata:\n  v: "${value}"\n`;

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: k8ts.local/busybox:1
`;

const json = async (c: Cluster, args: string[]) => JSON.parse((await c.kubectl([...args, '-o', 'json'])).stdout);

describe('k8ts server on etcd', () => {
  test('objects are stored in etcd under upstream keys (/registry/configmaps/...), with etcd revisions as resourceVersions', async () => {
    await cluster.kubectl(['create', '-f', '-'], { input: configMap('cfg', '1') });
    await cluster.kubectl(['create', '-f', '-'], { input: deployment });
    const cm = await json(cluster, ['get', 'configmap', 'cfg']);
    const deploy = await json(cluster, ['get', 'deployment', 'web']);
    assert.equal(deploy.spec.replicas, 2);
    assert.ok(Number(deploy.metadata.resourceVersion) > Number(cm.metadata.resourceVersion));

    const client = new Etcd3({ hosts: etcd.url });
    try {
      const stored = await client.get('/registry/configmaps/default/cfg').exec();
      assert.equal(stored.kvs.length, 1);
      assert.equal(String(stored.kvs[0].mod_revision), cm.metadata.resourceVersion);
      assert.equal(JSON.parse(stored.kvs[0].value.toString()).data.v, '1');
    } finally {
      client.close();
    }
    assert.ok(!existsSync(join(dataDir, 'state.db')), 'no SQLite database is created');

    // An update with a stale resourceVersion is a Conflict, as on SQLite.
    await cluster.kubectl(['label', 'configmap', 'cfg', 'step=1']);
    const stale = { ...cm, metadata: { ...cm.metadata, labels: { step: 'stale' } } };
    const res = await cluster.kubectl(['replace', '-f', '-'], { input: JSON.stringify(stale), allowFail: true });
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /the object has been modified; please apply your changes to the latest version and try again/);
  });

  test('kubectl get -w sees a change', async () => {
    await cluster.kubectl(['create', '-f', '-'], { input: configMap('watched', '1') });
    const watcher = cluster.spawnKubectl(['get', 'configmaps', '-w', '--output-watch-events', '--field-selector', 'metadata.name=watched']);
    try {
      const out = lineReader(watcher);
      await out.waitFor((l) => cells(l)[1] === 'watched', 'the initial row', 0, 60_000);
      await cluster.kubectl(['label', 'configmap', 'watched', 'seen=yes']);
      await out.waitFor((l) => cells(l)[0] === 'MODIFIED', 'the change', 0, 60_000);
      await cluster.kubectl(['delete', 'configmap', 'watched']);
      await out.waitFor((l) => cells(l)[0] === 'DELETED', 'the deletion', 0, 60_000);
    } finally {
      await killChild(watcher);
    }
  });

  test('a restarted server has every object, and a SIGKILL loses nothing acknowledged', async () => {
    const before = await json(cluster, ['get', 'configmap', 'cfg']);
    assert.equal(await cluster.stop(), 0);
    cluster = await start();
    assert.deepEqual((await json(cluster, ['get', 'configmap', 'cfg'])).metadata, before.metadata);

    const names = Array.from({ length: 5 }, (_, i) => `acked-${i}`);
    for (const name of names) await cluster.kubectl(['create', '-f', '-'], { input: configMap(name, name) });
    await cluster.stop('SIGKILL');
    cluster = await start();
    const listed = await json(cluster, ['get', 'configmaps']);
    const present = new Set(listed.items.map((i: any) => i.metadata.name));
    assert.deepEqual(names.filter((n) => !present.has(n)), []);
  });

  test('a server outlives an etcd outage: it answers 500 while etcd is down and serves again after', async () => {
    await etcd.kill();
    let down;
    try {
      down = await cluster.kubectl(['get', 'configmap', 'cfg'], { allowFail: true });
    } finally {
      await etcd.restart();
    }
    assert.notEqual(down.code, 0);
    // A 500 that is no Status, as kube-apiserver's ErrorToAPIStatus answers one: no reason, the error in
    // the words of Go's grpc status (the etcd client's own errors would read "etcdserver: ..." alone).
    assert.match(down.stderr, /^Error from server: rpc error: code = Unavailable desc = /);
    await eventually(async () => (await cluster.kubectl(['get', 'configmap', 'cfg'], { allowFail: true })).code === 0, 120_000, 'reads after the restart');
    await eventually(async () => (await cluster.kubectl(['create', '-f', '-'], { input: configMap('after-outage', '1'), allowFail: true })).code === 0, 120_000, 'a write after the restart');
    // The watch of a client that starts now sees live changes again.
    const watcher = cluster.spawnKubectl(['get', 'configmaps', '-w', '--output-watch-events']);
    try {
      const out = lineReader(watcher);
      await out.waitFor((l) => cells(l)[1] === 'after-outage', 'the initial rows', 0, 60_000);
      await cluster.kubectl(['label', 'configmap', 'after-outage', 'seen=yes']);
      await out.waitFor((l) => cells(l)[0] === 'MODIFIED' && cells(l)[1] === 'after-outage', 'the change', 0, 60_000);
    } finally {
      await killChild(watcher);
    }
  });

  test('a server that cannot reach etcd at start exits saying so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-etcd-none-'));
    try {
      // Port 1 on loopback: nothing listens there.
      await assert.rejects(startCluster({ dataDir: dir, controllers: 'none', extraArgs: ['--etcd-servers', 'http://127.0.0.1:1'] }),
        /server exited with 1 before ready: [^]*Error: cannot start: cannot reach etcd at http:\/\/127\.0\.0\.1:1: /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('two servers on one etcd see each other\'s writes and watch events', async () => {
    // The second server shares the cluster's PKI (its CA signed the admin credentials) and the etcd.
    const otherDir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-etcd-other-'));
    try {
      cpSync(join(dataDir, 'pki'), join(otherDir, 'pki'), { recursive: true });
      const other = await start(otherDir);
      assert.notEqual(other.url, cluster.url);
      assert.equal((await json(other, ['get', 'configmap', 'cfg'])).data.v, '1', 'the first server\'s object');

      const watcher = other.spawnKubectl(['get', 'configmaps', '-w', '--output-watch-events']);
      try {
        const out = lineReader(watcher);
        await out.waitFor((l) => cells(l)[1] === 'cfg', 'the initial rows', 0, 60_000);
        await cluster.kubectl(['create', '-f', '-'], { input: configMap('shared', 'one') });
        await out.waitFor((l) => cells(l)[0] === 'ADDED' && cells(l)[1] === 'shared', 'the other server\'s create', 0, 60_000);
        await cluster.kubectl(['label', 'configmap', 'shared', 'by=one']);
        await out.waitFor((l) => cells(l)[0] === 'MODIFIED' && cells(l)[1] === 'shared', 'the other server\'s update', 0, 60_000);
      } finally {
        await killChild(watcher);
      }
      await other.kubectl(['label', 'configmap', 'shared', 'by=two', '--overwrite']);
      assert.equal((await json(cluster, ['get', 'configmap', 'shared'])).metadata.labels.by, 'two', 'the second server\'s write');
      await other.stop();
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});
