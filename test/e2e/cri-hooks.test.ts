/**
 * Lifecycle hooks on a real node: `k8ts agent --runtime cri` over a private
 * containerd (containerd.ts), driven with the real kubectl. The preStop hooks
 * leave their mark in a hostPath directory the test reads (containerd shares
 * the host's mount namespace; only the network is private), or call an HTTP
 * server the test runs on 127.0.0.1 (the agent makes httpGet calls from the
 * host network namespace).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Container } from 'kubernetes-types/core/v1.js';
import { startCluster, eventually, type Cluster } from './harness.js';
import { startContainerd, busyboxImage, type PrivateContainerd } from './containerd.js';
import { nodeReady, startCRIAgent, type CRIAgent } from './real-node.js';

const nodeName = 'hooks-node';
let cluster: Cluster | undefined;
let ctrd: PrivateContainerd | undefined;
let agent: CRIAgent | undefined;
let server: Server | undefined;
const hits: string[] = [];
const work = mkdtempSync(join(tmpdir(), 'k8ts-e2e-hooks-'));
const shared = join(work, 'shared');

const getPod = async (name: string): Promise<any> => JSON.parse((await cluster!.kubectl(['get', 'pod', name, '-o', 'json'])).stdout);

async function createPod(name: string, container: Partial<Container>, grace = 10): Promise<void> {
  const pod = {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
    spec: {
      nodeName, terminationGracePeriodSeconds: grace,
      volumes: [{ name: 'shared', hostPath: { path: shared, type: 'Directory' } }],
      containers: [{ name: 'main', image: busyboxImage, volumeMounts: [{ name: 'shared', mountPath: '/shared' }], ...container }],
    },
  };
  await cluster!.kubectl(['create', '-f', '-'], { input: JSON.stringify(pod) });
}

const running = (name: string) => eventually(async () => {
  const p = await getPod(name);
  return p.status?.containerStatuses?.[0]?.state?.running && p;
}, 90_000, `${name} running`);

async function podEvents(name: string): Promise<any[]> {
  return JSON.parse((await cluster!.kubectl(['get', 'events', '--field-selector', `involvedObject.name=${name}`, '-o', 'json'])).stdout).items;
}

async function deleteAndWait(name: string): Promise<void> {
  await cluster!.kubectl(['delete', 'pod', name, '--wait=false']);
  await eventually(async () => (await cluster!.kubectl(['get', 'pod', name], { allowFail: true })).code !== 0, 120_000, `${name} gone`);
}

before(async () => {
  mkdirSync(shared);
  server = createServer((req, res) => { hits.push(req.url ?? ''); res.end('ok'); });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  ctrd = await startContainerd();
  cluster = await startCluster({ controllers: 'root-ca-cert-publisher' });
  agent = startCRIAgent({ cluster, ctrd, nodeName, work });
  await nodeReady(cluster, nodeName, 60_000);
});

after(async () => {
  await agent?.stop();
  await cluster?.cleanup().catch(() => {});
  await ctrd?.stop();
  server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('lifecycle hooks on the CRI runtime', () => {
  test('postStart exec runs in the container after it starts: the main command sees its file', async () => {
    await createPod('poststart', {
      command: ['sh', '-c', 'while [ ! -f /tmp/hooked ]; do sleep 0.2; done; echo "saw $(cat /tmp/hooked)"; sleep 3600'],
      lifecycle: { postStart: { exec: { command: ['sh', '-c', 'echo from-poststart > /tmp/hooked'] } } },
    });
    await running('poststart');
    const logs = await eventually(async () => {
      const r = await cluster!.kubectl(['logs', 'poststart'], { allowFail: true });
      return r.code === 0 && r.stdout.includes('saw') && r.stdout;
    }, 60_000, 'the main command saw the hook file');
    assert.equal(logs, 'saw from-poststart\n');
    assert.equal((await getPod('poststart')).status.containerStatuses[0].restartCount, 0);
  });

  test('a failing postStart hook: FailedPostStartHook event, the container is killed and restarted', async () => {
    await createPod('poststart-fail', {
      command: ['sleep', '3600'],
      lifecycle: { postStart: { exec: { command: ['sh', '-c', 'echo nope; exit 3'] } } },
    }, 2);
    const ev = await eventually(async () => {
      const list = await podEvents('poststart-fail');
      return list.find((e) => e.reason === 'FailedPostStartHook');
    }, 90_000, 'FailedPostStartHook');
    assert.equal(ev.type, 'Warning');
    assert.equal(ev.involvedObject.fieldPath, 'spec.containers{main}');
    assert.match(ev.message, /^Exec lifecycle hook \(\[sh -c echo nope; exit 3\]\) for Container "main" in Pod "poststart-fail_default\(.*\)" failed - error: command 'sh -c echo nope; exit 3' exited with 3: nope/);
    const p = await eventually(async () => {
      const pod = await getPod('poststart-fail');
      const s = pod.status?.containerStatuses?.[0];
      return s?.restartCount >= 1 && s.lastState?.terminated && pod;
    }, 120_000, 'restarted after the failed hook');
    assert.equal(p.status.containerStatuses[0].lastState.terminated.exitCode, 137, 'sleep ignores nothing but is PID 1: SIGKILL after the grace period');
  });

  test('preStop exec runs before SIGTERM: the main process reads what the hook wrote', async () => {
    await createPod('prestop', {
      command: ['sh', '-c', "trap 'cat /shared/prestop > /shared/term-saw; exit 0' TERM; echo up; while true; do sleep 0.2; done"],
      lifecycle: { preStop: { exec: { command: ['sh', '-c', 'echo bye > /shared/prestop'] } } },
    });
    await running('prestop');
    await deleteAndWait('prestop');
    assert.equal(readFileSync(join(shared, 'prestop'), 'utf8'), 'bye\n');
    assert.equal(readFileSync(join(shared, 'term-saw'), 'utf8'), 'bye\n', 'SIGTERM came after the hook finished');
  });

  test('preStop httpGet calls the host and path from the node; preStop sleep waits, then the pod goes', async () => {
    const port = (server!.address() as AddressInfo).port;
    await createPod('prestop-http', {
      command: ['sleep', '3600'],
      lifecycle: { preStop: { httpGet: { host: '127.0.0.1', port, path: '/prestop?pod=prestop-http' } } },
    }, 3);
    await createPod('prestop-sleep', {
      command: ['sh', '-c', "trap 'echo term > /shared/sleep-term; exit 0' TERM; while true; do sleep 0.2; done"],
      lifecycle: { preStop: { sleep: { seconds: 1 } } },
    });
    await running('prestop-http');
    await running('prestop-sleep');
    await deleteAndWait('prestop-http');
    assert.ok(hits.includes('/prestop?pod=prestop-http'), `hits: ${JSON.stringify(hits)}`);
    await deleteAndWait('prestop-sleep');
    assert.equal(readFileSync(join(shared, 'sleep-term'), 'utf8'), 'term\n', 'SIGTERM after the sleep, within the grace period');
  });

  test('a failing preStop hook records FailedPreStopHook and the container still stops', async () => {
    await createPod('prestop-fail', {
      command: ['sleep', '3600'],
      lifecycle: { preStop: { exec: { command: ['sh', '-c', 'exit 7'] } } },
    }, 2);
    await running('prestop-fail');
    await cluster!.kubectl(['delete', 'pod', 'prestop-fail', '--wait=false']);
    const ev = await eventually(async () => (await podEvents('prestop-fail')).find((e) => e.reason === 'FailedPreStopHook'), 90_000, 'FailedPreStopHook');
    assert.equal(ev.type, 'Warning');
    assert.match(ev.message, /^Exec lifecycle hook \(\[sh -c exit 7\]\) for Container "main" in Pod "prestop-fail_default\(.*\)" failed - error: command 'sh -c exit 7' exited with 7/);
    await eventually(async () => (await cluster!.kubectl(['get', 'pod', 'prestop-fail'], { allowFail: true })).code !== 0, 120_000, 'prestop-fail gone');
  });
});
