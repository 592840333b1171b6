/**
 * Probes on a real node: `k8ts agent --runtime cri` over a private
 * containerd (containerd.ts), watched with the real kubectl.
 *
 * exec probes run through CRI ExecSync, so they work whatever the network
 * namespaces. The httpGet probe is made by the agent from the host network
 * namespace: the pod names `host: 127.0.0.1` and the test itself serves that
 * port on loopback. (A hostNetwork pod's own loopback here is containerd's
 * private namespace, which the agent cannot reach; the agent is never sent
 * to a pod address.)
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, eventually, type Cluster } from './harness.js';
import { startContainerd, busyboxImage, type PrivateContainerd } from './containerd.js';
import { nodeReady, startCRIAgent, type CRIAgent } from './real-node.js';

const nodeName = 'probe-node';
let cluster: Cluster | undefined;
let ctrd: PrivateContainerd | undefined;
let agent: CRIAgent | undefined;
const work = mkdtempSync(join(tmpdir(), 'k8ts-e2e-probes-'));
const timings: Record<string, number> = {};

const getPod = async (name: string): Promise<any> => JSON.parse((await cluster!.kubectl(['get', 'pod', name, '-o', 'json'])).stdout);
const condition = (pod: any, type: string) => pod.status?.conditions?.find((c: any) => c.type === type)?.status;

async function createPod(name: string, container: Record<string, unknown>): Promise<void> {
  const pod = {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
    spec: { nodeName, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: busyboxImage, ...container }] },
  };
  await cluster!.kubectl(['create', '-f', '-'], { input: JSON.stringify(pod) });
}

async function podEvents(name: string): Promise<any[]> {
  const list = JSON.parse((await cluster!.kubectl(['get', 'events', '--field-selector', `involvedObject.name=${name}`, '-o', 'json'])).stdout);
  return list.items;
}

before(async () => {
  ctrd = await startContainerd();
  cluster = await startCluster({ controllers: 'root-ca-cert-publisher' }); // pods mount kube-root-ca.crt (kube-api-access)
  agent = startCRIAgent({ cluster, ctrd, nodeName, work });
  await nodeReady(cluster, nodeName);
});

after(async () => {
  await agent?.stop();
  await cluster?.cleanup().catch(() => {});
  await ctrd?.stop();
  rmSync(work, { recursive: true, force: true });
  if (Object.keys(timings).length) console.log('# probe timings (ms):', JSON.stringify(timings));
});

describe('probes on the CRI runtime', () => {
  test('an exec readiness probe gates Ready: Running but not Ready until the file exists', async () => {
    await createPod('ready-exec', {
      command: ['sh', '-c', 'sleep 4; touch /tmp/ready; sleep 3600'],
      readinessProbe: { exec: { command: ['test', '-f', '/tmp/ready'] }, periodSeconds: 1 },
    });
    const running = await eventually(async () => { const p = await getPod('ready-exec'); return p.status?.phase === 'Running' && p; }, 30_000, 'Running');
    const startedAt = Date.parse(running.status.containerStatuses[0].state.running.startedAt);
    assert.equal(running.status.containerStatuses[0].ready, false, 'not ready before the probe succeeds');
    assert.equal(condition(running, 'Ready'), 'False');
    assert.equal(condition(running, 'ContainersReady'), 'False');
    const ready = await eventually(async () => { const p = await getPod('ready-exec'); return condition(p, 'Ready') === 'True' && p; }, 30_000, 'Ready');
    assert.equal(ready.status.containerStatuses[0].ready, true);
    assert.equal(condition(ready, 'ContainersReady'), 'True');
    const readyAt = Date.parse(ready.status.conditions.find((c: any) => c.type === 'Ready').lastTransitionTime);
    timings.startToReady = readyAt - startedAt;
    assert.ok(readyAt - startedAt >= 3000, `ready ${readyAt - startedAt} ms after start, the file appears after 4 s`);
    assert.equal(ready.status.containerStatuses[0].restartCount, 0);
    const wide = (await cluster!.kubectl(['get', 'pod', 'ready-exec'])).stdout;
    assert.match(wide, /ready-exec\s+1\/1\s+Running/);
  });

  test('a failing liveness probe restarts the container: restartCount grows, Unhealthy and Killing events', async () => {
    await createPod('live-exec', {
      command: ['sh', '-c', 'touch /tmp/healthy; sleep 3; rm /tmp/healthy; sleep 3600'],
      livenessProbe: { exec: { command: ['test', '-f', '/tmp/healthy'] }, periodSeconds: 1, failureThreshold: 2 },
    });
    const t0 = Date.now();
    const restarted = await eventually(async () => {
      const p = await getPod('live-exec');
      const s = p.status?.containerStatuses?.[0];
      return s?.restartCount >= 1 && s.state?.running && p;
    }, 60_000, 'restarted after the liveness probe failed');
    timings.livenessRestart = Date.now() - t0;
    const s = restarted.status.containerStatuses[0];
    assert.equal(s.lastState.terminated.exitCode, 137, 'sh ignores SIGTERM: killed after the grace period');
    assert.equal(s.ready, true, 'no readiness probe: the new instance is ready');
    assert.match(agent!.log(), /killing container after failed probe/);
    const events = await eventually(async () => {
      const ev = await podEvents('live-exec');
      return ev.some((e) => e.reason === 'Killing') && ev.some((e) => e.reason === 'Unhealthy') && ev;
    }, 10_000, 'events');
    const unhealthy = events.find((e) => e.reason === 'Unhealthy');
    assert.equal(unhealthy.type, 'Warning');
    assert.match(unhealthy.message, /^Liveness probe failed: /);
    const killing = events.find((e) => e.reason === 'Killing');
    assert.equal(killing.message, 'Container main failed liveness probe, will be restarted');
    assert.equal(killing.involvedObject.fieldPath, 'spec.containers{main}');
    // Two started instances, so Started was recorded for each.
    const started = events.filter((e) => e.reason === 'Started').reduce((n, e) => n + (e.count ?? 1), 0);
    assert.ok(started >= 2, `Started events: ${started}`);
  });

  test('a startup probe holds liveness back: no restart while the container starts slowly', async () => {
    await createPod('startup-exec', {
      command: ['sh', '-c', 'sleep 5; touch /tmp/started; sleep 3600'],
      startupProbe: { exec: { command: ['test', '-f', '/tmp/started'] }, periodSeconds: 1, failureThreshold: 30 },
      // Without the startup probe this liveness probe would kill the container at its first check.
      livenessProbe: { exec: { command: ['test', '-f', '/tmp/started'] }, periodSeconds: 1, failureThreshold: 1 },
    });
    const starting = await eventually(async () => {
      const p = await getPod('startup-exec');
      return p.status?.containerStatuses?.[0]?.state?.running && p;
    }, 30_000, 'running');
    const s0 = starting.status.containerStatuses[0];
    assert.equal(s0.started, false, 'not started before the startup probe succeeds');
    assert.equal(s0.ready, false);
    const started = await eventually(async () => {
      const p = await getPod('startup-exec');
      return p.status.containerStatuses[0].started === true && p;
    }, 40_000, 'started');
    assert.equal(started.status.containerStatuses[0].restartCount, 0);
    assert.equal(started.status.containerStatuses[0].ready, true);
    assert.equal(condition(started, 'Ready'), 'True');
    // Liveness now runs and passes; still no restart and no Killing a few periods later.
    const live = await eventually(async () => {
      const ev = await podEvents('startup-exec');
      return ev.some((e) => e.reason === 'Unhealthy' && /^Startup probe failed: /.test(e.message)) && ev;
    }, 10_000, 'Unhealthy startup events');
    assert.ok(!live.some((e) => e.reason === 'Killing'));
    assert.ok(!live.some((e) => /^Liveness probe failed/.test(e.message ?? '')), 'liveness never ran before the startup probe passed');
    assert.equal((await getPod('startup-exec')).status.containerStatuses[0].restartCount, 0);
  });

  test('an httpGet readiness probe follows what the endpoint answers', async () => {
    let code = 503;
    const seen: { ua?: string; path?: string }[] = [];
    const server: Server = createServer((req, res) => {
      seen.push({ ua: req.headers['user-agent'], path: req.url });
      res.writeHead(code); res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    try {
      await createPod('ready-http', {
        command: ['sh', '-c', 'sleep 3600'],
        readinessProbe: { httpGet: { host: '127.0.0.1', port, path: '/healthz' }, periodSeconds: 1, failureThreshold: 1 },
      });
      const running = await eventually(async () => {
        const p = await getPod('ready-http');
        return p.status?.phase === 'Running' && seen.length >= 2 && p;
      }, 30_000, 'Running and probed');
      assert.equal(condition(running, 'Ready'), 'False', 'a 503 is not ready');
      assert.deepEqual(seen[0], { ua: 'kube-probe/1.32', path: '/healthz' });
      code = 200;
      await eventually(async () => condition(await getPod('ready-http'), 'Ready') === 'True', 20_000, 'Ready after 200');
      code = 500;
      await eventually(async () => condition(await getPod('ready-http'), 'Ready') === 'False', 20_000, 'not Ready after 500');
      const ev = await eventually(async () => {
        const e = await podEvents('ready-http');
        return e.some((x) => x.reason === 'Unhealthy' && x.message === 'Readiness probe failed: HTTP probe failed with statuscode: 500') && e;
      }, 10_000, 'Unhealthy event for the 500');
      assert.ok(ev.length > 0);
    } finally {
      await cluster!.kubectl(['delete', 'pod', 'ready-http', '--wait=false'], { allowFail: true });
      server.closeAllConnections();
      server.close();
    }
  });
});
