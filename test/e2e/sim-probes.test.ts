/**
 * Probes and per-container crashes on a simulated node, checked with the real
 * kubectl: a liveness probe steered to fail (k8ts.io/sim-liveness-fail)
 * restarts only its container with the Killing event and the crash back-off;
 * a readiness window (k8ts.io/sim-readiness-fail) flips Ready off and on
 * without a restart; a crash that names a container (k8ts.io/sim-fail-after
 * "a=1s") ends or restarts that container alone, by restartPolicy. Every
 * wait is on a condition; probe periods are 1 s.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, type Cluster } from './harness.js';
import { Clientset, loadKubeconfig } from '../../src/client/index.js';
import { NodeSimulator } from '../../src/kubelet/index.js';
import { silentLogger } from '../../src/util/log.js';

const node = 'sim-node-0';
const httpProbe = (extra: Record<string, number> = {}) => ({ httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 1, ...extra });

describe('simulated node: steered probes and per-container crashes (kubectl)', () => {
  let cluster: Cluster;
  let clients: Clientset;
  let sim: NodeSimulator;

  before(async () => {
    cluster = await startCluster();
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
    sim = new NodeSimulator(clients, { count: 1, renewIntervalMs: 1000, logger: silentLogger });
    await sim.start();
  });

  after(async () => {
    await sim?.close();
    clients?.close();
    await cluster?.cleanup();
  });

  const apply = (manifest: unknown) => cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify(manifest) });
  const getPod = async (name: string) => JSON.parse((await cluster.kubectl(['get', 'pod', name, '-o', 'json'])).stdout);
  const status = (pod: any, name: string) => pod.status.containerStatuses?.find((s: any) => s.name === name);
  const events = async (name: string) => JSON.parse((await cluster.kubectl(['get', 'events', '--field-selector', `involvedObject.name=${name}`, '-o', 'json'])).stdout).items
    .map((e: any) => `${e.reason}: ${e.message}`) as string[];

  it('a failing liveness probe restarts only its container: Killing event, restartCount, CrashLoopBackOff', async () => {
    await apply({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'live', annotations: { 'k8ts.io/sim-liveness-fail': 'app=2s' } },
      spec: {
        nodeName: node,
        containers: [
          { name: 'app', image: 'nginx:1.27', livenessProbe: httpProbe({ failureThreshold: 2 }) },
          { name: 'side', image: 'nginx:1.27', livenessProbe: httpProbe() },
        ],
      },
    });
    const pod = await eventually(async () => {
      const p = await getPod('live');
      return (status(p, 'app')?.restartCount ?? 0) >= 1 ? p : undefined;
    }, 90_000, 'app restarted');
    assert.equal(status(pod, 'app').lastState.terminated.exitCode, 137);
    assert.equal(status(pod, 'side').restartCount, 0);
    assert.ok(status(pod, 'side').state.running);
    const seen = await eventually(async () => {
      const e = await events('live');
      return e.includes('Killing: Container app failed liveness probe, will be restarted') ? e : undefined;
    }, 60_000, 'Killing event');
    assert.ok(seen.includes('Unhealthy: Liveness probe failed: HTTP probe failed with statuscode: 500'), seen.join('\n'));
    // Each new instance fails again 2 s after its start: the restart waits the back-off.
    await eventually(async () => {
      const { stdout } = await cluster.kubectl(['get', 'pod', 'live', '--no-headers']);
      return stdout.split(/\s+/)[2] === 'CrashLoopBackOff';
    }, 90_000, 'STATUS CrashLoopBackOff');
    assert.equal(status(await getPod('live'), 'side').restartCount, 0);
    await cluster.kubectl(['delete', 'pod', 'live', '--timeout=30s']);
  });

  it('a readiness probe failing for a window turns Ready off and on again without a restart', async () => {
    await apply({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'ready-window', annotations: { 'k8ts.io/sim-readiness-fail': '3s-15s' } },
      spec: { nodeName: node, containers: [{ name: 'app', image: 'nginx:1.27', readinessProbe: httpProbe({ failureThreshold: 1 }) }] },
    });
    await cluster.kubectl(['wait', '--for=condition=Ready=false', 'pod/ready-window', '--timeout=60s']);
    await eventually(async () => (await events('ready-window')).includes('Unhealthy: Readiness probe failed: HTTP probe failed with statuscode: 500'), 60_000, 'Unhealthy event');
    const pod = await getPod('ready-window');
    assert.ok(status(pod, 'app').state.running);
    await cluster.kubectl(['wait', '--for=condition=Ready', 'pod/ready-window', '--timeout=90s']);
    assert.equal(status(await getPod('ready-window'), 'app').restartCount, 0);
    await cluster.kubectl(['delete', 'pod', 'ready-window', '--timeout=30s']);
  });

  const twoContainers = (name: string, restartPolicy: string) => ({
    apiVersion: 'v1', kind: 'Pod',
    // sim-complete-after keeps a Never pod from running to completion on its own after 1 s.
    metadata: { name, annotations: { 'k8ts.io/sim-fail-after': 'a=1s', 'k8ts.io/sim-complete-after': '1h' } },
    spec: { nodeName: node, restartPolicy, containers: [{ name: 'a', image: 'nginx:1.27' }, { name: 'b', image: 'nginx:1.27' }] },
  });

  it('restartPolicy Never: the named container ends Error, the other runs on, the pod stays Running', async () => {
    await apply(twoContainers('crash-never', 'Never'));
    const pod = await eventually(async () => {
      const p = await getPod('crash-never');
      return status(p, 'a')?.state?.terminated ? p : undefined;
    }, 60_000, 'container a terminated');
    assert.deepEqual([status(pod, 'a').state.terminated.exitCode, status(pod, 'a').state.terminated.reason, status(pod, 'a').restartCount], [1, 'Error', 0]);
    assert.ok(status(pod, 'b').state.running);
    assert.equal(pod.status.phase, 'Running');
    const { stdout } = await cluster.kubectl(['get', 'pod', 'crash-never', '--no-headers']);
    assert.equal(stdout.split(/\s+/)[1], '1/2');
    await cluster.kubectl(['delete', 'pod', 'crash-never', '--timeout=30s']);
  });

  it('restartPolicy Always: only the named container restarts, into CrashLoopBackOff', async () => {
    await apply(twoContainers('crash-always', 'Always'));
    await eventually(async () => {
      const p = await getPod('crash-always');
      return status(p, 'a')?.state?.waiting?.reason === 'CrashLoopBackOff' ? p : undefined;
    }, 90_000, 'container a in CrashLoopBackOff');
    const pod = await getPod('crash-always');
    assert.ok(status(pod, 'a').restartCount >= 1);
    assert.equal(status(pod, 'a').lastState.terminated.exitCode, 1);
    assert.deepEqual([status(pod, 'b').restartCount, !!status(pod, 'b').state.running], [0, true]);
    assert.equal(pod.status.phase, 'Running');
    await cluster.kubectl(['delete', 'pod', 'crash-always', '--timeout=30s']);
  });
});
