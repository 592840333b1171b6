/**
 * `sudo k8ts up --runtime cri` as a test fixture, arranged as up-cri.test.ts
 * arranges it (shared/notes/containerd-cri.md, network hygiene): the whole
 * of `up` (API server, agent, kube-proxy with the NetworkPolicy agent, the
 * DNS server, the private containerd) runs inside a network namespace the
 * fixture creates, entered with `nsenter --net` only, with a veth end
 * carrying the node's address. Pod addresses exist only there.
 *
 * netnsOfPod() gives the path of a containerd pod's network namespace
 * (pod-netns.ts), so a test can probe from inside the pod.
 * close() removes everything, also after a failed start.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { cliPath } from './harness.js';
import { killChild, lineReader } from './helpers.js';
import { ensureImages } from './containerd.js';
import { unmountUnder } from '../../src/cli/containerd/launch.js';
import { netnsOfPod as podNetns } from './pod-netns.js';

const run = promisify(execFile);

export interface UpCriNode {
  nodeIP: string;
  /** The real kubectl inside the namespace; rejects with its stderr. */
  kubectl(args: string[], input?: string): Promise<string>;
  /** A command inside the node's network namespace. */
  inNode(cmd: string, args: string[]): Promise<string>;
  netnsOfPod(pod: Pod): Promise<string>;
  /** The last lines `up` wrote to stderr. */
  log(): string;
  /** The fixture's temporary directory, and `up`'s data directory inside it. */
  dir: string;
  dataDir: string;
  /** SIGTERM to `up`; resolves with its exit code. */
  terminate(): Promise<number | null>;
  close(): Promise<void>;
}

export async function startUpCri(prefix: string, nodeIP = '10.99.0.2'): Promise<UpCriNode> {
  await ensureImages();
  const netns = `k8ts-e2e-${prefix}-${randomBytes(3).toString('hex')}`;
  const dir = mkdtempSync(join(tmpdir(), `k8ts-e2e-${prefix}-`));
  const dataDir = join(dir, 'data');
  let up: ChildProcess | undefined;
  let upErr = '';
  const inNode = async (cmd: string, args: string[]) =>
    (await run('nsenter', [`--net=/run/netns/${netns}`, cmd, ...args], { timeout: 60_000, maxBuffer: 64 << 20 })).stdout;
  const close = async () => {
    if (up) await killChild(up);
    // Whatever a failed run left: containerd and its shims (by the data dir in their command line), mounts, the namespace.
    for (const pid of await pidsMentioning(dir)) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
    await unmountUnder(dir);
    await run('ip', ['netns', 'del', netns]).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  let kubeconfig = '';
  const kubectl = (args: string[], input?: string) => {
    const child = execFile('nsenter', [`--net=/run/netns/${netns}`, 'kubectl', '--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'kubectl-cache'), ...args],
      { timeout: 120_000, maxBuffer: 16 << 20 });
    if (input !== undefined) child.stdin!.end(input);
    return new Promise<string>((resolve, reject) => {
      let stdout = ''; let stderr = '';
      child.stdout!.on('data', (d) => { stdout += d; });
      child.stderr!.on('data', (d) => { stderr += d; });
      child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`kubectl ${args.join(' ')} exited ${code}: ${stderr}`))));
    });
  };
  try {
    await run('ip', ['netns', 'add', netns]);
    await run('ip', ['-n', netns, 'link', 'set', 'lo', 'up']);
    await run('ip', ['-n', netns, 'link', 'add', 'node0', 'type', 'veth', 'peer', 'name', 'node1']);
    await run('ip', ['-n', netns, 'addr', 'add', `${nodeIP}/24`, 'dev', 'node0']);
    for (const dev of ['node0', 'node1']) await run('ip', ['-n', netns, 'link', 'set', dev, 'up']);
    up = spawn('nsenter', [`--net=/run/netns/${netns}`, process.execPath, cliPath, 'up', '--runtime', 'cri', '--data-dir', dataDir, '--port', '0', '--node-name', 'box'],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    up.stderr!.on('data', (d: Buffer) => { upErr = (upErr + d.toString()).slice(-20_000); });
    const out = lineReader(up);
    const at = await out.waitFor((l) => l.includes('export KUBECONFIG='), 'the kubeconfig line', 0, 120_000);
    kubeconfig = out.lines[at]!.trim().replace('export KUBECONFIG=', '');
  } catch (e) {
    await close();
    throw new Error(`${(e as Error).message}\n${upErr.slice(-3000)}`);
  }
  const socket = join(dataDir, 'containerd', 'containerd.sock');
  const netnsOfPod = (pod: Pod) => podNetns(socket, pod);
  const terminate = () => new Promise<number | null>((resolve) => { up!.once('exit', (c) => resolve(c)); up!.kill('SIGTERM'); });
  return { nodeIP, kubectl, inNode, netnsOfPod, log: () => upErr, dir, dataDir, terminate, close };
}

/** Processes whose command line names a path under dir (containerd, its shims, the agent). */
export async function pidsMentioning(dir: string): Promise<number[]> {
  const { stdout } = await run('ps', ['-eo', 'pid=,args=']);
  return stdout.split('\n').filter((l) => l.includes(dir) && !l.includes('ps -eo')).map((l) => Number(l.trim().split(/\s+/)[0])).filter((p) => p !== process.pid);
}
