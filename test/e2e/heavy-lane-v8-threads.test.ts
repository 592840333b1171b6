/**
 * With the heavy lane's worker threads (docs/threads.md, "Priorities"; K8TS_HEAVY_LOWERS_V8_THREADS=0 opts out,
 * heavy-lane-priority.test.ts): on a real server, the first large body read in the heavy lane also lowers
 * V8's platform threads (the first 1 + 4 threads born after the serving
 * thread) to the background nice; the serving thread and every thread born
 * after them (the signal thread, libuv's pool, the checkpointer) keep their
 * priority, the server says which it lowered, and writes (group commit's
 * fsync on libuv's pool) go on.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';
import { apiRequest, apiServerOnly, processThreads } from './helpers.js';
import { jsonConfigMap } from './large-bodies.js';
import { backgroundNice } from '../../src/util/thread-priority.js';

let cluster: Cluster;

before(async () => { cluster = await startCluster(apiServerOnly); });
after(async () => { await cluster?.cleanup(); });

const tasks = processThreads;

test('by default, a large body lowers the worker and the five platform threads, nothing else', async () => {
  const pid = cluster.proc.pid!;
  const servingNice = tasks(pid).find((t) => t.tid === pid)!.nice;
  assert.ok(tasks(pid).every((t) => t.nice === servingNice), 'a thread was lowered before any large body');
  const body = jsonConfigMap();
  const res = await apiRequest(cluster, body.path, { method: 'POST', body: body.body, contentType: body.contentType });
  assert.equal(res.status, 500, res.body.slice(0, 300)); // etcd's refusal of the stored form, as in large-bodies.test.ts

  const all = tasks(pid);
  const byBirth = all.filter((t) => t.tid !== pid && t.comm !== 'k8ts-heavy').sort((a, b) => a.born - b.born || a.tid - b.tid);
  const platform = byBirth.slice(0, 5);
  assert.deepEqual(platform.map((t) => t.nice), platform.map(() => backgroundNice));
  assert.deepEqual(byBirth.slice(5).filter((t) => t.nice !== servingNice), [], 'a thread born after the platform threads was lowered');
  assert.equal(all.find((t) => t.tid === pid)!.nice, servingNice);
  const line = cluster.serverLog().split('\n').find((l) => l.includes('V8 platform threads run at a lower priority'));
  assert.ok(line, 'no log line for the platform threads');
  assert.deepEqual(String(JSON.parse(line).tids).split(',').map(Number).sort(), platform.map((t) => t.tid).sort());

  // Writes still commit (their fsync runs on libuv's pool, which kept its priority).
  const created = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', {
    method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' }, data: { k: 'v' } }), contentType: 'application/json',
  });
  assert.equal(created.status, 201, created.body.slice(0, 300));
});
