/**
 * `k8ts up` as a new user meets it: the real process, then the real kubectl
 * with the kubeconfig it prints. Its simulated nodes serve the kubelet API on
 * 127.0.0.1, so `kubectl logs` shows a pod's simulated lifecycle; `k8ts sim`
 * nodes have no kubelet API, and the API server says so rather than dialling
 * their made-up 172.16.x addresses.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startCluster, eventually, cliPath, type Cluster } from './harness.js';
import { killChild, lineReader } from './helpers.js';

const exec = promisify(execFile);

const pod = (name: string, extra = '') => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
${extra}  containers:
  - name: web
    image: nginx:1.27
`;

describe('k8ts up: a first look with kubectl', () => {
  let dir: string;
  let up: ChildProcess;
  let kubeconfig: string;

  const kubectl = async (args: string[], input?: string, allowFail = false) => {
    const child = execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 60_000 });
    if (input !== undefined) child.stdin!.end(input);
    return new Promise<{ stdout: string; stderr: string; code: number }>((resolve, reject) => {
      let stdout = ''; let stderr = '';
      child.stdout!.on('data', (d) => { stdout += d; });
      child.stderr!.on('data', (d) => { stderr += d; });
      child.on('close', (code) => {
        if (code !== 0 && !allowFail) reject(new Error(`kubectl ${args.join(' ')} exited ${code}: ${stderr}`));
        else resolve({ stdout, stderr, code: code ?? -1 });
      });
    });
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-up-'));
    up = spawn(process.execPath, [cliPath, 'up', '--data-dir', join(dir, 'data'), '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = lineReader(up);
    const at = await out.waitFor((l) => l.includes('export KUBECONFIG='), 'the kubeconfig line', 0, 60_000);
    kubeconfig = out.lines[at].trim().replace('export KUBECONFIG=', '');
  });

  after(async () => {
    await killChild(up);
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers three Ready nodes whose kubelets listen on 127.0.0.1', async () => {
    const nodes = await eventually(async () => {
      const list = JSON.parse((await kubectl(['get', 'nodes', '-o', 'json'])).stdout).items;
      const ready = list.filter((n: any) => n.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True'));
      return ready.length === 3 ? list : undefined;
    }, 30_000, 'three Ready nodes');
    for (const n of nodes) {
      assert.deepEqual(n.status.addresses.find((a: any) => a.type === 'InternalIP')?.address, '127.0.0.1');
      assert.ok(n.status.daemonEndpoints.kubeletEndpoint.Port > 0, `${n.metadata.name} advertises a kubelet port`);
    }
  });

  it('kubectl logs shows the simulated lifecycle of a pod, and exec says no process runs', async () => {
    await kubectl(['apply', '-f', '-'], pod('web'));
    await kubectl(['wait', '--for=condition=Ready', 'pod/web', '--timeout=60s']);
    const logs = await eventually(async () => {
      const r = await kubectl(['logs', 'web']);
      return r.stdout.includes('Started container web') ? r.stdout : undefined;
    }, 20_000, 'the simulated log');
    assert.match(logs, /^Created container web\nStarted container web\n/);
    const stamped = (await kubectl(['logs', 'web', '--timestamps', '--tail', '1'])).stdout;
    assert.match(stamped, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z Started container web\n$/);
    const ex = await kubectl(['exec', 'web', '--', 'ls'], undefined, true);
    assert.notEqual(ex.code, 0);
    assert.equal(ex.stderr, 'Error from server (InternalError): Internal error occurred: the sim container runtime runs no processes: exec is not supported\n');
    const at = await kubectl(['attach', 'web'], undefined, true);
    assert.notEqual(at.code, 0);
    assert.match(at.stderr, /^Error from server \(InternalError\): Internal error occurred: the sim container runtime runs no processes: attach is not supported\n$/m);
    const pf = await kubectl(['port-forward', 'pod/web', ':80'], undefined, true);
    assert.notEqual(pf.code, 0);
    assert.match(pf.stderr, /^error: error upgrading connection: Internal error occurred: the sim container runtime runs no processes: port-forward is not supported\n$/m);
  });
});

describe('k8ts sim nodes have no kubelet API', () => {
  let cluster: Cluster;
  let sim: ChildProcess;

  before(async () => {
    cluster = await startCluster({ controllers: 'none' });
    sim = spawn(process.execPath, [cliPath, 'sim', '--kubeconfig', cluster.kubeconfig, '--nodes', '1', '--prefix', 'nokubelet-'],
      { stdio: ['ignore', 'ignore', 'pipe'] });
    await eventually(async () => (await cluster.kubectl(['get', 'node', 'nokubelet-0'], { allowFail: true })).code === 0, 30_000, 'the sim node');
  });

  after(async () => {
    await killChild(sim);
    await cluster.cleanup();
  });

  it('advertises kubelet port 0, and kubectl logs gets the reason instead of a dial to 172.16.x', async () => {
    const node = JSON.parse((await cluster.kubectl(['get', 'node', 'nokubelet-0', '-o', 'json'])).stdout);
    assert.equal(node.status.daemonEndpoints.kubeletEndpoint.Port, 0);
    assert.match(node.status.addresses.find((a: any) => a.type === 'InternalIP').address, /^172\.16\./);
    await cluster.kubectl(['apply', '-f', '-'], { input: pod('bound', '  nodeName: nokubelet-0\n') });
    await eventually(async () => {
      const p = JSON.parse((await cluster.kubectl(['get', 'pod', 'bound', '-o', 'json'])).stdout);
      return p.status?.phase === 'Running';
    }, 30_000, 'the pod running');
    const r = await cluster.kubectl(['logs', 'bound'], { allowFail: true });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /node "nokubelet-0" is simulated by k8ts and serves no kubelet API/);
    assert.doesNotMatch(r.stderr, /172\.16\./);
    // The server still serves.
    assert.equal((await exec('kubectl', ['--kubeconfig', cluster.kubeconfig, 'get', '--raw', '/version'])).stderr, '');
  });
});
