/**
 * Starts and stops a private containerd (config.ts) as a child process.
 *
 * start: writes config.toml and the CNI conflist, spawns containerd (behind
 * `wrap`, e.g. `nsenter --net=...` for a test's network namespace), waits
 * until it answers the CRI Version call and imports the local images it
 * lacks (images.ts).
 *
 * stop: stops and removes every pod sandbox through the CRI (which stops
 * their containers and releases their pod addresses), SIGTERMs containerd
 * (SIGKILL after 5 s), kills any shim it left (found by its socket in their
 * command line) and lazily unmounts what is left mounted under the dir. The
 * dir itself stays (images, logs). Safe to call twice and after a failed start.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CRIClient } from '../../kubelet/runtime/cri/client.js';
import { cniConflist, containerdConfig, containerdLayout, type ContainerdLayout } from './config.js';
import { importLocalImages, type LocalImage } from './images.js';

const run = promisify(execFile);

export interface ContainerdOptions {
  dir: string;
  podSubnet: string;
  streamAddress?: string;
  /** A command the containerd command line is appended to (e.g. ['nsenter', '--net=/run/netns/x']). */
  wrap?: string[];
  images: LocalImage[];
  /** How long containerd may take to answer (default 30 s). */
  readyTimeoutMs?: number;
  /**
   * Outlives this process (`k8ts lab up`): its own session, not waited for; stop it later
   * with stopContainerdByPid.
   */
  detached?: boolean;
}

export interface RunningContainerd {
  layout: ContainerdLayout;
  socket: string;
  /** unix://<socket>, for --container-runtime-endpoint. */
  endpoint: string;
  proc: ChildProcess;
  client: CRIClient;
  /** containerd's own log (for error messages). */
  log(): string;
  stop(): Promise<void>;
}

export async function startContainerd(opts: ContainerdOptions): Promise<RunningContainerd> {
  const layout = containerdLayout(opts.dir);
  mkdirSync(layout.cniConfDir, { recursive: true });
  writeFileSync(join(layout.cniConfDir, '10-k8ts.conflist'), cniConflist(opts.podSubnet, layout.ipamDataDir));
  writeFileSync(layout.config, containerdConfig(layout, opts.streamAddress));
  const out = openSync(layout.log, 'a');
  const [cmd, ...args] = [...(opts.wrap ?? []), 'containerd', '--config', layout.config];
  const proc = spawn(cmd!, args, { stdio: ['ignore', out, out], detached: opts.detached });
  closeSync(out);
  if (opts.detached) proc.unref();
  const client = new CRIClient(`unix://${layout.socket}`);
  const log = () => { try { return readFileSync(layout.log, 'utf8'); } catch { return ''; } };
  let stopping: Promise<void> | undefined;
  const stop = () => stopping ??= stopContainerd(proc, client, layout);
  try {
    await waitServing(proc, client, layout, log, opts.readyTimeoutMs ?? 30_000);
    await importLocalImages(layout.socket, client, opts.images);
  } catch (e) {
    await stop();
    throw e;
  }
  return { layout, socket: layout.socket, endpoint: `unix://${layout.socket}`, proc, client, log, stop };
}

async function waitServing(proc: ChildProcess, client: CRIClient, layout: ContainerdLayout, log: () => string, timeoutMs: number): Promise<void> {
  const spawnError = new Promise<Error>((resolve) => proc.once('error', resolve));
  let failed: Error | undefined;
  void spawnError.then((e) => { failed = e; });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (failed) throw new Error(`containerd could not be started: ${failed.message}`);
    if (proc.exitCode !== null) throw new Error(`containerd exited with ${proc.exitCode}: ${log().slice(-2000)}`);
    if (existsSync(layout.socket)) {
      try { await client.version(); return; } catch { /* not serving yet */ }
    }
    if (Date.now() > deadline) throw new Error(`containerd did not answer on ${layout.socket} within ${timeoutMs / 1000}s: ${log().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function stopContainerd(proc: ChildProcess, client: CRIClient, layout: ContainerdLayout): Promise<void> {
  const running = () => proc.exitCode === null && proc.signalCode === null && proc.pid !== undefined;
  if (running()) {
    try {
      for (const s of await client.listPodSandbox()) {
        await client.stopPodSandbox(s.id).catch(() => {});
        await client.removePodSandbox(s.id).catch(() => {});
      }
    } catch { /* containerd is not answering: the shims are killed below */ }
  }
  client.close();
  if (running()) {
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(t);
  }
  killShims(layout.socket);
  await unmountUnder(layout.dir);
}

/**
 * stop() for a containerd this process did not start (a lab machine's, by its recorded pid):
 * its pod sandboxes through the CRI, SIGTERM (SIGKILL after 5 s), its shims, its mounts.
 */
export async function stopContainerdByPid(pid: number, dir: string): Promise<void> {
  const layout = containerdLayout(dir);
  const alive = () => { try { process.kill(pid, 0); return isContainerd(pid); } catch { return false; } };
  if (alive()) {
    const client = new CRIClient(`unix://${layout.socket}`);
    try {
      for (const s of await client.listPodSandbox()) {
        await client.stopPodSandbox(s.id).catch(() => {});
        await client.removePodSandbox(s.id).catch(() => {});
      }
    } catch { /* not answering: the shims are killed below */ }
    client.close();
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 5000;
    while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (alive()) process.kill(pid, 'SIGKILL');
  }
  killShims(layout.socket);
  await unmountUnder(layout.dir);
}

/** A recorded pid may have been reused by now: only a containerd is signalled. */
function isContainerd(pid: number): boolean {
  try { return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]!.endsWith('containerd'); } catch { return false; }
}

/** SIGKILLs containerd-shim processes serving this containerd (their -address is our socket). */
function killShims(socket: string): void {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let cmdline: string;
    try { cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8'); } catch { continue; }
    const args = cmdline.split('\0');
    if (args[0]?.includes('containerd-shim') && args.includes(socket)) {
      try { process.kill(Number(pid), 'SIGKILL'); } catch { /* gone */ }
    }
  }
}

/** Lazily unmounts whatever containerd left mounted under dir (rootfs overlays, shm, pod netns). */
export async function unmountUnder(dir: string): Promise<void> {
  const mounts = readFileSync('/proc/self/mountinfo', 'utf8').split('\n').map((l) => l.split(' ')[4]).filter((m): m is string => !!m && m.startsWith(dir + '/'));
  for (const m of mounts.sort((a, b) => b.length - a.length)) await run('umount', ['-l', m]).catch(() => {});
}
