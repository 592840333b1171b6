/**
 * What a private containerd needs on this machine, checked before anything
 * starts and reported as kubeadm reports its pre-flight errors
 * (`[ERROR IsPrivilegedUser]: user is not running as root`,
 * `[ERROR FileExisting-containerd]: containerd not found in system path`),
 * with the one command that installs the missing pieces.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { join } from 'node:path';
import { isPrivilegedUser, runChecks, type Check } from '../kubeadm/preflight.js';
import { cniBinDir } from './config.js';
import { missingArchives, type LocalImage } from './images.js';

export const setupHint = 'To install containerd, runc, the CNI plugins and the local images, run: sudo bash scripts/ci-setup-containerd.sh';

/** kubeadm's FileExisting check: the command is an executable file on $PATH. */
export const fileExisting = (cmd: string): Check => ({
  name: `FileExisting-${cmd}`,
  run: () => (inPath(cmd) ? undefined : `${cmd} not found in system path`),
});

const cniPlugin = (plugin: string): Check => ({
  name: `FileExisting-cni-${plugin}`,
  run: () => (existsSync(join(cniBinDir, plugin)) ? undefined : `CNI plugin ${plugin} not found in ${cniBinDir}`),
});

const imageArchives = (images: LocalImage[]): Check => ({
  name: 'ImageArchives',
  run: () => {
    const missing = missingArchives(images);
    return missing.length ? `image archive(s) not found: ${missing.map((i) => i.file).join(', ')} (scripts/images.sh builds them)` : undefined;
  },
});

/** Whether cmd is an executable file in one of $PATH's directories. */
export function inPath(cmd: string): boolean {
  for (const dir of (process.env.PATH ?? '').split(':').filter(Boolean)) {
    try { accessSync(join(dir, cmd), constants.X_OK); return true; } catch { /* next */ }
  }
  return false;
}

/** Throws a PreflightError (kubeadm's text plus the fix) when the machine cannot run a private containerd. */
export async function containerdPreflight(images: LocalImage[]): Promise<void> {
  const checks = [
    isPrivilegedUser(), ...['containerd', 'runc', 'ctr', 'containerd-shim-runc-v2'].map(fileExisting),
    ...['bridge', 'host-local', 'portmap', 'loopback'].map(cniPlugin), imageArchives(images),
  ];
  try {
    await runChecks(checks, new Set());
  } catch (e) {
    (e as Error).message = (e as Error).message.replace(/\[preflight\] If you know.*$/s, setupHint);
    throw e;
  }
}
