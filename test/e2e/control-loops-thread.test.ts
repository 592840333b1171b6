/**
 * The controller manager and the scheduler of `k8ts server` run in a worker
 * thread of their own (docs/threads.md, point 4): the server answers while
 * they work over HTTPS from that thread, SIGTERM stops them before the server
 * closes (exit 0, nothing left running), and a thread that dies (here: it
 * reaches its --controllers-heap-limit-mb, a real out-of-memory) is restarted
 * after the kubelet's first CrashLoopBackOff delay (10 s) while the server
 * keeps answering (a bystander, while the thread is down and restarting).
 */
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { startCluster, eventually, type Cluster } from './harness.js';
import { apiRequest } from './helpers.js';
import { startBystander } from './bystander.js';

interface LogLine { msg: string; level?: string; component: string; threadId?: number; err?: string; restartInMs?: number }

/** The server's JSON log lines from now on. */
function logLines(cluster: Cluster): LogLine[] {
  const lines: LogLine[] = [];
  let partial = '';
  cluster.proc.stderr!.on('data', (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop()!;
    for (const l of parts) { try { lines.push(JSON.parse(l)); } catch { /* not JSON */ } }
  });
  return lines;
}

const running = (lines: LogLine[]) => lines.filter((l) => l.msg === 'control loops running in their own thread');

const deployment = (name: string) => JSON.stringify({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'default' },
  spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'k8ts.local/pause:1' }] } } },
});

/** The deployment controller and the replica set controller (both in the thread) made its pods. */
async function deploymentGetsPods(cluster: Cluster, name: string): Promise<void> {
  const created = await apiRequest(cluster, '/apis/apps/v1/namespaces/default/deployments', { method: 'POST', body: deployment(name) });
  assert.equal(created.status, 201, created.body);
  await eventually(async () => {
    const pods = await apiRequest(cluster, `/api/v1/namespaces/default/pods?labelSelector=app%3D${name}`);
    return pods.json().items.length === 2;
  }, 30_000, `two pods of deployment ${name}`);
}

/** Processes whose command line names the data dir (the server, or anything it left behind). */
function processesUsing(dataDir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try { if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(dataDir)) pids.push(Number(entry)); } catch { /* gone */ }
  }
  return pids;
}

describe('control loops in their own thread', () => {
  const clusters: Cluster[] = [];
  after(async () => { for (const c of clusters) await c.cleanup(); });

  test('the server answers while its controllers and scheduler run in a worker thread; SIGTERM stops them and exits 0', async () => {
    const cluster = await startCluster({ controllers: 'all' });
    clusters.push(cluster);
    const lines = logLines(cluster);
    const started = await eventually(async () => running(lines)[0], 20_000, 'the control loops thread');
    assert.ok(started.threadId! >= 1, 'the loops run on a worker thread, not the main thread (threadId 0)');
    assert.equal((await apiRequest(cluster, '/readyz', { anonymous: true })).status, 200);
    await deploymentGetsPods(cluster, 'web');
    // Both components hold their own leader Lease, under their own identities.
    for (const lease of ['kube-controller-manager', 'kube-scheduler']) {
      const got = await apiRequest(cluster, `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${lease}`);
      assert.equal(got.status, 200, got.body);
      assert.ok(got.json().spec.holderIdentity, `${lease} has a holder`);
    }
    assert.equal(await cluster.stop('SIGTERM'), 0);
    assert.ok(lines.some((l) => l.msg === 'control loops stopped'), 'the loops were stopped before the process ended');
    // The server's own parts stop without complaint: every cache is closed before the storage it
    // watches (the admission policy and Service resolver caches once logged "watch ended, listing
    // again" here). The control loops are clients: a request of theirs cut by the stop may warn.
    const stopping = lines.findIndex((l) => l.msg === 'shutting down');
    assert.ok(stopping >= 0, 'the server logged its shutdown');
    const clientSide = /^k8ts\.(controller-manager|scheduler)\b/;
    assert.deepEqual(lines.slice(stopping).filter((l) => (l.level === 'warn' || l.level === 'error') && !clientSide.test(l.component)), [],
      'no warning or error from the server while stopping');
    assert.deepEqual(processesUsing(cluster.dataDir), [], 'nothing keeps running after the server exits');
  });

  test('a control loops thread that runs out of memory is restarted, and the server answers meanwhile', async () => {
    const cluster = await startCluster({ controllers: 'all', extraArgs: ['--controllers-heap-limit-mb', '48'] });
    clusters.push(cluster);
    const lines = logLines(cluster);
    await eventually(async () => running(lines)[0], 20_000, 'the control loops thread');
    // The root CA publisher's informer caches every ConfigMap: 900 KiB ones fill the thread's 48 MiB heap.
    const value = 'x'.repeat(900 * 1024);
    const crashed = () => lines.find((l) => l.msg === 'control loops thread exited; restarting it');
    for (let i = 0; i < 200 && !crashed(); i += 4) {
      await Promise.all([0, 1, 2, 3].map(async (j) => {
        const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${i + j}`, labels: { big: 'yes' } }, data: { v: value } });
        const res = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', body });
        assert.equal(res.status, 201, res.body);
      }));
    }
    const exit = await eventually(async () => crashed(), 20_000, 'the thread to run out of memory');
    assert.match(exit.err ?? '', /memory/);
    assert.equal(exit.restartInMs, 10_000);
    // The cause goes away, as an operator would remove it; the restarted thread must then stay up.
    const deleted = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps?labelSelector=big%3Dyes', { method: 'DELETE' });
    assert.equal(deleted.status, 200, deleted.body);
    // While the thread is down and while it restarts, another client is answered within 1 s.
    const bystander = await startBystander(cluster);
    await eventually(async () => running(lines).length >= 2, 40_000, 'the thread to be restarted');
    const report = await bystander.stop();
    assert.deepEqual(report.failures, [], `the server kept answering (worst ${Math.round(report.worstMs)} ms over ${report.samples} requests)`);
    await deploymentGetsPods(cluster, 'after-restart');
    assert.equal(await cluster.stop('SIGTERM'), 0);
  });
});
