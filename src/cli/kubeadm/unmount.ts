/**
 * reset's "Unmounting mounted directories in /var/lib/kubelet": every mount
 * point under the kubelet's directory (pod volumes: tmpfs for secrets and
 * projected tokens, bind mounts) is unmounted, deepest first, so the
 * directory's contents can be deleted (kubeadm's unmountKubeletDirectory).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Mount points under `dir` from /proc/self/mountinfo (octal escapes decoded), deepest first. */
export function mountsUnder(dir: string, mountinfo: string): string[] {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  const points = mountinfo.split('\n').map((line) => line.split(' ')[4]).filter((p): p is string => !!p)
    .map((p) => p.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8))))
    .filter((p) => p.startsWith(prefix));
  return [...new Set(points)].sort((a, b) => b.length - a.length);
}

/** Unmounts them; returns the errors (reset goes on, as kubeadm's does). */
export function unmountKubeletDirectory(dir: string): string[] {
  let info: string;
  try { info = readFileSync('/proc/self/mountinfo', 'utf8'); } catch (e) { return [(e as Error).message]; }
  const errors: string[] = [];
  for (const point of mountsUnder(dir, info)) {
    try {
      execFileSync('umount', [point], { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (e) {
      errors.push(`${point}: ${String((e as { stderr?: Buffer }).stderr ?? (e as Error).message).trim()}`);
    }
  }
  return errors;
}
