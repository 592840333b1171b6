/**
 * `k8ts lab exec NAME -- CMD...`: runs CMD on a lab machine (its network namespace and host
 * name) with that machine's settings filled in, so the seed notes' commands can be typed as
 * they are:
 *  - `k8ts init|join|reset` get `--prefix` (the machines share one file system) and
 *    `--cri-socket` (each machine's containerd has a private socket) unless given;
 *    `k8ts token` gets `--kubeconfig PREFIX/etc/kubernetes/admin.conf`, `k8ts etcd` `--prefix`;
 *  - `k8ts` is this k8ts (the same node and entry point), wherever it is installed;
 *  - KUBECONFIG is the machine's admin.conf when it has one (after init), for kubectl.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cliEntry } from '../../util/package-root.js';
import { inMachine } from './machine.js';
import type { LabMachine } from './state.js';

const given = (args: string[], flag: string) => args.some((a) => a === flag || a.startsWith(`${flag}=`));

/** The command line as run on `m`: k8ts's own verbs completed with the machine's flags. */
export function machineCommand(m: LabMachine, argv: string[]): string[] {
  if (argv[0] !== 'k8ts') return argv;
  const [, verb, ...rest] = argv;
  const extra: string[] = [];
  if (verb === 'init' || verb === 'join' || verb === 'reset') {
    if (!given(rest, '--prefix')) extra.push('--prefix', m.prefix);
    if (!given(rest, '--cri-socket')) extra.push('--cri-socket', m.criSocket);
  }
  // etcd snapshot's TLS files default to kubeadm's under --prefix.
  if (verb === 'etcd' && !given(rest, '--prefix')) extra.push('--prefix', m.prefix);
  if (verb === 'token' && !given(rest, '--kubeconfig')) extra.push('--kubeconfig', adminConf(m));
  return [process.execPath, cliEntry(), ...(verb === undefined ? [] : [verb]), ...rest, ...extra];
}

export const adminConf = (m: LabMachine) => join(m.prefix, 'etc/kubernetes/admin.conf');

export function machineEnv(m: LabMachine): NodeJS.ProcessEnv {
  return { ...process.env, ...(existsSync(adminConf(m)) && { KUBECONFIG: adminConf(m) }), K8TS_LAB_MACHINE: m.name };
}

/** Runs argv on m with the terminal's stdio; resolves to its exit code. */
export function execOnMachine(m: LabMachine, argv: string[]): Promise<number> {
  const full = inMachine(m.netns, m.name)(machineCommand(m, argv));
  const child = spawn(full[0]!, full.slice(1), { stdio: 'inherit', env: machineEnv(m) });
  return new Promise((resolve) => {
    child.on('error', (err) => { console.error(`Error: ${err.message}`); resolve(1); });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 0)));
  });
}

/** Runs argv on m and collects its output (lab up's init, lab down's reset). */
export function captureOnMachine(m: LabMachine, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const full = inMachine(m.netns, m.name)(machineCommand(m, argv));
  // The supervised processes init starts inherit stdio: /dev/null, so this one ends when init does.
  const child = spawn(full[0]!, full.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env: machineEnv(m) });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => { stdout += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  return new Promise((resolve) => {
    child.on('error', (err) => resolve({ code: 1, stdout, stderr: stderr + err.message }));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
