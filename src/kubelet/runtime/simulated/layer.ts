/**
 * A simulated container's writable layer: what was written into it (by
 * `kubectl cp` through tar.ts, a shell's `>` redirection) over what its
 * volumes and the root filesystem show. A path under a writable volume's
 * mount (emptyDir, a claim's PV, hostPath: volumes.ts) is that volume's
 * file instead, read and written there, so it outlives the instance as the
 * volume does. As a container runtime's upper layer it belongs to one
 * container instance: a restarted container starts with an empty one, and it
 * goes with the pod. ConfigMap, Secret, downward API and projected volumes
 * (and mounts marked readOnly) are mounted read-only by the kubelet, so a
 * write under one fails as it would in a real container; the rest of the
 * filesystem (/etc/hosts, /tmp, an emptyDir's mount) takes writes, unless the
 * container's securityContext.readOnlyRootFilesystem makes the root (and the
 * runtime's /etc/hosts, /etc/hostname, /etc/resolv.conf) read-only too.
 */
import { posix } from 'node:path';
import type { ContainerView } from './program.js';
import type { VolumeMountView } from './volumes.js';

export interface WritableLayer {
  /** Files by absolute path. */
  files: Map<string, Buffer>;
  /** Directories created by a write, by absolute path (each file's parents too). */
  dirs: Set<string>;
}

export const emptyLayer = (): WritableLayer => ({ files: new Map(), dirs: new Set() });

/** The view with the layer's files and directories over it, and writes going into the layer. */
export function withWritableLayer(view: ContainerView, layer: WritableLayer, readOnlyMounts: readonly string[] = [], volumeMounts: readonly VolumeMountView[] = []): ContainerView {
  const abs = (p: string) => posix.normalize(posix.isAbsolute(p) ? p : posix.join(view.workingDir, p)).replace(/(.)\/$/, '$1');
  const under = (path: string, m: string) => path === m || path.startsWith(m === '/' ? m : `${m}/`);
  const clean = (m: string) => posix.normalize(m).replace(/(.)\/$/, '$1');
  const mounts = readOnlyMounts.map(clean);
  // The deepest volume mount holding the path wins, as the deepest mount does in the kernel.
  const volumes = volumeMounts.map((m) => ({ ...m, mountPath: clean(m.mountPath) })).sort((a, b) => b.mountPath.length - a.mountPath.length);
  // Writable mounts over a read-only root (readOnlyRootFilesystem gives '/' among the read-only ones): the
  // volumes and the runtime's /dev tmpfs. Of a read-only and a writable mount at one path, the read-only one.
  const writable = [...volumes.map((v) => v.mountPath), '/dev'];
  const readOnly = (path: string) => {
    const depth = (list: string[]) => Math.max(-1, ...list.filter((m) => under(path, m)).map((m) => m.length));
    const ro = depth(mounts);
    return ro >= 0 && ro >= depth(writable);
  };
  /** Where a path's file lives: a volume (its path from the volume's root, subPath first) or the layer. */
  const locate = (path: string): { fs: WritableLayer; path: string; root: boolean } => {
    const m = volumes.find((v) => under(path, v.mountPath));
    if (!m) return { fs: layer, path, root: path === '/' };
    return { fs: m.volume, path: posix.join('/', m.subPath ?? '', path.slice(m.mountPath.length)).replace(/(.)\/$/, '$1'), root: path === m.mountPath };
  };
  const children = (fs: WritableLayer, dir: string) => {
    const prefix = dir === '/' ? '/' : `${dir}/`;
    const names = new Set<string>();
    for (const p of [...fs.files.keys(), ...fs.dirs]) {
      if (p.startsWith(prefix) && p.length > prefix.length) names.add(p.slice(prefix.length).split('/')[0]!);
    }
    return names;
  };
  const addParents = (fs: WritableLayer, path: string) => {
    for (let dir = posix.dirname(path); dir !== '/' && !fs.dirs.has(dir); dir = posix.dirname(dir)) fs.dirs.add(dir);
  };
  const bytes = (p: string) => { const at = locate(abs(p)); return at.fs.files.get(at.path); };
  return {
    ...view,
    readFile: (p) => {
      const data = bytes(p);
      return data ? data.toString('utf8') : view.readFile(p);
    },
    readBytes: (p) => {
      const data = bytes(p);
      if (data) return data;
      const text = view.readFile(p);
      return text === undefined ? undefined : Buffer.from(text);
    },
    listDir: (p) => {
      const at = locate(abs(p));
      const below = view.listDir(p);
      const written = children(at.fs, at.path);
      if (!below && !written.size && !at.fs.dirs.has(at.path) && !at.root) return undefined;
      return [...new Set([...(below ?? []), ...written])].sort();
    },
    writeFile: (p, data) => {
      const path = abs(p);
      if (readOnly(path)) return 'Read-only file system';
      const at = locate(path);
      if (data === undefined) {
        if (view.readFile(p) !== undefined || at.fs.files.has(at.path)) return 'File exists';
        if (at.path !== '/') { at.fs.dirs.add(at.path); addParents(at.fs, at.path); }
        return undefined;
      }
      if (at.root || view.listDir(p) || at.fs.dirs.has(at.path)) return 'Is a directory';
      at.fs.files.set(at.path, data);
      addParents(at.fs, at.path);
      return undefined;
    },
    removeFile: (p, recursive) => {
      const path = abs(p);
      if (readOnly(path)) return 'Read-only file system';
      const at = locate(path);
      if (at.fs.files.delete(at.path)) return undefined;
      const prefix = at.path === '/' ? '/' : `${at.path}/`;
      const held = [...at.fs.files.keys(), ...at.fs.dirs].filter((x) => x.startsWith(prefix));
      if (!held.length && !at.fs.dirs.has(at.path)) {
        // What the layer does not hold is the image's or the kubelet's (/etc/hosts: a bind mount), which stays.
        return view.readFile(p) !== undefined ? 'Resource busy' : view.listDir(p) ? undefined : 'No such file or directory';
      }
      if (!recursive) return 'Is a directory';
      for (const x of held) { at.fs.files.delete(x); at.fs.dirs.delete(x); }
      // A mount point and the image's own directories (/tmp) stay; a directory made in the layer goes.
      if (!at.root) at.fs.dirs.delete(at.path);
      return undefined;
    },
  };
}
