/**
 * `k8ts server --etcd-servers` on an etcd whose backend reaches its quota (--quota-backend-bytes):
 * etcd raises its NOSPACE alarm and refuses every write that adds data. kube-apiserver answers
 * such a write with a 500 whose message is etcd's own text (Go's client gives
 * "etcdserver: mvcc: database space exceeded"; ErrorToAPIStatus sets no reason), so kubectl
 * prints `error: failed to create configmap: etcdserver: mvcc: database space exceeded`. The
 * server stays up and keeps serving reads and deletes, and once an operator compacts,
 * defragments and disarms etcd (etcd's maintenance guide), writes go through again without a
 * restart. A 20 MB quota is reached in about twenty 0.9 MB ConfigMaps.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { startCluster, type Cluster } from './harness.js';
import { apiRequest } from './helpers.js';
import { startEtcd, type PrivateEtcd } from './etcd.js';

const dir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-nospace-'));
let etcd: PrivateEtcd;
let cluster: Cluster;

before(async () => {
  etcd = await startEtcd({ args: ['--quota-backend-bytes', String(20_000_000)] });
  cluster = await startCluster({ dataDir: join(dir, 'data'), controllers: 'none', extraArgs: ['--etcd-servers', etcd.url] });
});
after(async () => {
  await cluster?.stop('SIGKILL');
  await etcd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const nospace = 'etcdserver: mvcc: database space exceeded';

describe('etcd out of space under k8ts server', () => {
  const created: string[] = [];

  test('a write past the quota gets etcd\'s own words as a 500, as kube-apiserver answers it', async () => {
    // 0.9 MB of base64 text: under a ConfigMap's 1 MiB, unique so etcd stores every byte.
    const file = join(dir, 'data.txt');
    writeFileSync(file, Buffer.from(Array.from({ length: 700_000 }, (_, i) => (i * 7919) % 251)).toString('base64').slice(0, 900_000));
    let refusal = '';
    for (let i = 0; i < 60 && !refusal; i++) {
      const r = await cluster.kubectl(['create', 'configmap', `big-${i}`, `--from-file=data.txt=${file}`], { allowFail: true });
      if (r.code === 0) created.push(`big-${i}`);
      else refusal = r.stderr.trim();
    }
    assert.ok(created.length > 0, 'some ConfigMaps fit under the quota');
    assert.equal(refusal, `error: failed to create configmap: ${nospace}`);

    // The Status itself: 500, no reason, etcd's text alone (no "Internal error occurred").
    const res = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', {
      method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'small' }, data: { a: 'b' } }),
    });
    assert.equal(res.status, 500, res.body);
    const status = res.json();
    assert.equal(status.kind, 'Status');
    assert.equal(status.message, nospace);
    assert.equal(status.reason, undefined, res.body);
    assert.equal(status.code, 500);
  });

  test('the server stays up: reads are served and nothing acknowledged is lost', async () => {
    const names = (await cluster.kubectl(['get', 'configmaps', '-o', 'name'])).stdout.trim().split('\n');
    for (const n of created) assert.ok(names.includes(`configmap/${n}`), `${n} is listed`);
    assert.equal((await apiRequest(cluster, '/readyz')).status, 200);
  });

  test('after compaction, defragmentation and disarming the alarm, writes go through again without a restart', async () => {
    // Deletes add no data: etcd takes them under the alarm.
    await cluster.kubectl(['delete', 'configmap', ...created]);
    const client = new Etcd3({ hosts: etcd.url });
    try {
      const { header } = await client.kv.range({ key: Buffer.from('/') });
      await client.kv.compact({ revision: header.revision, physical: true });
      await client.maintenance.defragment();
      const { alarms } = await client.maintenance.alarm({ action: 'Get', memberID: '0', alarm: 'None' });
      assert.ok(alarms.some((a) => a.alarm === 'Nospace'), `the NOSPACE alarm was raised: ${JSON.stringify(alarms)}`);
      await client.maintenance.alarm({ action: 'Deactivate', memberID: alarms[0].memberID, alarm: 'Nospace' });
    } finally {
      client.close();
    }
    const r = await cluster.kubectl(['create', 'configmap', 'after', '--from-literal=a=b']);
    assert.equal(r.stdout.trim(), 'configmap/after created');
  });
});
