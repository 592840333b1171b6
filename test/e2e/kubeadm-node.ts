/**
 * Test tools for kubeadm-style nodes on one machine: each node keeps its files
 * under its own --prefix and either listens on its own loopback address and
 * ports in the host's network namespace, or runs inside a network namespace
 * the test created (`inNode`), as a separate machine would.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inMachine } from '../../src/cli/lab/machine.js';
import { cliPath } from './harness.js';

export interface RunResult { stdout: string; stderr: string; code: number }

/** Turns a command line into one that runs on a given node (identity: this machine). */
export type OnNode = (argv: string[]) => string[];

/**
 * A command line run on a node of a multi-node test: inside network namespace
 * `netns`, with host name `hostName`, exactly as `k8ts lab exec` runs it
 * (src/cli/lab/machine.ts says how and why).
 */
export const inNode = (netns: string, hostName: string): OnNode => inMachine(netns, hostName);

function runCommand(argv: string[], input?: string): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = execFile(argv[0]!, argv.slice(1), { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ stdout, stderr, code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0 });
    });
    child.stdin!.end(input ?? '');
  });
}

/** Runs `k8ts ARGS` to completion (init, join, reset, token), on `node` when given. */
export function k8ts(args: string[], input?: string, node: OnNode = (a) => a): Promise<RunResult> {
  return runCommand(node([process.execPath, cliPath, ...args]), input);
}

import { freePort } from './free-port.js';
export { freePort };

export const tempPrefix = (name: string) => mkdtempSync(join(tmpdir(), `k8ts-kubeadm-${name}-`));

/** Every file under dir (relative paths), to show that a failed command wrote nothing. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    let entries: string[];
    try { entries = readdirSync(d); } catch { return; }
    for (const e of entries) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p, `${rel}${e}/`);
      else out.push(`${rel}${e}`);
    }
  };
  walk(dir, '');
  return out.sort();
}

/** `kubectl ARGS` with a kubeconfig, on `node` when given. */
export async function kubectl(kubeconfig: string, args: string[], node: OnNode = (a) => a): Promise<RunResult> {
  const r = await runCommand(node(['kubectl', '--kubeconfig', kubeconfig, ...args]));
  return { ...r, code: r.code === 0 ? 0 : 1 };
}

/** init's local etcd on free ports, so that nodes sharing the host's network do not meet on kubeadm's 2379-2381. */
export async function etcdPortArgs(): Promise<string[]> {
  return ['--etcd-client-port', String(await freePort()), '--etcd-peer-port', String(await freePort()), '--etcd-metrics-port', String(await freePort())];
}
