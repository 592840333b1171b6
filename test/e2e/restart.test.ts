/**
 * Durability across restarts on one data dir: after SIGTERM (exit 0) every
 * object is back with the same uid and resourceVersion, a watch resumed from a
 * resourceVersion taken before the restart gets exactly the later events in
 * order, and new writes continue the revision sequence. After SIGKILL, a
 * create that was acknowledged is still there.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, Cluster } from './harness.js';
import { apiServerOnly } from './helpers.js';

const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-restart-'));
let cluster: Cluster | undefined;

const start = async () => { cluster = await startCluster({ dataDir, ...apiServerOnly }); return cluster; };

before(async () => { await start(); });
after(async () => {
  await cluster?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const configMap = (name: string, value: string) => `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: keep\ndata:\n  v: "${value}"\n`;

const objects = `apiVersion: v1
kind: Namespace
metadata:
  name: keep
${configMap('a', '1')}${configMap('b', '1')}${configMap('c', '1')}---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
  namespace: keep
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
      - name: agent
        image: monitoring-agent:latest
---
apiVersion: v1
kind: Node
metadata:
  name: node-a
`;

/** "<kind>/<namespace>/<name>" -> "<uid> <resourceVersion>" for what the tests created. */
async function snapshot(c: Cluster): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const args of [['configmaps,daemonsets', '-n', 'keep'], ['nodes'], ['namespace', 'keep']]) {
    const list = JSON.parse((await c.kubectl(['get', ...args, '-o', 'json'])).stdout);
    const items = list.kind === 'List' ? list.items : [list];
    for (const o of items) out[`${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`] = `${o.metadata.uid} ${o.metadata.resourceVersion}`;
  }
  return out;
}

/** The events of a watch on keep's configmaps from `rv`, as "<TYPE> <name> <resourceVersion> <data.v>". */
async function eventsSince(c: Cluster, rv: string): Promise<string[]> {
  const { stdout } = await c.kubectl(['get', '--raw', `/api/v1/namespaces/keep/configmaps?watch=true&resourceVersion=${rv}&timeoutSeconds=1`]);
  return stdout.trim().split('\n').filter(Boolean).map((l) => {
    const ev = JSON.parse(l);
    return `${ev.type} ${ev.object.metadata.name} ${ev.object.metadata.resourceVersion} ${ev.object.data?.v ?? ''}`;
  });
}

const rvOf = async (c: Cluster, name: string) => (await c.kubectl(['get', 'configmap', name, '-n', 'keep', '-o', 'jsonpath={.metadata.resourceVersion}'])).stdout;

describe('restart on the same data dir', () => {
  let listRV: string;
  let expectedEvents: string[];
  let saved: Record<string, string>;

  test('SIGTERM after some history: the server exits 0', async () => {
    const c = cluster!;
    await c.kubectl(['create', '-f', '-'], { input: objects });
    listRV = JSON.parse((await c.kubectl(['get', '--raw', '/api/v1/namespaces/keep/configmaps'])).stdout).metadata.resourceVersion;
    // Changes after listRV: update a, delete b, create d, update a again.
    await c.kubectl(['patch', 'configmap', 'a', '-n', 'keep', '--type=merge', '-p', '{"data":{"v":"2"}}']);
    const a2 = await rvOf(c, 'a');
    const b = await rvOf(c, 'b');
    await c.kubectl(['delete', 'configmap', 'b', '-n', 'keep']);
    await c.kubectl(['create', '-f', '-'], { input: configMap('d', '1') });
    const d = await rvOf(c, 'd');
    await c.kubectl(['patch', 'configmap', 'a', '-n', 'keep', '--type=merge', '-p', '{"data":{"v":"3"}}']);
    const a3 = await rvOf(c, 'a');
    assert.ok(Number(listRV) < Number(a2) && Number(a2) < Number(d) && Number(d) < Number(a3), `${listRV} ${a2} ${d} ${a3}`);
    assert.ok(Number(b) <= Number(listRV));
    expectedEvents = await eventsSince(c, listRV);
    // A delete event carries the object's last state at the deletion's revision.
    const deletedRV = expectedEvents[1]?.split(' ')[2];
    assert.deepEqual(expectedEvents, [`MODIFIED a ${a2} 2`, `DELETED b ${deletedRV} 1`, `ADDED d ${d} 1`, `MODIFIED a ${a3} 3`]);
    assert.ok(Number(a2) < Number(deletedRV) && Number(deletedRV) < Number(d), `${a2} < ${deletedRV} < ${d}`);
    saved = await snapshot(c);
    assert.deepEqual(Object.keys(saved).sort(), [
      'ConfigMap/keep/a', 'ConfigMap/keep/c', 'ConfigMap/keep/d', 'DaemonSet/keep/agent', 'Namespace//keep', 'Node//node-a',
    ]);
    assert.equal(await c.stop('SIGTERM'), 0);
  });

  test('every object is back with the same uid and resourceVersion', async () => {
    const c = await start();
    assert.deepEqual(await snapshot(c), saved);
    const a = JSON.parse((await c.kubectl(['get', 'configmap', 'a', '-n', 'keep', '-o', 'json'])).stdout);
    assert.deepEqual(a.data, { v: '3' });
    const missing = await c.kubectl(['get', 'configmap', 'b', '-n', 'keep'], { allowFail: true });
    assert.equal(missing.stderr, 'Error from server (NotFound): configmaps "b" not found\n');
  });

  test('a watch resumed from the old list resourceVersion gets exactly the later events, in order', async () => {
    assert.deepEqual(await eventsSince(cluster!, listRV), expectedEvents);
    // From the last event's revision on, nothing old is replayed.
    const last = expectedEvents[expectedEvents.length - 1].split(' ')[2];
    assert.deepEqual(await eventsSince(cluster!, last), []);
  });

  test('new writes continue the revision sequence', async () => {
    const c = cluster!;
    const highest = Math.max(...Object.values(saved).map((v) => Number(v.split(' ')[1])));
    await c.kubectl(['create', '-f', '-'], { input: configMap('e', '1') });
    const e = await rvOf(c, 'e');
    assert.ok(Number(e) > highest, `new resourceVersion ${e} should be above ${highest}`);
    const last = expectedEvents[expectedEvents.length - 1].split(' ')[2];
    assert.deepEqual(await eventsSince(c, last), [`ADDED e ${e} 1`]);
  });

  test('after SIGKILL, an acknowledged create survives', async () => {
    const c = cluster!;
    const created = await c.kubectl(['create', '-f', '-'], { input: configMap('acked', 'yes') });
    assert.equal(created.stdout, 'configmap/acked created\n');
    const acked = JSON.parse((await c.kubectl(['get', 'configmap', 'acked', '-n', 'keep', '-o', 'json'])).stdout);
    await c.stop('SIGKILL');
    assert.equal(c.proc.signalCode, 'SIGKILL');
    const c2 = await start();
    const again = JSON.parse((await c2.kubectl(['get', 'configmap', 'acked', '-n', 'keep', '-o', 'json'])).stdout);
    assert.equal(again.metadata.uid, acked.metadata.uid);
    assert.equal(again.metadata.resourceVersion, acked.metadata.resourceVersion);
    assert.deepEqual(again.data, { v: 'yes' });
    assert.equal((await c2.kubectl(['get', 'configmaps', '-n', 'keep', '-o', 'name'])).stdout,
      'configmap/a\nconfigmap/acked\nconfigmap/c\nconfigmap/d\nconfigmap/e\n');
  });
});
