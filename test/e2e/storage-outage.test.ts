/**
 * A storage outage is reported as one (hardening issue, finding 6): with etcd
 * down, a create in an existing namespace and a GET answer 5xx, never a 404
 * for data the server could not read, and /readyz's `etcd` check fails; both
 * recover when etcd is back. On SQLite the same check passes (`[+]etcd ok`,
 * as k3s on kine shows it).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, startCluster, type Cluster } from './harness.js';
import { apiRequest } from './helpers.js';
import { startEtcd, type PrivateEtcd } from './etcd.js';
import { startBystander, type BystanderReport } from './bystander.js';
import { livezVerbose, readyzVerbose } from './health-verbose.js';

const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-outage-'));
let etcd: PrivateEtcd;
let cluster: Cluster;

before(async () => {
  etcd = await startEtcd();
  cluster = await startCluster({ dataDir, controllers: 'none', extraArgs: ['--etcd-servers', etcd.url] });
});
after(async () => {
  await cluster?.stop('SIGKILL');
  await etcd?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const configMap = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: '1' } });
const createIn = (ns: string, name: string) => apiRequest(cluster, `/api/v1/namespaces/${ns}/configmaps`, { method: 'POST', body: configMap(name) });
const getIn = (ns: string, name: string) => apiRequest(cluster, `/api/v1/namespaces/${ns}/configmaps/${name}`);

describe('an etcd outage', () => {
  test('answers 5xx (not 404) for a create and a GET, fails /readyz\'s etcd check, and recovers', async () => {
    const ns = await apiRequest(cluster, '/api/v1/namespaces', { method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } }) });
    assert.equal(ns.status, 201);
    assert.equal((await createIn('x', 'before')).status, 201);
    const healthy = await apiRequest(cluster, '/readyz?verbose');
    assert.equal(healthy.status, 200);
    assert.match(healthy.body, /^\[\+\]etcd ok$/m);

    await etcd.kill();
    // Issue #19's invariant while the outage lasts: another client's /readyz and GET are answered
    // within 1 s, with a failure (a 5xx, never a 404), however long etcd stays away; /readyz may
    // still say 200 until its check (at most one read a second) has seen etcd gone.
    const bystander = await startBystander(cluster, {
      paths: ['/readyz', '/api/v1/namespaces/x/configmaps/before'],
      accepts: (path, status) => status >= 500 || (path === '/readyz' && status === 200),
    });
    let report: BystanderReport;
    try {
      const created = await createIn('x', 'during');
      assert.ok(created.status >= 500 && created.status < 600, `create answered ${created.status}: ${created.body}`);
      assert.equal(created.json().kind, 'Status');
      assert.doesNotMatch(created.body, /not found/);
      const got = await getIn('x', 'before');
      assert.ok(got.status >= 500 && got.status < 600, `GET answered ${got.status}: ${got.body}`);
      assert.doesNotMatch(got.body, /not found/);

      const failing = await eventually(async () => {
        const r = await apiRequest(cluster, '/readyz?verbose');
        return r.status === 500 && r.body.includes('[-]etcd failed: reason withheld\n') ? r : undefined;
      }, 15_000, '/readyz reporting the etcd check failed');
      assert.match(failing.body, /readyz check failed\n$/);
      const one = await apiRequest(cluster, '/readyz/etcd');
      assert.equal(one.status, 500);
      assert.match(one.body, /^internal server error: error getting data from etcd: /);
      const live = await apiRequest(cluster, '/livez?verbose');
      assert.equal(live.status, 500);
      assert.match(live.body, /^\[-\]etcd failed: reason withheld$/m);
      // Two more seconds of the outage with /readyz failing, so the bystander sees that answered promptly too.
      await new Promise((r) => setTimeout(r, 2_000));
    } finally {
      report = await bystander.stop();
    }
    assert.deepEqual(report.failures, [], `the bystander was not served during the outage (worst ${Math.round(report.worstMs)} ms)`);
    assert.ok(report.samples >= 20, `the bystander got only ${report.samples} answers`);

    await etcd.restart();
    await eventually(async () => (await apiRequest(cluster, '/readyz')).status === 200, 120_000, '/readyz after etcd returned');
    await eventually(async () => (await createIn('x', 'after')).status === 201, 120_000, 'a create after etcd returned');
    assert.equal((await getIn('x', 'before')).status, 200);
    assert.equal((await getIn('x', 'during')).status, 404, 'the create during the outage wrote nothing');
  });

  test('a create in a namespace that does not exist is still a 404', async () => {
    const r = await createIn('absent', 'cm');
    assert.equal(r.status, 404);
    assert.equal(r.json().message, 'namespaces "absent" not found');
  });
});

describe('the etcd check on SQLite', () => {
  test('/readyz and /livez show [+]etcd ok, backed by a read of the database', async () => {
    const sqlite = await startCluster();
    try {
      const ready = await apiRequest(sqlite, '/readyz?verbose');
      assert.equal(ready.body, readyzVerbose);
      const live = await apiRequest(sqlite, '/livez?verbose');
      assert.equal(live.body, livezVerbose);
      assert.equal((await apiRequest(sqlite, '/livez/etcd')).body, 'ok');
    } finally {
      await sqlite.cleanup();
    }
  });
});
