/**
 * Commands in a running process container (probes' exec, `kubectl exec`):
 * the container's environment (read from /proc/<pid>/environ of its
 * wrapper, which holds exactly what the container got), its working
 * directory, and its mount namespace when it has a private one (entered
 * with nsenter, as root). The command is its own process group, killed
 * whole when a probe's timeout runs out.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { InstanceRecord } from './records.js';

export interface ExecResult { exitCode: number; output: string; timedOut?: boolean }

/** The environment of the container's process. */
export function containerEnvironment(rec: InstanceRecord): Record<string, string> {
  const env: Record<string, string> = {};
  for (const kv of readFileSync(`/proc/${rec.pid}/environ`, 'utf8').split('\0')) {
    const i = kv.indexOf('=');
    if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return env;
}

/** cmd as run inside the container: through nsenter when it has a private mount namespace. */
export const containerArgv = (rec: InstanceRecord, cmd: string[]): string[] =>
  (rec.mountNamespace ? ['nsenter', `--target=${rec.pid}`, '--mount', '--wd', '--', ...cmd] : cmd);

/** Spawns cmd in the container (its own process group); stdio as given. */
export function spawnInContainer(rec: InstanceRecord, cmd: string[], stdio: 'pipe' | ['pipe' | 'ignore', 'pipe', 'pipe'] = 'pipe'): ChildProcess {
  const argv = containerArgv(rec, cmd);
  return spawn(argv[0], argv.slice(1), { env: containerEnvironment(rec), cwd: containerCwd(rec), stdio, detached: true });
}

/** Where a command starts: nsenter --wd takes the container's own directory inside its namespace. */
export const containerCwd = (rec: InstanceRecord): string => (rec.mountNamespace ? '/' : rec.workingDir || '/');

export function execInContainer(rec: InstanceRecord, cmd: string[], timeoutMs: number): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try { child = spawnInContainer(rec, cmd, ['ignore', 'pipe', 'pipe']); } catch (e) { reject(e as Error); return; }
    const out: Buffer[] = [];
    child.stdout!.on('data', (d: Buffer) => out.push(d));
    child.stderr!.on('data', (d: Buffer) => out.push(d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ }
    }, timeoutMs);
    child.once('error', (e) => { clearTimeout(timer); reject(e); });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const output = Buffer.concat(out).toString('utf8');
      if (timedOut) resolve({ exitCode: -1, output, timedOut: true });
      // A command that cannot be run: the shell's 126/127, as CRI ExecSync reports it.
      else resolve({ exitCode: code ?? 128 + (signal ? 9 : 0), output });
    });
  });
}
