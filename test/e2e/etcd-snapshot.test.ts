/**
 * `k8ts etcd snapshot save|restore|status` against a real etcd under a real `k8ts server`:
 * objects created with kubectl, a snapshot saved, etcd killed and its data directory deleted,
 * the snapshot restored into a new data directory (etcd's own tool), etcd started on it, and
 * the server started again on that etcd serves the same objects (uids included) to kubectl.
 */
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, startCluster, type Cluster } from './harness.js';
import { startEtcd, type PrivateEtcd } from './etcd.js';

const work = mkdtempSync(join(tmpdir(), 'k8ts-e2e-snapshot-'));
const dataDir = join(work, 'server');
const etcds: PrivateEtcd[] = [];
const clusters: Cluster[] = [];

after(async () => {
  for (const c of clusters) await c.stop('SIGKILL');
  for (const e of etcds) await e.stop();
  rmSync(work, { recursive: true, force: true });
});

interface Run { code: number; stdout: string; stderr: string }
const k8ts = (args: string[]): Promise<Run> => new Promise((resolve) => {
  execFile(process.execPath, [cliPath, ...args], (err, stdout, stderr) => {
    resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
  });
});

const server = async (etcd: PrivateEtcd) => {
  const c = await startCluster({ dataDir, controllers: 'none', extraArgs: ['--etcd-servers', etcd.url] });
  clusters.push(c);
  return c;
};
const json = async (c: Cluster, args: string[]) => JSON.parse((await c.kubectl([...args, '-o', 'json'])).stdout);

describe('k8ts etcd snapshot', () => {
  test('save, destroy etcd, restore into a new data directory: the server sees every object again', async () => {
    const etcd = await startEtcd();
    etcds.push(etcd);
    const first = await server(etcd);
    await first.kubectl(['create', 'namespace', 'shop']);
    await first.kubectl(['create', 'configmap', 'cfg', '-n', 'shop', '--from-literal', 'colour=blue']);
    await first.kubectl(['create', 'secret', 'generic', 'pw', '-n', 'shop', '--from-literal', 'password=s3cret']);
    const before = await json(first, ['get', 'configmap', 'cfg', '-n', 'shop']);

    const file = join(work, 'snap.db');
    const saved = await k8ts(['etcd', 'snapshot', 'save', file, '--endpoints', etcd.url]);
    assert.equal(saved.code, 0, saved.stderr);
    assert.equal(saved.stdout, `Snapshot saved at ${file}\n`);
    assert.ok(!existsSync(`${file}.part`), 'the partial file is renamed');

    // A write after the snapshot is not in it.
    await first.kubectl(['create', 'configmap', 'later', '-n', 'shop']);
    const status = await k8ts(['etcd', 'snapshot', 'status', file]);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /HASH +\| +REVISION +\| +TOTAL KEYS +\| +TOTAL SIZE/);

    // Destroy: the server and etcd die, etcd's data is removed.
    await first.stop('SIGKILL');
    await etcd.stop();
    assert.ok(!existsSync(etcd.dataDir));

    const restored = await startEtcd({
      prepare: async (m) => {
        const r = await k8ts(['etcd', 'snapshot', 'restore', file, '--data-dir', m.dataDir, '--name', m.name,
          '--initial-cluster', `${m.name}=${m.peerUrl}`, '--initial-advertise-peer-urls', m.peerUrl]);
        assert.equal(r.code, 0, r.stderr);
        assert.ok(existsSync(join(m.dataDir, 'member', 'snap', 'db')));
      },
    });
    etcds.push(restored);
    const second = await server(restored);
    const after = await json(second, ['get', 'configmap', 'cfg', '-n', 'shop']);
    assert.equal(after.data.colour, 'blue');
    assert.equal(after.metadata.uid, before.metadata.uid);
    const secret = await json(second, ['get', 'secret', 'pw', '-n', 'shop']);
    assert.equal(Buffer.from(secret.data.password, 'base64').toString(), 's3cret');
    const later = await second.kubectl(['get', 'configmap', 'later', '-n', 'shop'], { allowFail: true });
    assert.notEqual(later.code, 0);
    assert.match(later.stderr, /configmaps "later" not found/);
    // The restored store takes writes.
    await second.kubectl(['create', 'configmap', 'after-restore', '-n', 'shop']);
  });

  test('save to an etcd that does not answer fails and leaves no file', async () => {
    const file = join(work, 'none.db');
    const r = await k8ts(['etcd', 'snapshot', 'save', file, '--endpoints', 'http://127.0.0.1:1']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^Error: /);
    assert.ok(!existsSync(file) && !existsSync(`${file}.part`));
  });

  test('restore refuses an existing data directory and a missing --data-dir', async () => {
    const file = join(work, 'snap.db');
    const noDir = await k8ts(['etcd', 'snapshot', 'restore', file]);
    assert.equal(noDir.code, 1);
    assert.equal(noDir.stderr, 'Error: required flag(s) "data-dir" not set\n');
    const exists = await k8ts(['etcd', 'snapshot', 'restore', file, '--data-dir', work]);
    assert.equal(exists.code, 1);
    assert.match(exists.stderr, /data-dir ".*" exists/);
  });
});
