/**
 * The heavy lane as a child process, opt-in with K8TS_HEAVY_LANE=process (docs/threads.md, "The heavy lane in a process"):
 * a real server starts none until a large body arrives; while it reads the hardening issue's
 * 250,000-key JSON ConfigMap there, every thread of that process (its collector's included) is at
 * the background nice and runs `--single-threaded-gc`, while no thread of the server itself was
 * lowered (the kernel's own record, /proc/<pid>/task/<tid>/stat field 19). The answer is as before
 * (etcd's 500), the same process reads the next large body, and writes still commit.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startCluster, type Cluster } from './harness.js';
import { apiRequest, apiServerOnly, processThreads } from './helpers.js';
import { jsonConfigMap } from './large-bodies.js';
import { backgroundNice } from '../../src/util/thread-priority.js';

let cluster: Cluster;

before(async () => { cluster = await startCluster({ ...apiServerOnly, env: { K8TS_HEAVY_LANE: 'process' } }); });
after(async () => { await cluster?.cleanup(); });

const childrenOf = (pid: number): number[] => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
const lanes = (pid: number): number[] => childrenOf(pid).filter((c) => { try { return readFileSync(`/proc/${c}/comm`, 'utf8').trim() === 'k8ts-heavy'; } catch { return false; } });

test('a large body is read in a child process at the background nice, every thread of it; the server keeps its priority', async () => {
  const pid = cluster.proc.pid!;
  const servingNice = processThreads(pid).find((t) => t.tid === pid)!.nice;
  assert.deepEqual(lanes(pid), [], 'a heavy-lane process before any large body');
  const body = jsonConfigMap();
  let answered = false;
  const request = apiRequest(cluster, body.path, { method: 'POST', body: body.body, contentType: body.contentType }).finally(() => { answered = true; });
  let seen: { lane: number; nices: number[] } | undefined;
  while (!answered && !seen) {
    const [lane] = lanes(pid);
    if (lane) seen = { lane, nices: processThreads(lane).map((t) => t.nice) };
    else await new Promise((r) => setTimeout(r, 5));
  }
  const res = await request;
  assert.equal(res.status, 500, res.body.slice(0, 300)); // etcd's refusal of the stored form, as in large-bodies.test.ts
  assert.ok(seen, 'no k8ts-heavy process while the request was worked on');
  assert.deepEqual(seen.nices, seen.nices.map(() => backgroundNice));
  assert.ok(readFileSync(`/proc/${seen.lane}/cmdline`, 'utf8').split('\0').includes('--single-threaded-gc'));
  assert.deepEqual(processThreads(pid).filter((t) => t.nice !== servingNice), [], 'a thread of the server was lowered');

  const again = await apiRequest(cluster, body.path, { method: 'POST', body: body.body, contentType: body.contentType });
  assert.equal(again.status, 500, again.body.slice(0, 300));
  assert.deepEqual(lanes(pid), [seen.lane], 'the same process reads the next large body');

  const created = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', {
    method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' }, data: { k: 'v' } }), contentType: 'application/json',
  });
  assert.equal(created.status, 201, created.body.slice(0, 300));
});
