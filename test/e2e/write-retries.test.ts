/**
 * Writes without a precondition retry a lost race until they succeed, as
 * upstream's GuaranteedUpdate does; writes with one still answer 409 at once
 * (hardening issue, finding 4). A real server, real HTTPS requests. Writers
 * of one key in one server take turns; two servers on one etcd still race,
 * and there the retry itself is what makes every write succeed.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, type Cluster } from './harness.js';
import { startEtcd } from './etcd.js';
import { apiRequest } from './helpers.js';
import { duringAttack } from './bystander.js';

let cluster: Cluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster?.cleanup(); });

const path = (name: string) => `/api/v1/namespaces/default/configmaps/${name}`;

/** The exact request of the issue: an apply of one key by its own manager, no resourceVersion. */
function applyKey(name: string, i: number, force: boolean, to: Cluster = cluster) {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { [`k${i}`]: `v${i}` } });
  return apiRequest(to, `${path(name)}?fieldManager=m${i}${force ? '&force=true' : ''}`, {
    method: 'PATCH', body, contentType: 'application/apply-patch+yaml',
  });
}

async function concurrentApplies(name: string, force: boolean): Promise<void> {
  await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', {
    method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }),
  });
  const answers = await duringAttack(cluster, () => Promise.all(Array.from({ length: 16 }, (_, i) => applyKey(name, i, force))));
  assert.deepEqual(answers.map((r) => r.status).filter((s) => s !== 200), [], answers.map((r) => r.body).filter((b) => !b.includes('"kind":"ConfigMap"')).join('\n'));
  const cm = (await apiRequest(cluster, path(name))).json() as ConfigMap;
  assert.deepEqual(Object.keys(cm.data ?? {}).sort(), Array.from({ length: 16 }, (_, i) => `k${i}`).sort());
  const applied = (cm.metadata?.managedFields ?? []).filter((f) => f.operation === 'Apply').map((f) => f.manager).sort();
  assert.deepEqual(applied, Array.from({ length: 16 }, (_, i) => `m${i}`).sort());
}

describe('conflict retries (GuaranteedUpdate)', () => {
  test('16 concurrent applies of disjoint keys all succeed, without force', () => concurrentApplies('contended', false));

  test('16 concurrent applies of disjoint keys all succeed, with force=true', () => concurrentApplies('contended-force', true));

  test('2,000 managers applying a key each to one ConfigMap, 16 at a time, all succeed while another client is served', async () => {
    // The finding's second half: applies to one object by 2,000 managers did not finish in 290 s.
    const name = 'many-managers';
    const managers = 2_000;
    await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', {
      method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }),
    });
    const refused: string[] = [];
    let next = 0;
    await duringAttack(cluster, () => Promise.all(Array.from({ length: 16 }, async () => {
      for (let i = next++; i < managers; i = next++) {
        const r = await applyKey(name, i, false);
        if (r.status !== 200) refused.push(`m${i}: ${r.status} ${r.body.slice(0, 200)}`);
      }
    })), { minSamples: 10 });
    assert.deepEqual(refused, []);
    const cm = (await apiRequest(cluster, path(name))).json() as ConfigMap;
    assert.equal(Object.keys(cm.data ?? {}).length, managers);
    const applied = new Set((cm.metadata?.managedFields ?? []).filter((f) => f.operation === 'Apply').map((f) => f.manager));
    assert.equal(applied.size, managers);
    assert.ok(applied.has('m0') && applied.has(`m${managers - 1}`));
  });

  test('16 concurrent merge patches and unconditional updates all succeed', async () => {
    const name = 'contended-patch';
    await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', {
      method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: {} }),
    });
    const patches = Array.from({ length: 16 }, (_, i) => apiRequest(cluster, path(name), {
      method: 'PATCH', contentType: 'application/merge-patch+json', body: JSON.stringify({ data: { [`p${i}`]: String(i) } }),
    }));
    // A PUT without resourceVersion is unconditional for ConfigMaps (AllowUnconditionalUpdate).
    const puts = Array.from({ length: 4 }, (_, i) => apiRequest(cluster, path(name), {
      method: 'PUT', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { put: String(i) } }, data: {} }),
    }));
    const answers = await Promise.all([...patches, ...puts]);
    assert.deepEqual(answers.map((r) => r.status).filter((s) => s !== 200), []);
  });

  test('a conditional update with a stale resourceVersion still gets 409', async () => {
    const name = 'conditional';
    const created = (await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', {
      method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } }),
    })).json() as ConfigMap;
    const stale = created.metadata!.resourceVersion!;
    assert.equal((await apiRequest(cluster, path(name), {
      method: 'PATCH', contentType: 'application/merge-patch+json', body: JSON.stringify({ data: { a: '2' } }),
    })).status, 200);
    const put = await apiRequest(cluster, path(name), {
      method: 'PUT', body: JSON.stringify({ ...created, metadata: { ...created.metadata, resourceVersion: stale }, data: { a: '3' } }),
    });
    assert.equal(put.status, 409);
    assert.equal(put.json().reason, 'Conflict');
    assert.equal(put.json().message, 'Operation cannot be fulfilled on configmaps "conditional": the object has been modified; please apply your changes to the latest version and try again');
    const patch = await apiRequest(cluster, path(name), {
      method: 'PATCH', contentType: 'application/merge-patch+json', body: JSON.stringify({ metadata: { resourceVersion: stale }, data: { a: '4' } }),
    });
    assert.equal(patch.status, 409);
    assert.equal((await apiRequest(cluster, path(name))).json().data.a, '2');
  });
});

describe('conflict retries across two servers on one etcd', () => {
  test('16 concurrent applies of disjoint keys, half to each server, all succeed', async () => {
    const etcd = await startEtcd();
    const dirs = [mkdtempSync(join(tmpdir(), 'k8ts-e2e-retries-a-')), mkdtempSync(join(tmpdir(), 'k8ts-e2e-retries-b-'))];
    const servers: Cluster[] = [];
    try {
      servers.push(await startCluster({ dataDir: dirs[0], extraArgs: ['--etcd-servers', etcd.url] }));
      // The second server shares the first one's PKI, so the admin credentials work on both.
      cpSync(join(dirs[0], 'pki'), join(dirs[1], 'pki'), { recursive: true });
      servers.push(await startCluster({ dataDir: dirs[1], extraArgs: ['--etcd-servers', etcd.url] }));
      const name = 'two-servers';
      assert.equal((await apiRequest(servers[0], '/api/v1/namespaces/default/configmaps', {
        method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }),
      })).status, 201);
      const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => applyKey(name, i, i % 4 === 0, servers[i % 2])));
      assert.deepEqual(answers.map((r) => r.status).filter((s) => s !== 200), [], answers.map((r) => r.body).join('\n'));
      const cm = (await apiRequest(servers[1], path(name))).json() as ConfigMap;
      assert.deepEqual(Object.keys(cm.data ?? {}).sort(), Array.from({ length: 16 }, (_, i) => `k${i}`).sort());
      assert.equal((cm.metadata?.managedFields ?? []).filter((f) => f.operation === 'Apply').length, 16);
    } finally {
      for (const s of servers) await s.stop('SIGKILL');
      await etcd.stop();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  });
});
