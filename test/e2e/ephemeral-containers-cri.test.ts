/**
 * `kubectl debug` on a real node: ephemeral containers in a running pod of
 * a private containerd (containerd.ts) with `k8ts agent --runtime cri`,
 * driven by the real kubectl. With --target the debug container joins the
 * target's PID namespace (CRI NamespaceMode TARGET), so `ps` there lists the
 * target's processes; it runs once, and logs, exec and its status name it.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, eventually, minEventuallyMs, type Cluster } from './harness.js';
import { underTerminal } from './helpers.js';
import { startContainerd, busyboxImage, type PrivateContainerd } from './containerd.js';
import { startCRIAgent, type CRIAgent } from './real-node.js';

const nodeName = 'debug-node';
let cluster: Cluster | undefined;
let ctrd: PrivateContainerd | undefined;
let agent: CRIAgent | undefined;
const work = mkdtempSync(join(tmpdir(), 'k8ts-e2e-ephemeral-'));

const getPod = async (): Promise<any> => JSON.parse((await cluster!.kubectl(['get', 'pod', 'box', '-o', 'json'])).stdout);
const ephemeralStatus = async (name: string): Promise<any> => (await getPod()).status?.ephemeralContainerStatuses?.find((s: any) => s.name === name);

before(async () => {
  ctrd = await startContainerd({ streaming: true, podSubnet: '10.244.37.0/24' });
  cluster = await startCluster({ controllers: 'root-ca-cert-publisher' }); // pods mount kube-root-ca.crt (kube-api-access)
  agent = startCRIAgent({ cluster, ctrd, nodeName, work });
  await cluster.kubectl(['create', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'box', namespace: 'default' },
      spec: { nodeName, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: busyboxImage, command: ['sleep', '3600'] }] },
    }),
  });
  await eventually(async () => (await getPod()).status?.phase === 'Running', 60_000, 'box Running');
});

after(async () => {
  await agent?.stop();
  await cluster?.cleanup().catch(() => {});
  await ctrd?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('kubectl debug on containerd', () => {
  test("kubectl debug -i --target=main -- ps shows the target's processes; kubectl logs -c shows them again", async () => {
    // An attach shows what the process writes once it is attached (as upstream's), and containerd
    // (ContainerIO.Attach) starts copying the caller's stdin before it adds the caller's stdout to
    // the container's output: a line that reaches the shell at once can have its ps written before
    // the attach takes output (seen in CI under load), as a bare `ps` or one after `sleep 2` could
    // end before kubectl attached at all. So the shell runs ps for each line it reads, the test
    // sends a line every 300 ms until ps's output arrives, then "end", after which the shell exits
    // and the attach (and kubectl) end with it. No timing is assumed.
    const r = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn('kubectl', ['--kubeconfig', cluster!.kubeconfig, 'debug', '-i', 'box', `--image=${busyboxImage}`, '--target=main', '--', 'sh', '-c', 'while read line; do [ "$line" = end ] && exit 0; ps; done']);
      let stdout = '';
      let stderr = '';
      let ended = false;
      const poke = setInterval(() => {
        if (ended) return;
        if (/sleep 3600/.test(stdout)) { ended = true; child.stdin.write('end\n'); } else child.stdin.write('go\n');
      }, 300);
      child.stdout.on('data', (d: Buffer) => { stdout += d; });
      child.stderr.on('data', (d: Buffer) => { stderr += d; });
      child.stdin.on('error', () => {});
      const timer = setTimeout(() => child.kill(), 120_000);
      child.once('error', reject);
      child.once('exit', (code) => { clearTimeout(timer); clearInterval(poke); child.stdin.destroy(); if (code === 0) resolve({ stdout, stderr }); else reject(new Error(`kubectl debug exited ${code}: ${stderr}`)); });
    });
    const name = /Defaulting debug container name to (debugger-\w+)\./.exec(r.stdout + r.stderr)?.[1];
    assert.ok(name, r.stdout + r.stderr);
    assert.match(r.stdout, /sleep 3600/, `ps in the debug container lists the target's process: ${r.stdout}${r.stderr}`);
    const done = await eventually(async () => {
      const s = await ephemeralStatus(name!);
      return s?.state?.terminated ? s : undefined;
    }, minEventuallyMs, 'the debug container terminated');
    assert.equal(done.state.terminated.exitCode, 0);
    assert.equal(done.restartCount, 0);
    assert.match(done.containerID, /^containerd:\/\//);
    const logs = (await cluster!.kubectl(['logs', 'box', '-c', name!])).stdout;
    assert.match(logs, /^\s*1 root\s+.*sleep 3600$/m, 'the target is PID 1 of the namespace the debug container joined');
    // The pod goes on as before: its own container untouched and Ready.
    const pod = await getPod();
    assert.equal(pod.status.phase, 'Running');
    assert.equal(pod.status.containerStatuses[0].restartCount, 0);
  });

  test('kubectl debug -it --target=main: a shell on a terminal, attached, seeing the target\'s processes (the docs\' tutorial)', async () => {
    const kubectl = `kubectl --kubeconfig ${cluster!.kubeconfig} --cache-dir ${join(cluster!.dataDir, 'kubectl-cache')} debug -it box --image=${busyboxImage} --target=main --container=tty`;
    const r = await underTerminal(kubectl, ['ps; tty\r', 'exit 5\r'], 120_000);
    assert.match(r.out, /sleep 3600/);
    assert.match(r.out, /\/dev\/pts\/\d+/, 'the shell has a terminal');
    const s = await eventually(async () => (await ephemeralStatus('tty'))?.state?.terminated, minEventuallyMs, 'tty terminated');
    assert.equal(s.exitCode, 5);
  });

  test('kubectl exec -c reaches a running ephemeral container', async () => {
    await cluster!.kubectl(['debug', 'box', `--image=${busyboxImage}`, '--target=main', '--container=shell', '--', 'sleep', '3600']);
    await eventually(async () => (await ephemeralStatus('shell'))?.state?.running, minEventuallyMs, 'shell running');
    const ps = (await cluster!.kubectl(['exec', 'box', '-c', 'shell', '--', 'ps'])).stdout;
    assert.match(ps, /^\s*1 root\s+.*sleep 3600$/m);
    const events = JSON.parse((await cluster!.kubectl(['get', 'events', '--field-selector', 'involvedObject.name=box', '-o', 'json'])).stdout).items;
    assert.ok(events.some((e: any) => e.reason === 'Started' && e.message === 'Started container shell'), 'a Started event names it');
  });
});
