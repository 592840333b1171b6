/**
 * A simulated container's writable layer: what was written into it (by
 * `kubectl cp`, through tar.ts) over what its volumes and the root
 * filesystem show. As a container runtime's upper layer it belongs to one
 * container instance: a restarted container starts with an empty one, and it
 * goes with the pod. ConfigMap, Secret, downward API and projected volumes
 * (and mounts marked readOnly) are mounted read-only by the kubelet, so a
 * write under one fails as it would in a real container; the rest of the
 * filesystem (/etc/hosts, /tmp, an emptyDir's mount) takes writes.
 */
import { posix } from 'node:path';
import type { ContainerView } from './program.js';

export interface WritableLayer {
  /** Files by absolute path. */
  files: Map<string, Buffer>;
  /** Directories created by a write, by absolute path (each file's parents too). */
  dirs: Set<string>;
}

export const emptyLayer = (): WritableLayer => ({ files: new Map(), dirs: new Set() });

/** The view with the layer's files and directories over it, and writes going into the layer. */
export function withWritableLayer(view: ContainerView, layer: WritableLayer, readOnlyMounts: readonly string[] = []): ContainerView {
  const abs = (p: string) => posix.normalize(posix.isAbsolute(p) ? p : posix.join(view.workingDir, p)).replace(/(.)\/$/, '$1');
  const mounts = readOnlyMounts.map((m) => posix.normalize(m).replace(/(.)\/$/, '$1'));
  const readOnly = (path: string) => mounts.some((m) => path === m || path.startsWith(m === '/' ? m : `${m}/`));
  const children = (dir: string) => {
    const prefix = dir === '/' ? '/' : `${dir}/`;
    const names = new Set<string>();
    for (const p of [...layer.files.keys(), ...layer.dirs]) {
      if (p.startsWith(prefix) && p.length > prefix.length) names.add(p.slice(prefix.length).split('/')[0]!);
    }
    return names;
  };
  const addParents = (path: string) => {
    for (let dir = posix.dirname(path); dir !== '/' && !layer.dirs.has(dir); dir = posix.dirname(dir)) layer.dirs.add(dir);
  };
  return {
    ...view,
    readFile: (p) => {
      const data = layer.files.get(abs(p));
      return data ? data.toString('utf8') : view.readFile(p);
    },
    readBytes: (p) => {
      const data = layer.files.get(abs(p));
      if (data) return data;
      const text = view.readFile(p);
      return text === undefined ? undefined : Buffer.from(text);
    },
    listDir: (p) => {
      const path = abs(p);
      const below = view.listDir(p);
      const written = children(path);
      if (!below && !written.size && !layer.dirs.has(path)) return undefined;
      return [...new Set([...(below ?? []), ...written])].sort();
    },
    writeFile: (p, data) => {
      const path = abs(p);
      if (readOnly(path)) return 'Read-only file system';
      if (data === undefined) {
        if (view.readFile(p) !== undefined || layer.files.has(path)) return 'File exists';
        if (path !== '/') { layer.dirs.add(path); addParents(path); }
        return undefined;
      }
      if (view.listDir(p) || layer.dirs.has(path)) return 'Is a directory';
      layer.files.set(path, data);
      addParents(path);
      return undefined;
    },
  };
}
