/**
 * A real node: `k8ts agent --runtime cri` runs pods as containers of a
 * private containerd (containerd.ts) and the real kubectl sees them.
 *
 * Arrangement: the k8ts server (harness, 127.0.0.1), the agent and kubectl
 * run in the host network namespace and talk over loopback; containerd runs
 * in a network namespace this test creates, so the CNI bridge, every pod
 * address and any image-pull attempt exist only there. The agent reaches
 * containerd through its unix socket (a file, not a network address).
 * Pods name their node in spec.nodeName, so no scheduler is needed.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, eventually, type Cluster } from './harness.js';
import { nodeReady, startCRIAgent, type CRIAgent } from './real-node.js';
import { startContainerd, busyboxImage, type PrivateContainerd } from './containerd.js';
import { labelNodeName, labelPodUID } from '../../src/kubelet/runtime/cri/config.js';

const nodeName = 'cri-node';
let cluster: Cluster | undefined;
let ctrd: PrivateContainerd | undefined;
let agent: CRIAgent | undefined;
const work = mkdtempSync(join(tmpdir(), 'k8ts-e2e-cri-'));
const podLogsDir = join(work, 'pods');
const rootDir = join(work, 'kubelet');
const hostDir = join(work, 'host');
mkdirSync(hostDir);

const startAgent = () => startCRIAgent({ cluster: cluster!, ctrd: ctrd!, nodeName, work, rootDir, podLogsDir });

async function stopAgent(): Promise<void> {
  const a = agent;
  agent = undefined;
  await a?.stop();
}

const getPod = async (name: string): Promise<any> => JSON.parse((await cluster!.kubectl(['get', 'pod', name, '-o', 'json'])).stdout);

function podYAML(name: string, container: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
    spec: { nodeName, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: busyboxImage, ...container }], ...extra },
  });
}

const timings: Record<string, number> = {};

before(async () => {
  ctrd = await startContainerd();
  cluster = await startCluster({ controllers: 'root-ca-cert-publisher' }); // pods mount kube-root-ca.crt (kube-api-access)
  agent = startAgent();
  await nodeReady(cluster, nodeName);
});

after(async () => {
  await stopAgent().catch(() => {});
  await cluster?.cleanup().catch(() => {});
  await ctrd?.stop();
  rmSync(work, { recursive: true, force: true });
  if (Object.keys(timings).length) console.log('# cri timings (ms):', JSON.stringify(timings));
});

describe('k8ts agent --runtime cri (containerd)', () => {
  test('the node reports the runtime, the host capacity, OS image and kernel', async () => {
    const node = JSON.parse((await cluster!.kubectl(['get', 'node', nodeName, '-o', 'json'])).stdout);
    assert.match(node.status.nodeInfo.containerRuntimeVersion, /^containerd:\/\/1\.\d+/);
    assert.notEqual(node.status.nodeInfo.osImage, 'k8ts simulated node');
    assert.equal(node.metadata.annotations?.['k8ts.io/simulated'], undefined);
    assert.match(node.status.capacity.memory, /^\d+Ki$/);
    assert.ok(Number(node.status.capacity.cpu) >= 1);
    const wide = (await cluster!.kubectl(['get', 'nodes', '-o', 'wide'])).stdout;
    assert.match(wide, /CONTAINER-RUNTIME/);
    assert.match(wide, new RegExp(`${nodeName}\\s.*containerd://1\\.`));
  });

  test('a pod runs: Running, a pod IP from the CNI bridge, its output in the CRI log file', async () => {
    const t0 = Date.now();
    await cluster!.kubectl(['create', '-f', '-'], { input: podYAML('hello', { command: ['sh', '-c', 'echo hello; sleep 3600'] }) });
    const pod = await eventually(async () => { const p = await getPod('hello'); return p.status?.phase === 'Running' && p; }, 30_000, 'hello Running');
    timings.createToRunning = Date.now() - t0;
    assert.match(pod.status.podIP, /^10\.244\.0\.\d+$/);
    assert.match(pod.status.containerStatuses[0].containerID, /^containerd:\/\/[0-9a-f]{64}$/);
    assert.equal(pod.status.containerStatuses[0].ready, true);
    const logFile = join(podLogsDir, `default_hello_${pod.metadata.uid}`, 'main', '0.log');
    const text = await eventually(async () => { try { const t = readFileSync(logFile, 'utf8'); return t.includes('hello') && t; } catch { return false; } }, 10_000, 'log line');
    assert.match(text, /stdout F hello/);
    // The same log through the API server and the kubelet's API, as a user reads it.
    const logs = await cluster!.kubectl(['logs', 'hello']);
    assert.equal(logs.stdout, 'hello\n');
    const stamped = await cluster!.kubectl(['logs', 'hello', '--timestamps']);
    assert.match(stamped.stdout, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z hello\n$/);
    const sandbox = /"pod sandbox started".*"durationMs":(\d+)/.exec(agent!.log());
    if (sandbox) timings.runPodSandbox = Number(sandbox[1]);
  });

  test('hostNetwork, env, workingDir and a hostPath and an emptyDir volume', async () => {
    await cluster!.kubectl(['create', '-f', '-'], {
      input: podYAML('vols', {
        command: ['sh', '-c', 'echo "$GREETING from $(pwd) on $POD" > /host/out.txt; echo kept > /scratch/x; cat /scratch/x >> /host/out.txt; sleep 3600'],
        workingDir: '/tmp',
        env: [{ name: 'GREETING', value: 'hi' }, { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
        volumeMounts: [{ name: 'host', mountPath: '/host' }, { name: 'scratch', mountPath: '/scratch' }],
      }, {
        hostNetwork: true,
        volumes: [{ name: 'host', hostPath: { path: hostDir, type: 'Directory' } }, { name: 'scratch', emptyDir: {} }],
      }),
    });
    const pod = await eventually(async () => { const p = await getPod('vols'); return p.status?.phase === 'Running' && p; }, 30_000, 'vols Running');
    assert.equal(pod.status.podIP, '127.0.0.1', 'a hostNetwork pod has the node IP');
    const out = await eventually(async () => { try { return readFileSync(join(hostDir, 'out.txt'), 'utf8').includes('kept') && readFileSync(join(hostDir, 'out.txt'), 'utf8'); } catch { return false; } }, 10_000, 'out.txt');
    assert.equal(out, 'hi from /tmp on vols\nkept\n');
  });

  test('init containers run in order to completion before the containers', async () => {
    await cluster!.kubectl(['create', '-f', '-'], {
      input: podYAML('init', { command: ['sh', '-c', 'cat /work/order; sleep 3600'], volumeMounts: [{ name: 'work', mountPath: '/work' }] }, {
        initContainers: [
          { name: 'first', image: busyboxImage, command: ['sh', '-c', 'echo first >> /work/order'], volumeMounts: [{ name: 'work', mountPath: '/work' }] },
          { name: 'second', image: busyboxImage, command: ['sh', '-c', 'sleep 1; echo second >> /work/order'], volumeMounts: [{ name: 'work', mountPath: '/work' }] },
        ],
        volumes: [{ name: 'work', emptyDir: {} }],
      }),
    });
    const pod = await eventually(async () => { const p = await getPod('init'); return p.status?.phase === 'Running' && p; }, 30_000, 'init Running');
    assert.deepEqual(pod.status.initContainerStatuses.map((s: any) => [s.name, s.state.terminated?.reason, s.state.terminated?.exitCode]), [['first', 'Completed', 0], ['second', 'Completed', 0]]);
    const logFile = join(podLogsDir, `default_init_${pod.metadata.uid}`, 'main', '0.log');
    await eventually(async () => { try { return /first\n.*second/.test(readFileSync(logFile, 'utf8')); } catch { return false; } }, 10_000, 'main saw both init outputs in order');
  });

  test('a missing image: ErrImagePull, then ImagePullBackOff', async () => {
    await cluster!.kubectl(['create', '-f', '-'], { input: podYAML('noimage', { image: 'k8ts.local/does-not-exist:1', command: ['true'] }) });
    const seen = new Set<string>();
    await eventually(async () => {
      const p = await getPod('noimage');
      const w = p.status?.containerStatuses?.[0]?.state?.waiting;
      if (w?.reason === 'ErrImagePull') assert.match(w.message, /^rpc error: code = \w+ desc = .*k8ts\.local\/does-not-exist:1/);
      if (w?.reason === 'ImagePullBackOff') assert.equal(w.message, 'Back-off pulling image "k8ts.local/does-not-exist:1"');
      if (w?.reason) seen.add(w.reason);
      assert.equal(p.status.phase, 'Pending');
      return seen.has('ErrImagePull') && seen.has('ImagePullBackOff');
    }, 60_000, 'ErrImagePull and ImagePullBackOff');
    const table = (await cluster!.kubectl(['get', 'pod', 'noimage'])).stdout;
    assert.match(table, /ErrImagePull|ImagePullBackOff/);
  });

  test('a container that exits 1 is restarted with back-off and shows Error', async () => {
    await cluster!.kubectl(['create', '-f', '-'], { input: podYAML('crash', { command: ['sh', '-c', 'echo crashing; exit 1'] }) });
    const states = new Set<string>();
    const pod = await eventually(async () => {
      const p = await getPod('crash');
      const s = p.status?.containerStatuses?.[0];
      if (s?.state?.waiting?.reason) states.add(s.state.waiting.reason);
      if (s?.state?.terminated?.reason) states.add(s.state.terminated.reason);
      return s?.restartCount >= 2 && p;
    }, 40_000, 'restartCount >= 2');
    const s = pod.status.containerStatuses[0];
    assert.equal(s.lastState.terminated.exitCode, 1);
    assert.equal(s.lastState.terminated.reason, 'Error');
    assert.ok(states.has('CrashLoopBackOff'), `saw ${[...states]}`);
    // Between a restart and the next relist the new instance shows Running for a moment.
    await eventually(async () => /crash\s+0\/1\s+(Error|CrashLoopBackOff)\s+[2-9]/.test((await cluster!.kubectl(['get', 'pod', 'crash'])).stdout), 10_000, 'STATUS Error or CrashLoopBackOff');
  });

  test('restarting the agent keeps the containers (same container IDs)', async () => {
    const before = (await getPod('hello')).status.containerStatuses[0];
    await stopAgent();
    const running = await ctrd!.client.listContainers({ labelSelector: { [labelNodeName]: nodeName }, state: { state: 'CONTAINER_RUNNING' } });
    assert.ok(running.some((c) => `containerd://${c.id}` === before.containerID), 'the container keeps running without the agent');
    agent = startAgent();
    await eventually(async () => agent!.log().includes('adopted pod from the container runtime'), 20_000, 'adoption');
    await cluster!.kubectl(['label', 'pod', 'hello', 'touched=yes']);
    await eventually(async () => /"node agent running"/.test(agent!.log()), 20_000, 'agent running');
    const after = (await getPod('hello')).status.containerStatuses[0];
    assert.equal(after.containerID, before.containerID);
    assert.equal(after.restartCount, 0);
    assert.equal((await getPod('hello')).status.phase, 'Running');
  });

  test('deleting a pod stops and removes its containers and sandbox', async () => {
    const uid = (await getPod('hello')).metadata.uid;
    const t0 = Date.now();
    await cluster!.kubectl(['delete', 'pod', 'hello', '--wait=true']);
    timings.deletePod = Date.now() - t0;
    await eventually(async () => {
      const sel = { labelSelector: { [labelPodUID]: uid } };
      const [cs, ss] = await Promise.all([ctrd!.client.listContainers(sel), ctrd!.client.listPodSandbox(sel)]);
      return cs.length === 0 && ss.length === 0;
    }, 20_000, 'containers and sandbox removed');
  });
});
