/**
 * Where `k8ts up` runs its controller manager and scheduler: on the serving
 * thread by default (src/cli/control-loops-inline.ts: one isolate less, the
 * quick start's idle RSS), in a worker thread of their own with
 * --control-loops-thread (as `k8ts server`). Either way they do their work (a
 * Deployment's pods created and bound, both leader Leases held under their own
 * identities) and SIGTERM stops them before the server: exit 0.
 */
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, eventually } from './harness.js';
import { killChild, lineReader } from './helpers.js';
import { killedIfFailed, upStartMs } from './up-cluster.js';

interface LogLine { msg: string; threadId?: number; controllers?: string }

interface Up { proc: ChildProcess; logs: LogLine[]; kubectl(args: string[]): Promise<string>; exited: Promise<number | null>; close(): Promise<void> }

async function startUp(args: string[]): Promise<Up> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-up-loops-'));
  const proc = spawn(process.execPath, [cliPath, 'up', '--data-dir', join(dir, 'data'), '--port', '0', '--log-format', 'json', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const logs: LogLine[] = [];
  let partial = '';
  proc.stderr!.on('data', (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop()!;
    for (const l of parts) { try { logs.push(JSON.parse(l)); } catch { /* not JSON */ } }
  });
  const out = lineReader(proc);
  const at = await killedIfFailed(proc, out.waitFor((l) => l.includes('export KUBECONFIG='), 'the kubeconfig line', 0, upStartMs));
  const kubeconfig = out.lines[at].trim().replace('export KUBECONFIG=', '');
  const kubectl = (a: string[]) => new Promise<string>((resolve, reject) => {
    const child = spawn('kubectl', ['--kubeconfig', kubeconfig, ...a]);
    let stdout = ''; let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`kubectl ${a.join(' ')}: ${stderr}`))));
  });
  return { proc, logs, kubectl, exited, close: async () => { await killChild(proc); rmSync(dir, { recursive: true, force: true }); } };
}

/** The deployment and replica set controllers made two pods, and the scheduler bound both. */
async function deploymentPodsBound(up: Up, name: string): Promise<void> {
  await up.kubectl(['create', 'deployment', name, '--image=k8ts.local/pause:1', '--replicas=2']);
  await eventually(async () => {
    const pods = JSON.parse(await up.kubectl(['get', 'pods', '-l', `app=${name}`, '-o', 'json'])).items as { spec: { nodeName?: string } }[];
    return pods.length === 2 && pods.every((p) => p.spec.nodeName);
  }, 30_000, `two bound pods of deployment ${name}`);
  for (const lease of ['kube-controller-manager', 'kube-scheduler']) {
    const holder = await up.kubectl(['get', 'lease', '-n', 'kube-system', lease, '-o', 'jsonpath={.spec.holderIdentity}']);
    assert.ok(holder, `${lease} has a holder`);
  }
}

describe('k8ts up: where the control loops run', () => {
  const ups: Up[] = [];
  after(async () => { for (const u of ups) await u.close(); });

  test('by default on the serving thread: they work, and SIGTERM stops them and exits 0', async () => {
    const up = await startUp([]);
    ups.push(up);
    await eventually(async () => up.logs.some((l) => l.msg === 'control loops running on the serving thread'), 20_000, 'the loops\' start line');
    assert.ok(!up.logs.some((l) => l.msg === 'control loops running in their own thread'), 'no worker thread was started for them');
    await deploymentPodsBound(up, 'inline');
    up.proc.kill('SIGTERM');
    assert.equal(await up.exited, 0);
  });

  test('--control-loops-thread: in a worker thread, as k8ts server runs them', async () => {
    const up = await startUp(['--control-loops-thread']);
    ups.push(up);
    const started = await eventually(async () => up.logs.find((l) => l.msg === 'control loops running in their own thread'), 20_000, 'the loops\' thread');
    assert.ok(started.threadId! >= 1, 'the loops run on a worker thread, not the main thread (threadId 0)');
    await deploymentPodsBound(up, 'threaded');
    up.proc.kill('SIGTERM');
    assert.equal(await up.exited, 0);
    assert.ok(up.logs.some((l) => l.msg === 'control loops stopped'), 'the thread\'s loops were stopped before the process ended');
  });
});
