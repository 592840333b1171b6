/**
 * kube-apiserver's --etcd-prefix on `k8ts server`: every key lives under the
 * prefix instead of /registry, so two clusters can share one etcd without
 * seeing each other's objects; /readyz's etcd check reads under it too.
 * A private etcd, real servers, real kubectl.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { startCluster, type Cluster } from './harness.js';
import { startEtcd, type PrivateEtcd } from './etcd.js';
import { cells, killChild, lineReader } from './helpers.js';

describe('k8ts server --etcd-prefix', () => {
  const dirs = [mkdtempSync(join(tmpdir(), 'k8ts-e2e-prefix-a-')), mkdtempSync(join(tmpdir(), 'k8ts-e2e-prefix-b-'))];
  let etcd: PrivateEtcd;
  let prefixed: Cluster;
  let plain: Cluster;
  let client: Etcd3;

  before(async () => {
    etcd = await startEtcd();
    client = new Etcd3({ hosts: etcd.url });
    prefixed = await startCluster({ dataDir: dirs[0]!, controllers: 'none', extraArgs: ['--etcd-servers', etcd.url, '--etcd-prefix', '/cluster-a/'] });
    plain = await startCluster({ dataDir: dirs[1]!, controllers: 'none', extraArgs: ['--etcd-servers', etcd.url] });
  });
  after(async () => {
    await prefixed?.stop('SIGKILL');
    await plain?.stop('SIGKILL');
    client?.close();
    await etcd?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('objects are stored under the prefix, and the default-prefix cluster on the same etcd does not see them', async () => {
    assert.equal((await prefixed.kubectl(['create', 'configmap', 'only-a', '--from-literal=v=a'])).code, 0);
    const keys = await client.getAll().prefix('/cluster-a/configmaps/default/').keys();
    assert.deepEqual(keys, ['/cluster-a/configmaps/default/only-a']);
    assert.deepEqual(await client.getAll().prefix('/registry/configmaps/default/only-a').keys(), []);
    const other = await plain.kubectl(['get', 'configmap', 'only-a'], { allowFail: true });
    assert.notEqual(other.code, 0);
    assert.match(other.stderr, /Error from server \(NotFound\): configmaps "only-a" not found/);
  });

  test('watches, lists and updates through the prefix answer with the registry\'s keys', async () => {
    const watch = prefixed.spawnKubectl(['get', 'configmaps', '-w', '--output-watch-events']);
    try {
      const out = lineReader(watch);
      await out.waitFor((l) => cells(l)[1] === 'only-a', 'the initial row', 0, 60_000);
      await prefixed.kubectl(['label', 'configmap', 'only-a', 'seen=yes']);
      await out.waitFor((l) => cells(l)[0] === 'MODIFIED' && cells(l)[1] === 'only-a', 'the label event', 0, 60_000);
      const listed = await prefixed.kubectl(['get', 'configmaps', '-l', 'seen=yes', '-o', 'name']);
      assert.equal(listed.stdout.trim(), 'configmap/only-a');
      assert.equal((await prefixed.kubectl(['get', '--raw', '/readyz/etcd'])).stdout, 'ok');
    } finally {
      await killChild(watch);
    }
  });
});
