/**
 * Test tools for kubeadm-style nodes on one machine: each node keeps its files
 * under its own --prefix and listens on its own loopback address and ports
 * (no network namespaces: every node shares the host's, on 127.0.0.x).
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath } from './harness.js';

export interface RunResult { stdout: string; stderr: string; code: number }

/** Runs `k8ts ARGS` to completion (init, join, reset, token). */
export function k8ts(args: string[], input?: string): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [cliPath, ...args], { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ stdout, stderr, code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0 });
    });
    child.stdin!.end(input ?? '');
  });
}

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

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

/** `kubectl ARGS` with a kubeconfig. */
export function kubectl(kubeconfig: string, args: string[]): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ stdout, stderr, code: err ? 1 : 0 });
    });
  });
}
