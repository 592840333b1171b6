/**
 * Static pods end to end, the lifecycle of the seed note (004: "Static Pods"):
 * a real `k8ts server` (every controller and the scheduler running), a real
 * `k8ts agent --runtime simulated --pod-manifest-path DIR` process and the
 * real kubectl. A file in the directory becomes a pod named
 * <name>-<node> with a read-only mirror in the API; editing the file
 * replaces the pod, removing it stops the pod; deleting the mirror only
 * brings it back; a broken file is reported and skipped; the agent keeps its
 * static pods through a control-plane outage and runs them with no API server
 * at all.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, eventually, startCluster, type Cluster } from './harness.js';
import { killChild } from './helpers.js';

const node = 'sp-node';
const root = mkdtempSync(join(tmpdir(), 'k8ts-e2e-static-'));
const dataDir = join(root, 'data');
const manifests = join(root, 'manifests');
let cluster: Cluster;
let agent: Agent;

const staticWeb = (image = 'nginx') => `apiVersion: v1
kind: Pod
metadata:
  name: static-web
  labels:
    app: web
spec:
  containers:
  - name: web-container
    image: ${image}
    ports:
    - containerPort: 80
`;

interface Agent {
  proc: ChildProcess;
  logs: any[];
  /** Resolves with the first log record (from index `from`) that matches. */
  waitForLog(match: (rec: any) => boolean, what: string, from?: number, timeoutMs?: number): Promise<any>;
}

function startAgent(args: string[]): Agent {
  const proc = spawn(process.execPath, [cliPath, 'agent', '--node-name', node, '--runtime', 'simulated', '--delete-delay', '100ms', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, K8TS_LOG_LEVEL: 'info' },
  });
  const logs: any[] = [];
  let partial = '';
  proc.stderr!.on('data', (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop()!;
    for (const line of parts) { try { logs.push(JSON.parse(line)); } catch { logs.push({ msg: line }); } }
  });
  return {
    proc, logs,
    waitForLog: (match, what, from = 0, timeoutMs = 10_000) => eventually(async () => logs.slice(from).find(match), timeoutMs, `${what}; agent log:\n${logs.map((l) => JSON.stringify(l)).join('\n')}`),
  };
}

const mirrorName = `static-web-${node}`;

async function getPod(name: string, namespace = 'default'): Promise<any | undefined> {
  const r = await cluster.kubectl(['get', 'pod', name, '-n', namespace, '-o', 'json'], { allowFail: true });
  if (r.code !== 0) {
    assert.match(r.stderr, /NotFound/);
    return undefined;
  }
  return JSON.parse(r.stdout);
}

const runningContainer = (pod: any) => pod?.status?.phase === 'Running' && pod.status.containerStatuses?.[0]?.state?.running ? pod : undefined;

/** The mirror, Running, with the given config hash if one is given. */
function runningMirror(hash?: string): Promise<any> {
  return eventually(async () => {
    const pod = runningContainer(await getPod(mirrorName));
    if (!pod) return undefined;
    return !hash || pod.metadata.annotations['kubernetes.io/config.mirror'] === hash ? pod : undefined;
  }, 15_000, `mirror ${mirrorName} Running${hash ? ` with hash ${hash}` : ''}`);
}

before(async () => {
  mkdirSync(dataDir);
  mkdirSync(manifests);
  cluster = await startCluster({ dataDir, controllers: 'all' });
  agent = startAgent(['--kubeconfig', cluster.kubeconfig, '--pod-manifest-path', manifests, '--file-check-frequency', '1s', '--sync-frequency', '1s']);
  await eventually(async () => (await cluster.kubectl(['get', 'node', node], { allowFail: true })).code === 0, 15_000, 'the node registered');
});

after(async () => {
  if (agent) await killChild(agent.proc);
  await cluster?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('static pods with an API server', () => {
  let hash: string;
  let containerID: string;

  it('a manifest file becomes a Running pod <name>-<node> with a mirror in the API', async () => {
    writeFileSync(join(manifests, 'static-web.yaml'), staticWeb());
    const pod = await runningMirror();
    const a = pod.metadata.annotations;
    hash = a['kubernetes.io/config.hash'];
    assert.match(hash, /^[0-9a-f]{32}$/);
    assert.equal(a['kubernetes.io/config.mirror'], hash);
    assert.equal(a['kubernetes.io/config.source'], 'file');
    assert.ok(!Number.isNaN(Date.parse(a['kubernetes.io/config.seen'])), a['kubernetes.io/config.seen']);
    assert.notEqual(pod.metadata.uid, hash, 'the mirror has a UID of its own; the static pod\'s UID is the hash');
    const nodeObj = JSON.parse((await cluster.kubectl(['get', 'node', node, '-o', 'json'])).stdout);
    assert.deepEqual(pod.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: node, uid: nodeObj.metadata.uid, controller: true }]);
    assert.equal(pod.spec.nodeName, node);
    assert.equal(pod.spec.serviceAccountName, undefined, 'admission leaves a mirror pod\'s spec alone');
    assert.deepEqual(pod.spec.tolerations, [{ operator: 'Exists', effect: 'NoExecute' }]);
    containerID = pod.status.containerStatuses[0].containerID;
    assert.match(containerID, /^sim:\/\//);
    const all = (await cluster.kubectl(['get', 'pods', '-A'])).stdout;
    assert.match(all, new RegExp(`default\\s+${mirrorName}\\s+1/1\\s+Running\\s+0`));
  });

  it('the mirror\'s spec and mirror annotation cannot be changed; its labels can', async () => {
    await cluster.kubectl(['label', 'pod', mirrorName, 'tier=front']);
    assert.equal((await getPod(mirrorName)).metadata.labels.tier, 'front');
    const annotate = await cluster.kubectl(['annotate', 'pod', mirrorName, 'kubernetes.io/config.mirror=forged', '--overwrite'], { allowFail: true });
    assert.notEqual(annotate.code, 0);
    assert.match(annotate.stderr, /metadata.annotations\[kubernetes.io\/config.mirror\]: Forbidden: may not remove or update mirror pod annotation/);
    const unannotate = await cluster.kubectl(['annotate', 'pod', mirrorName, 'kubernetes.io/config.mirror-'], { allowFail: true });
    assert.match(unannotate.stderr, /may not remove or update mirror pod annotation/);
    const patch = await cluster.kubectl(['patch', 'pod', mirrorName, '-p', JSON.stringify({ spec: { restartPolicy: 'Never' } })], { allowFail: true });
    assert.notEqual(patch.code, 0);
    assert.match(patch.stderr, /spec: Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`/);
    // A mirror cannot be created referencing what a static pod never has.
    const forged = JSON.stringify({
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'forged-mirror', annotations: { 'kubernetes.io/config.mirror': 'x' } },
      spec: { nodeName: node, serviceAccountName: 'default', containers: [{ name: 'c', image: 'nginx' }] },
    });
    const create = await cluster.kubectl(['create', '-f', '-'], { input: forged, allowFail: true });
    assert.match(create.stderr, /pods "forged-mirror" is forbidden: a mirror pod may not reference service accounts/);
    const pod = await runningMirror(hash);
    assert.equal(pod.status.containerStatuses[0].containerID, containerID, 'the static pod was never touched');
  });

  it('deleting the mirror brings it back; the static pod keeps running throughout', async () => {
    const before = await getPod(mirrorName);
    const startedAt = before.status.containerStatuses[0].state.running.startedAt;
    await cluster.kubectl(['delete', 'pod', mirrorName, '--timeout=20s']);
    const back = await eventually(async () => {
      const p = runningContainer(await getPod(mirrorName));
      return p && p.metadata.uid !== before.metadata.uid ? p : undefined;
    }, 15_000, 'the mirror recreated');
    assert.equal(back.metadata.annotations['kubernetes.io/config.mirror'], hash);
    assert.equal(back.status.containerStatuses[0].containerID, containerID);
    assert.equal(back.status.containerStatuses[0].state.running.startedAt, startedAt);
    assert.equal(back.metadata.labels.tier, undefined, 'a new mirror is made from the manifest again');
    assert.ok(!agent.logs.some((l) => l.msg === 'static pod changed, replacing it' || l.msg === 'static pod removed, stopping it'));
  });

  it('changing the file replaces the pod: new hash, new container, new mirror', async () => {
    const before = await getPod(mirrorName);
    writeFileSync(join(manifests, 'static-web.yaml'), staticWeb('nginx:1.27'));
    const pod = await eventually(async () => {
      const p = runningContainer(await getPod(mirrorName));
      return p && p.metadata.annotations['kubernetes.io/config.mirror'] !== hash ? p : undefined;
    }, 15_000, 'the new mirror');
    const newHash = pod.metadata.annotations['kubernetes.io/config.hash'];
    assert.equal(pod.metadata.annotations['kubernetes.io/config.mirror'], newHash);
    assert.notEqual(pod.metadata.uid, before.metadata.uid);
    assert.equal(pod.spec.containers[0].image, 'nginx:1.27');
    assert.notEqual(pod.status.containerStatuses[0].containerID, containerID, 'the old pod was killed and a new one started');
    hash = newHash;
    containerID = pod.status.containerStatuses[0].containerID;
  });

  it('a broken manifest is reported (log and Node event) and skipped; the others keep running', async () => {
    const from = agent.logs.length;
    const broken = join(manifests, 'broken.yaml');
    writeFileSync(broken, 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: broken\nspec:\n  containers:\n  - name: c\n');
    writeFileSync(join(manifests, '.hidden.yaml'), staticWeb().replace('static-web', 'hidden'));
    writeFileSync(join(manifests, 'static-web.yaml~'), staticWeb().replace('static-web', 'backup'));
    const rec = await agent.waitForLog((l) => l.msg === 'could not process manifest file' && l.path === broken, 'the broken manifest logged', from);
    assert.equal(rec.err, 'invalid pod: [spec.containers[0].image: Required value]');
    const event = await eventually(async () => {
      const list = JSON.parse((await cluster.kubectl(['get', 'events', '-n', 'default', '--field-selector', `involvedObject.kind=Node,involvedObject.name=${node},reason=FailedValidation`, '-o', 'json'])).stdout);
      // The rewrite of static-web.yaml above is not atomic (truncate, then write): the kubelet may
      // read it empty in between and report that too, as upstream's would. Find the broken file's.
      return list.items.find((e: { message: string }) => e.message.includes(`"${broken}"`));
    }, 10_000, 'the FailedValidation event on the Node');
    assert.equal(event.type, 'Warning');
    assert.equal(event.message, `Could not process manifest file "${broken}": invalid pod: [spec.containers[0].image: Required value]`);
    const pod = await runningMirror(hash);
    assert.equal(pod.status.containerStatuses[0].containerID, containerID);
    const names = JSON.parse((await cluster.kubectl(['get', 'pods', '-A', '-o', 'json'])).stdout).items.map((p: any) => p.metadata.name);
    assert.deepEqual(names.filter((n: string) => n.endsWith(`-${node}`)), [mirrorName], 'no pod from the broken, hidden or backup files');
    unlinkSync(broken);
  });

  it('removing the file stops the pod and deletes its mirror', async () => {
    const from = agent.logs.length;
    unlinkSync(join(manifests, 'static-web.yaml'));
    await agent.waitForLog((l) => l.msg === 'static pod removed, stopping it' && l.pod === `default/${mirrorName}`, 'the pod stopped', from);
    await eventually(async () => (await getPod(mirrorName)) === undefined, 15_000, 'the mirror gone');
  });

  it('with the control plane stopped the pod keeps running and follows its file; the mirror is republished when the server is back', async () => {
    writeFileSync(join(manifests, 'static-web.yaml'), staticWeb('nginx:1.26'));
    const first = await runningMirror();
    const port = new URL(cluster.url).port;
    assert.equal(await cluster.stop(), 0);

    // The API server is gone: the static pod is replaced from its file all the same.
    const from = agent.logs.length;
    writeFileSync(join(manifests, 'static-web.yaml'), staticWeb('nginx:1.28'));
    const running = await agent.waitForLog((l) => l.msg === 'static pod status' && l.phase === 'Running' && l.pod === `default/${mirrorName}`
      && l.uid !== first.metadata.annotations['kubernetes.io/config.hash'] && l.containers?.[0]?.state === 'running', 'the new static pod Running, server down', from, 15_000);
    assert.ok(agent.proc.exitCode === null, 'the agent keeps running');

    cluster = await startCluster({ dataDir, controllers: 'all', extraArgs: ['--port', port] });
    const mirror = await runningMirror(running.uid);
    assert.equal(mirror.spec.containers[0].image, 'nginx:1.28');
    assert.equal(mirror.status.containerStatuses[0].containerID, running.containers[0].id, 'the container started while the server was down');
    unlinkSync(join(manifests, 'static-web.yaml'));
    await eventually(async () => (await getPod(mirrorName)) === undefined, 15_000, 'the mirror gone');
  });
});

describe('standalone: no API server at all', () => {
  it('runs the static pods of its directory and reports their status in its log', async () => {
    const dir = mkdtempSync(join(root, 'standalone-'));
    writeFileSync(join(dir, 'static-web.yaml'), staticWeb());
    const solo = startAgent(['--pod-manifest-path', dir, '--file-check-frequency', '1s']);
    try {
      const ready = await solo.waitForLog((l) => l.msg === 'standalone kubelet running: static pods only, no API server', 'the standalone kubelet');
      assert.equal(ready.pods, 1);
      const first = await solo.waitForLog((l) => l.msg === 'static pod status' && l.phase === 'Running' && l.containers?.[0]?.state === 'running', 'the pod Running');
      assert.equal(first.pod, `default/${mirrorName}`);
      const from = solo.logs.length;
      writeFileSync(join(dir, 'static-web.yaml'), staticWeb('nginx:1.27'));
      const second = await solo.waitForLog((l) => l.msg === 'static pod status' && l.phase === 'Running' && l.uid !== first.uid && l.containers?.[0]?.state === 'running', 'the replaced pod Running', from);
      assert.notEqual(second.containers[0].id, first.containers[0].id);
      unlinkSync(join(dir, 'static-web.yaml'));
      await solo.waitForLog((l) => l.msg === 'static pod removed, stopping it', 'the pod stopped', from);
      assert.ok(!solo.logs.some((l) => l.level === 'error' || /register/.test(l.msg ?? '')), 'no API server is ever contacted');
    } finally {
      await killChild(solo.proc);
    }
    assert.equal(solo.proc.exitCode, 0);
  });
});
