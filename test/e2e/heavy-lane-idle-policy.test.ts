/**
 * The opt-in idle scheduling policy (docs/threads.md, "The idle policy, opt-in"): a real server
 * started with K8TS_HEAVY_SCHED_IDLE=1, sent the hardening issue's 250,000-key JSON ConfigMap,
 * gives its heavy-lane worker and V8's five platform threads SCHED_IDLE (the kernel's own record,
 * /proc/<pid>/task/<tid>/stat field 41), keeps the serving thread and every other thread at the
 * normal policy, answers the body as before (etcd's 500) and still commits writes.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';
import { apiRequest, apiServerOnly, processThreads } from './helpers.js';
import { jsonConfigMap } from './large-bodies.js';

const schedIdle = 5;
let cluster: Cluster;

before(async () => { cluster = await startCluster({ ...apiServerOnly, env: { K8TS_HEAVY_SCHED_IDLE: '1' } }); });
after(async () => { await cluster?.cleanup(); });

test('K8TS_HEAVY_SCHED_IDLE=1: the worker and the platform threads take the idle policy, nothing else', async () => {
  const pid = cluster.proc.pid!;
  assert.deepEqual(processThreads(pid).filter((t) => t.policy !== 0), [], 'a thread had another policy before any large body');
  const body = jsonConfigMap();
  const res = await apiRequest(cluster, body.path, { method: 'POST', body: body.body, contentType: body.contentType });
  assert.equal(res.status, 500, res.body.slice(0, 300)); // etcd's refusal of the stored form, as in large-bodies.test.ts

  const all = processThreads(pid);
  const heavy = all.filter((t) => t.comm === 'k8ts-heavy');
  assert.equal(heavy.length, 1);
  const byBirth = all.filter((t) => t.tid !== pid && t.comm !== 'k8ts-heavy').sort((a, b) => a.born - b.born || a.tid - b.tid);
  const idle = [...heavy, ...byBirth.slice(0, 5)];
  assert.deepEqual(idle.map((t) => t.policy), idle.map(() => schedIdle));
  assert.deepEqual(all.filter((t) => !idle.includes(t) && t.policy !== 0), [], 'another thread took the idle policy');
  const logged = cluster.serverLog().split('\n').filter((l) => l.includes('threads run at the idle scheduling policy')).map((l) => JSON.parse(l));
  assert.deepEqual(logged.map((l) => l.threads).sort(), ['V8 platform', 'k8ts-heavy']);

  const created = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', {
    method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' }, data: { k: 'v' } }), contentType: 'application/json',
  });
  assert.equal(created.status, 201, created.body.slice(0, 300));
});
