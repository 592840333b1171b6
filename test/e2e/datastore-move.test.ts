/**
 * Moving a SQLite cluster onto etcd (docs/storage.md): a `k8ts server` on its embedded SQLite
 * database gets objects from kubectl (a namespace, a ConfigMap, a Secret, a ServiceAccount with
 * a bound token and RBAC to read); `k8ts datastore export` writes its keys, `k8ts datastore
 * import` creates them in a fresh private etcd, and the server started on that etcd with the
 * same data directory serves the same objects (uids included), the kubeconfig saved before the
 * move still authenticates, and the service account's token minted on SQLite still works.
 */
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, startCluster, type Cluster } from './harness.js';
import { startEtcd, type PrivateEtcd } from './etcd.js';

const work = mkdtempSync(join(tmpdir(), 'k8ts-e2e-datastore-'));
const dataDir = join(work, 'server');
const clusters: Cluster[] = [];
let etcd: PrivateEtcd | undefined;

after(async () => {
  for (const c of clusters) await c.stop('SIGKILL');
  await etcd?.stop();
  rmSync(work, { recursive: true, force: true });
});

interface Run { code: number; stdout: string; stderr: string }
const run = (cmd: string, args: string[]): Promise<Run> => new Promise((resolve) => {
  execFile(cmd, args, { maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
    resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
  });
});
const k8ts = (args: string[]) => run(process.execPath, [cliPath, ...args]);

/** kind/namespace/name -> uid of everything kubectl lists of these kinds. */
async function inventory(c: Cluster): Promise<Map<string, string>> {
  const kinds = 'namespaces,configmaps,secrets,serviceaccounts,roles,rolebindings,clusterroles,clusterrolebindings,services';
  const list = JSON.parse((await c.kubectl(['get', kinds, '-A', '-o', 'json'])).stdout);
  return new Map(list.items.map((o: { kind: string; metadata: { namespace?: string; name: string; uid: string } }) =>
    [`${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`, o.metadata.uid]));
}

describe('k8ts datastore export | import: a SQLite cluster moved onto etcd', () => {
  test('every object, the old kubeconfig and a service-account token keep working', async () => {
    const sqlite = await startCluster({ dataDir, controllers: 'none' });
    clusters.push(sqlite);
    await sqlite.kubectl(['create', 'namespace', 'shop']);
    await sqlite.kubectl(['create', 'configmap', 'cfg', '-n', 'shop', '--from-literal', 'colour=blue']);
    await sqlite.kubectl(['create', 'secret', 'generic', 'pw', '-n', 'shop', '--from-literal', 'password=s3cret']);
    await sqlite.kubectl(['create', 'serviceaccount', 'robot', '-n', 'shop']);
    await sqlite.kubectl(['create', 'role', 'read-cm', '-n', 'shop', '--verb', 'get', '--resource', 'configmaps']);
    await sqlite.kubectl(['create', 'rolebinding', 'robot-reads', '-n', 'shop', '--role', 'read-cm', '--serviceaccount', 'shop:robot']);
    const token = (await sqlite.kubectl(['create', 'token', 'robot', '-n', 'shop', '--duration', '1h'])).stdout.trim();
    const before = await inventory(sqlite);
    const oldKubeconfig = join(work, 'admin-before.conf');
    copyFileSync(sqlite.kubeconfig, oldKubeconfig);
    assert.equal(await sqlite.stop(), 0);

    const file = join(work, 'cluster.jsonl');
    const exported = await k8ts(['datastore', 'export', '--data-dir', dataDir, '-o', file]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stderr, /^exported \d+ keys at revision \d+ to /);
    const header = JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!);
    assert.equal(header.kind, 'k8ts-datastore');

    etcd = await startEtcd();
    const imported = await k8ts(['datastore', 'import', file, '--etcd-servers', etcd.url]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal(imported.stderr, `imported ${header.keys} keys (exported at revision ${header.revision})\n`);
    // A second import into the now non-empty etcd is refused before it writes anything.
    const again = await k8ts(['datastore', 'import', file, '--etcd-servers', etcd.url]);
    assert.equal(again.code, 1);
    assert.equal(again.stderr, `Error: import: the target datastore holds ${header.keys} keys: import needs an empty one\n`);

    const onEtcd = await startCluster({ dataDir, controllers: 'none', extraArgs: ['--etcd-servers', etcd.url] });
    clusters.push(onEtcd);
    assert.deepEqual(await inventory(onEtcd), before);
    const cm = JSON.parse((await onEtcd.kubectl(['get', 'configmap', 'cfg', '-n', 'shop', '-o', 'json'])).stdout);
    assert.equal(cm.data.colour, 'blue');

    // The kubeconfig from before the move (its client certificate and CA) against the new server.
    const old = await run('kubectl', ['--kubeconfig', oldKubeconfig, '--server', onEtcd.url, 'get', 'secret', 'pw', '-n', 'shop', '-o', 'jsonpath={.data.password}']);
    assert.equal(old.code, 0, old.stderr);
    assert.equal(Buffer.from(old.stdout, 'base64').toString(), 's3cret');
    // The bound token minted on SQLite: its service account (same uid) and RBAC came along.
    const ca = JSON.parse((await onEtcd.kubectl(['config', 'view', '--raw', '-o', 'json'])).stdout).clusters[0].cluster['certificate-authority-data'];
    writeFileSync(join(work, 'ca.crt'), Buffer.from(ca, 'base64'));
    const asRobot = ['--kubeconfig', '/dev/null', '--server', onEtcd.url, '--certificate-authority', join(work, 'ca.crt'), '--token', token, '-n', 'shop'];
    const robot = await run('kubectl', [...asRobot, 'get', 'configmap', 'cfg', '-o', 'jsonpath={.data.colour}']);
    assert.equal(robot.code, 0, robot.stderr);
    assert.equal(robot.stdout, 'blue');
    const denied = await run('kubectl', [...asRobot, 'get', 'secret', 'pw']);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /secrets "pw" is forbidden: User "system:serviceaccount:shop:robot" cannot get resource "secrets"/);
    // And the moved cluster takes writes on etcd.
    await onEtcd.kubectl(['create', 'configmap', 'after-move', '-n', 'shop']);

    // The way back: an export of the etcd datastore holds every key of the first export, and the new one.
    const back = join(work, 'from-etcd.jsonl');
    const fromEtcd = await k8ts(['datastore', 'export', '--datastore', 'etcd', '--etcd-servers', etcd.url, '-o', back]);
    assert.equal(fromEtcd.code, 0, fromEtcd.stderr);
    const keysOf = (f: string) => new Set(readFileSync(f, 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l).key as string));
    const backKeys = keysOf(back);
    for (const key of keysOf(file)) assert.ok(backKeys.has(key), `${key} in the export from etcd`);
    assert.ok(backKeys.has('/registry/core/configmaps/shop/after-move'));
  });

  test('export of a directory without a database and import of a file that is not an export fail plainly', async () => {
    const empty = join(work, 'empty');
    const r = await k8ts(['datastore', 'export', '--data-dir', empty]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `Error: no SQLite datastore at ${join(empty, 'state.db')} (--data-dir)\n`);
    assert.ok(!existsSync(join(empty, 'state.db')));
    const bogus = join(work, 'bogus.jsonl');
    writeFileSync(bogus, '{"hello":1}\n');
    const i = await k8ts(['datastore', 'import', bogus, '--datastore', 'sqlite', '--data-dir', join(work, 'fresh')]);
    assert.equal(i.code, 1);
    assert.equal(i.stderr, 'Error: import: not a k8ts datastore export (first line\'s kind is undefined, want "k8ts-datastore")\n');
  });
});
