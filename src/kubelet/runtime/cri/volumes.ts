/**
 * A container's volumeMounts → CRI mounts on host paths (upstream: the volume
 * manager's hostPath and emptyDir plugins, kuberuntime makeMounts), v1.32:
 *
 *  1. hostPath mounts the path as it is, after the type check of its `type`:
 *     DirectoryOrCreate / FileOrCreate create what is missing; Directory,
 *     File, Socket, CharDevice, BlockDevice must exist as that kind
 *     ("hostPath type check failed: <path> is not a directory").
 *  2. emptyDir is a directory the kubelet owns:
 *     <root dir>/pods/<uid>/volumes/kubernetes.io~empty-dir/<name>, kept
 *     across container restarts and removed with the pod. (medium: Memory
 *     gets a plain directory too for now.)
 *  3. configMap, secret, downwardAPI and projected volumes are the
 *     directories ../../volumes/setup.ts wrote, mounted read-only (as
 *     upstream mounts them since 1.10).
 *  4. subPath mounts a directory under the volume, created when missing
 *     (a file of a configMap volume is mounted as the file).
 *  5. Other volume types cannot be mounted by this kubelet yet: the error
 *     keeps the container waiting (ContainerCreating) with the reason.
 */
import { existsSync, mkdirSync, openSync, closeSync, statSync, rmSync } from 'node:fs';
import { join, normalize } from 'node:path';
import type { Container, Pod, Volume } from 'kubernetes-types/core/v1.js';
import type * as cri from './types.js';
import { MountError } from '../../volumes/objects.js';
import { isProjectedVolume } from '../../volumes/projection.js';
import { projectedVolumeDir } from '../../volumes/setup.js';

export { MountError };

export const podDir = (rootDir: string, uid: string) => join(rootDir, 'pods', uid);
export const emptyDirPath = (rootDir: string, uid: string, volume: string) => join(podDir(rootDir, uid), 'volumes', 'kubernetes.io~empty-dir', volume);

function checkHostPath(path: string, type: string): void {
  const st = existsSync(path) ? statSync(path) : undefined;
  switch (type) {
    case '': return;
    case 'DirectoryOrCreate':
      if (!st) mkdirSync(path, { recursive: true, mode: 0o755 });
      else if (!st.isDirectory()) throw new MountError(`hostPath type check failed: ${path} is not a directory`);
      return;
    case 'FileOrCreate':
      if (!st) closeSync(openSync(path, 'a', 0o644));
      else if (!st.isFile()) throw new MountError(`hostPath type check failed: ${path} is not a file`);
      return;
    case 'Directory': if (!st?.isDirectory()) throw new MountError(`hostPath type check failed: ${path} is not a directory`); return;
    case 'File': if (!st?.isFile()) throw new MountError(`hostPath type check failed: ${path} is not a file`); return;
    case 'Socket': if (!st?.isSocket()) throw new MountError(`hostPath type check failed: ${path} is not a socket file`); return;
    case 'CharDevice': if (!st?.isCharacterDevice()) throw new MountError(`hostPath type check failed: ${path} is not a character device`); return;
    case 'BlockDevice': if (!st?.isBlockDevice()) throw new MountError(`hostPath type check failed: ${path} is not a block device`); return;
    default: throw new MountError(`hostPath type check failed: unknown type ${type}`);
  }
}

/** The host path backing a volume, set up for use. */
function volumeHostPath(v: Volume, pod: Pod, rootDir: string): string {
  if (v.hostPath) {
    checkHostPath(v.hostPath.path, v.hostPath.type ?? '');
    return v.hostPath.path;
  }
  if (v.emptyDir) {
    const dir = emptyDirPath(rootDir, pod.metadata!.uid!, v.name);
    mkdirSync(dir, { recursive: true, mode: 0o777 });
    return dir;
  }
  if (isProjectedVolume(v)) return projectedVolumeDir(rootDir, pod.metadata!.uid!, v);
  throw new MountError(`MountVolume.SetUp failed for volume "${v.name}": volume type not supported by this kubelet yet (hostPath, emptyDir, configMap, secret, downwardAPI, projected and persistentVolumeClaim are)`);
}

export function containerMounts(pod: Pod, c: Container, rootDir: string): cri.Mount[] {
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  const mounts: cri.Mount[] = [];
  for (const vm of c.volumeMounts ?? []) {
    const v = volumes.get(vm.name);
    if (!v) throw new MountError(`cannot find volume "${vm.name}" to mount into container "${c.name}"`);
    let hostPath = volumeHostPath(v, pod, rootDir);
    if (vm.subPath) {
      const sub = normalize(vm.subPath);
      if (sub.startsWith('..') || sub.startsWith('/')) throw new MountError(`subPath "${vm.subPath}" must not contain '..' or be absolute`);
      hostPath = join(hostPath, sub);
      if (!existsSync(hostPath)) mkdirSync(hostPath, { recursive: true, mode: 0o755 });
    }
    const readonly = !!vm.readOnly || isProjectedVolume(v);
    mounts.push({ containerPath: vm.mountPath, hostPath, readonly, propagation: 'PROPAGATION_PRIVATE' });
  }
  return mounts;
}

/** Removes the pod's kubelet directory (emptyDirs) once its containers are gone. */
export function removePodDir(rootDir: string, uid: string): void {
  rmSync(podDir(rootDir, uid), { recursive: true, force: true });
}
