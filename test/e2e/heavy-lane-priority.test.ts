/**
 * The heavy lane's worker thread runs at a lower scheduling priority than the serving
 * thread (docs/threads.md, "Priorities"): while a real server decodes and
 * checks the hardening issue's 250,000-key JSON ConfigMap in its worker, the
 * kernel's own record of each thread (/proc/<pid>/task/<tid>/stat, field 19:
 * nice) shows the worker at the background nice (10) and the serving thread where it was;
 * afterwards no other thread of the server was lowered with it (threads a
 * lowered thread starts would inherit its nice value). The server runs with
 * K8TS_HEAVY_LOWERS_V8_THREADS=0, the opt-out that keeps V8's platform threads
 * at the serving thread's priority (lowered by default: heavy-lane-v8-threads.test.ts).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';
import { apiRequest, apiServerOnly, processThreads, type ProcessThread } from './helpers.js';
import { jsonConfigMap } from './large-bodies.js';
import { backgroundNice } from '../../src/util/thread-priority.js';

let cluster: Cluster;

before(async () => { cluster = await startCluster({ ...apiServerOnly, env: { K8TS_HEAVY_LOWERS_V8_THREADS: '0' } }); });
after(async () => { await cluster?.cleanup(); });

const tasks = processThreads;

test('a heavy-lane worker runs at the background nice (10) while it works; the serving thread keeps its priority', async () => {
  const pid = cluster.proc.pid!;
  const serving = () => tasks(pid).find((t) => t.tid === pid)!;
  const servingNice = serving().nice;
  const body = jsonConfigMap();
  let answered = false;
  const request = apiRequest(cluster, body.path, { method: 'POST', body: body.body, contentType: body.contentType }).finally(() => { answered = true; });
  // Read the threads until the worker shows up, while the request is still being worked on.
  let seen: { heavy: ProcessThread[]; serving: ProcessThread } | undefined;
  while (!answered && !seen) {
    const heavy = tasks(pid).filter((t) => t.comm === 'k8ts-heavy');
    if (heavy.length) seen = { heavy, serving: serving() };
    else await new Promise((r) => setTimeout(r, 5));
  }
  const res = await request;
  assert.equal(res.status, 500, res.body.slice(0, 300)); // etcd's refusal of the stored form, as in large-bodies.test.ts
  assert.ok(seen, 'no thread named k8ts-heavy while the request was worked on');
  assert.deepEqual(seen.heavy.map((t) => t.nice), seen.heavy.map(() => backgroundNice));
  assert.equal(seen.serving.nice, servingNice);
  // Only the worker was lowered: the thread pool, V8's and the checkpointer's threads were not.
  const lowered = tasks(pid).filter((t) => t.nice !== servingNice);
  assert.ok(lowered.length > 0);
  assert.deepEqual(lowered.filter((t) => t.comm !== 'k8ts-heavy'), []);
  assert.equal(serving().nice, servingNice);
});
