/**
 * `npm start` stopped with Ctrl-C and started again on the same data
 * directory: the scheduler and the controller manager gave their leader
 * Leases up when they stopped (client-go's ReleaseOnCancel), so the new
 * process leads at once. Before, the old holder kept both Leases for their
 * 15 s duration after the restart, and a Deployment created then stayed
 * Pending that long.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, eventually } from './harness.js';
import { lineReader } from './helpers.js';
import { killedIfFailed, upStartMs } from './up-cluster.js';

const leases = ['kube-scheduler', 'kube-controller-manager'];

function kubectl(kubeconfig: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
    if (err) reject(new Error(`kubectl ${args.join(' ')}: ${stderr}`)); else resolve(stdout);
  }));
}

async function startUp(dataDir: string): Promise<{ child: ChildProcess; kubeconfig: string; output: string[] }> {
  const child = spawn(process.execPath, [cliPath, 'up', '--data-dir', dataDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out = lineReader(child);
  const at = await killedIfFailed(child, out.waitFor((l) => l.includes('export KUBECONFIG='), 'the kubeconfig line', 0, upStartMs));
  return { child, kubeconfig: out.lines[at]!.trim().replace('export KUBECONFIG=', ''), output: out.lines };
}

const holders = async (kubeconfig: string) => Object.fromEntries(await Promise.all(leases.map(async (name) =>
  [name, await kubectl(kubeconfig, ['get', 'lease', '-n', 'kube-system', name, '-o', 'jsonpath={.spec.holderIdentity}'])] as const)));

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => { child.once('exit', (code) => resolve(code)); child.kill('SIGTERM'); });
}

describe('k8ts up restarted: the leader Leases were released at shutdown', { timeout: 240_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-up-restart-'));
  let running: ChildProcess | undefined;
  after(async () => {
    if (running && running.exitCode === null) await stop(running);
    rmSync(dir, { recursive: true, force: true });
  });

  it('after SIGTERM no Lease names the old process; the restarted one runs a Deployment', async () => {
    const first = await startUp(join(dir, 'data'));
    running = first.child;
    const old = await eventually(async () => {
      const h = await holders(first.kubeconfig);
      return leases.every((n) => h[n]) ? h : undefined;
    }, 60_000, 'both leaders elected');
    assert.equal(await stop(first.child), 0, first.output.slice(-20).join('\n'));

    const second = await startUp(join(dir, 'data'));
    running = second.child;
    // Read at once: a Lease still naming the old process would be held for its whole duration.
    const now = await holders(second.kubeconfig);
    for (const name of leases) assert.notEqual(now[name], old[name], `${name} still held by the stopped process`);
    await kubectl(second.kubeconfig, ['create', 'deployment', 'after-restart', '--image=nginx']);
    await kubectl(second.kubeconfig, ['rollout', 'status', 'deployment/after-restart', '--timeout=60s']);
    assert.equal(await stop(second.child), 0);
  });
});
