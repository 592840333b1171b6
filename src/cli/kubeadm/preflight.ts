/**
 * kubeadm's pre-flight checks (cmd/kubeadm/app/preflight/checks.go): each has a
 * name (`Port-6443`, `FileAvailable--etc-kubernetes-manifests-kube-apiserver.yaml`),
 * failures are collected and reported together, and `--ignore-preflight-errors`
 * (names, case-insensitive, or `all`) turns chosen ones into warnings.
 */
import { createServer } from 'node:net';
import { existsSync, readdirSync } from 'node:fs';

export interface Check {
  name: string;
  /** The failure's message, or undefined when the check passes. */
  run(): Promise<string | undefined> | string | undefined;
}

/** Thrown with kubeadm's text when a non-ignored check fails. */
export class PreflightError extends Error {}

export function parseIgnored(flag: string | undefined): Set<string> {
  return new Set((flag ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean));
}

/** Runs the checks; prints warnings for ignored failures and throws PreflightError for the others. */
export async function runChecks(checks: Check[], ignored: Set<string>, log: (line: string) => void = (l) => console.log(l)): Promise<void> {
  const errors: string[] = [];
  for (const check of checks) {
    const message = await check.run();
    if (message === undefined) continue;
    if (ignored.has('all') || ignored.has(check.name.toLowerCase())) log(`\t[WARNING ${check.name}]: ${message}`);
    else errors.push(`\t[ERROR ${check.name}]: ${message}`);
  }
  if (errors.length) {
    throw new PreflightError(`[preflight] Some fatal errors occurred:\n${errors.join('\n')}\n`
      + '[preflight] If you know what you are doing, you can make a check non-fatal with `--ignore-preflight-errors=...`');
  }
}

/** kubeadm names path checks by the path with '/' as '-': /etc/kubernetes/x.yaml → -etc-kubernetes-x.yaml. */
const pathName = (path: string) => path.replace(/\//g, '-');

export const isPrivilegedUser = (): Check => ({
  name: 'IsPrivilegedUser',
  run: () => (process.getuid?.() === 0 ? undefined : 'user is not running as root'),
});

export const portOpen = (port: number, host?: string): Check => ({
  name: `Port-${port}`,
  run: () => new Promise<string | undefined>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(`Port ${port} is in use`));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(undefined)));
  }),
});

export const fileAvailable = (path: string): Check => ({
  name: `FileAvailable-${pathName(path)}`,
  run: () => (existsSync(path) ? `${path} already exists` : undefined),
});

export const dirAvailable = (path: string): Check => ({
  name: `DirAvailable-${pathName(path)}`,
  run: () => {
    try {
      return readdirSync(path).length ? `${path} is not empty` : undefined;
    } catch {
      return undefined; // absent: available
    }
  },
});

/** The CRI check: the runtime at `endpoint` must answer (`probe` connects and returns an error text or undefined). */
export const containerRuntime = (probe: () => Promise<string | undefined>): Check => ({
  name: 'CRI',
  run: async () => {
    const err = await probe();
    return err === undefined ? undefined : `container runtime is not running: ${err}`;
  },
});
