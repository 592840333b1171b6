/**
 * The static-pod lifecycle of the seed note (004: "Static Pods") on real
 * containers: a `k8ts agent --runtime cri --pod-manifest-path DIR` on a
 * private containerd, a real `k8ts server` and the real kubectl. The file
 * becomes a running container with a mirror pod; the mirror cannot be edited
 * and comes back when deleted while the container keeps its ID; a container
 * that exits is restarted; editing the file replaces the container; removing
 * it stops the container; with the control plane stopped the container keeps
 * running, and the mirror is published again when the server is back.
 * (test/e2e/staticpods.test.ts runs the same story on a simulated node, with
 * the standalone kubelet and broken manifests.)
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { eventually, startCluster, type Cluster } from './harness.js';
import { startContainerd, busyboxImage, type PrivateContainerd } from './containerd.js';
import { startCRIAgent, nodeReady, type CRIAgent } from './real-node.js';
import { freePort } from './kubeadm-node.js';

const node = 'sp-cri';
const work = mkdtempSync(join(tmpdir(), 'k8ts-e2e-static-cri-'));
const dataDir = join(work, 'data');
const manifests = join(work, 'manifests');
const mirrorName = `static-web-${node}`;
let cluster: Cluster;
let ctrd: PrivateContainerd;
let agent: CRIAgent;
let port: string;

/** The seed note's static pod, on the local busybox; `script` is what the container runs. */
const staticWeb = (script: string) => `apiVersion: v1
kind: Pod
metadata:
  name: static-web
  labels:
    app: web
spec:
  containers:
  - name: web-container
    image: ${busyboxImage}
    command: ["sh", "-c", ${JSON.stringify(script)}]
`;
const serve = (tag: string) => `echo ${tag}; trap 'exit 0' TERM; while true; do sleep 1 & wait $!; done`;

async function getPod(name: string): Promise<Pod | undefined> {
  const r = await cluster.kubectl(['get', 'pod', name, '-o', 'json'], { allowFail: true });
  return r.code === 0 ? JSON.parse(r.stdout) : undefined;
}

const containerIDOf = (pod: Pod | undefined) => pod?.status?.containerStatuses?.[0]?.containerID;
const running = (pod: Pod | undefined) => pod?.status?.phase === 'Running' && pod.status.containerStatuses?.[0]?.state?.running ? pod : undefined;

/** The containers containerd runs for the static pod (by the kubelet's pod-name label), running ones only. */
async function runningContainers(): Promise<string[]> {
  const all = await ctrd.client.listContainers();
  return all.filter((c) => c.labels['io.kubernetes.pod.name'] === mirrorName && c.state === 'CONTAINER_RUNNING').map((c) => c.id);
}

before(async () => {
  mkdirSync(dataDir);
  mkdirSync(manifests);
  port = String(await freePort());
  ctrd = await startContainerd();
  cluster = await startCluster({ dataDir, controllers: 'all', extraArgs: ['--port', port] });
  agent = startCRIAgent({ cluster, ctrd, nodeName: node, work, extraArgs: ['--pod-manifest-path', manifests, '--file-check-frequency', '1s', '--sync-frequency', '1s'] });
  await nodeReady(cluster, node, 60_000);
});

after(async () => {
  await agent?.stop();
  await cluster?.stop();
  await ctrd?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('static pods on containerd', () => {
  let containerID: string;

  it('a manifest file becomes a running container and a mirror pod <name>-<node>', async () => {
    writeFileSync(join(manifests, 'static-web.yaml'), staticWeb(serve('one')));
    const pod = await eventually(async () => running(await getPod(mirrorName)), 120_000, 'the mirror Running');
    assert.equal(pod.metadata!.annotations!['kubernetes.io/config.source'], 'file');
    assert.equal(pod.metadata!.annotations!['kubernetes.io/config.mirror'], pod.metadata!.annotations!['kubernetes.io/config.hash']);
    containerID = containerIDOf(pod)!;
    assert.match(containerID, /^containerd:\/\/[0-9a-f]{64}$/);
    assert.deepEqual(await runningContainers(), [containerID.slice('containerd://'.length)]);
    assert.equal((await cluster.kubectl(['logs', mirrorName])).stdout, 'one\n');
  });

  it('the mirror cannot be edited; deleting it brings it back and the container keeps running', async () => {
    const patch = await cluster.kubectl(['patch', 'pod', mirrorName, '-p', JSON.stringify({ spec: { restartPolicy: 'Never' } })], { allowFail: true });
    assert.notEqual(patch.code, 0);
    assert.match(patch.stderr, /spec: Forbidden: pod updates may not change fields other than/);
    const before = (await getPod(mirrorName))!;
    await cluster.kubectl(['delete', 'pod', mirrorName, '--timeout=60s']);
    const back = await eventually(async () => {
      const p = running(await getPod(mirrorName));
      return p && p.metadata!.uid !== before.metadata!.uid ? p : undefined;
    }, 60_000, 'the mirror recreated');
    assert.equal(containerIDOf(back), containerID, 'the static pod was never touched');
  });

  it('a container that exits is restarted, with the restart counted', async () => {
    writeFileSync(join(manifests, 'static-web.yaml'), staticWeb('echo crashing; sleep 2; exit 3'));
    const pod = await eventually(async () => {
      const p = await getPod(mirrorName);
      return (p?.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1 ? p : undefined;
    }, 120_000, 'a restart of the crashing container');
    assert.equal(pod.status!.containerStatuses![0].lastState?.terminated?.exitCode, 3);
    assert.equal((await cluster.kubectl(['logs', mirrorName, '--previous'])).stdout, 'crashing\n');
  });

  it('changing the file replaces the container; removing it stops the container and deletes the mirror', async () => {
    writeFileSync(join(manifests, 'static-web.yaml'), staticWeb(serve('two')));
    const pod = await eventually(async () => {
      const p = running(await getPod(mirrorName));
      return p && p.status!.containerStatuses![0].restartCount === 0 && containerIDOf(p) !== containerID ? p : undefined;
    }, 120_000, 'the replaced static pod Running');
    containerID = containerIDOf(pod)!;
    assert.equal((await cluster.kubectl(['logs', mirrorName])).stdout, 'two\n');
    unlinkSync(join(manifests, 'static-web.yaml'));
    await eventually(async () => (await getPod(mirrorName)) === undefined, 60_000, 'the mirror gone');
    await eventually(async () => (await runningContainers()).length === 0, 60_000, 'no container running for the static pod');
  });

  it('with the control plane stopped the container keeps running; the mirror comes back with the server', async () => {
    writeFileSync(join(manifests, 'static-web.yaml'), staticWeb(serve('three')));
    const first = await eventually(async () => running(await getPod(mirrorName)), 120_000, 'the mirror Running');
    const id = containerIDOf(first)!.slice('containerd://'.length);
    assert.equal(await cluster.stop(), 0);
    // No API server: the kubelet keeps the container; it is the same one a little later.
    await new Promise((r) => setTimeout(r, 3000));
    assert.deepEqual(await runningContainers(), [id]);
    assert.equal(agent.proc.exitCode, null, 'the agent keeps running');
    cluster = await startCluster({ dataDir, controllers: 'all', extraArgs: ['--port', port] });
    const mirror = await eventually(async () => running(await getPod(mirrorName)), 120_000, 'the mirror republished');
    assert.equal(containerIDOf(mirror), `containerd://${id}`);
    assert.deepEqual(await runningContainers(), [id]);
  });
});
