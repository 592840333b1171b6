/**
 * What `ls -l` shows of a simulated container's files: type, mode, owner,
 * group, size, link count, time and a symlink's target. Nothing keeps real
 * inodes, so each is derived from where the path lives, by the rules the
 * kubelet and a container runtime follow:
 *
 *  1. A ConfigMap, Secret, downward API or projected volume is laid out as
 *     the kubelet's atomic writer makes it (pkg/volume/util/atomic_writer.go):
 *     the files in a directory `..YYYY_MM_DD_HH_MM_SS.N`, `..data` a
 *     symlink to it, and each top-level name a symlink `NAME -> ..data/NAME`.
 *     Files take their item's mode, else defaultMode, else 0644; the mount's
 *     directory is an emptyDir's (0777; tmpfs, so 1777, for Secret,
 *     downward API and projected volumes).
 *  2. An emptyDir's directory is 0777 root:root.
 *  3. With the pod's fsGroup, the kubelet's SetVolumeOwnership
 *     (pkg/volume/volume_linux.go) gives the projected volumes and emptyDirs
 *     that group (symlinks too), ORs 0660 (0440 for the read-only projected
 *     kinds) into every mode and setgid and 0110 into directories' — the
 *     Configure a Security Context page's `drwxrwsrwx 2 root 2000 ... demo`.
 *  4. What the container wrote (its layer, a writable volume) is its
 *     user's, with umask 022 (files 0644, directories 0755); in a setgid
 *     directory the group is the directory's and new directories keep setgid,
 *     as the kernel does; elsewhere the user's primary group.
 *  5. The rest is the image's: root:root, directories 0755 (/tmp 1777, /root
 *     0700, /proc and /sys 0555), files 0644.
 *
 * Approximations: every time is the container's start time (nothing records
 * when a file was written); directories are 4096 bytes (ext4's, also for
 * tmpfs mounts); a file another container or an earlier pod wrote into a
 * shared volume shows as this container's user's.
 */
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import type { Container, Pod, Volume } from 'kubernetes-types/core/v1.js';
import type { ContainerUser } from './identity.js';
import type { WritableLayer } from './layer.js';
import type { VolumeMountView } from './volumes.js';

export interface FileStat {
  type: 'dir' | 'file' | 'link';
  /** Permission bits with setuid, setgid and sticky (07777). */
  mode: number;
  uid: number;
  gid: number;
  size: number;
  nlink: number;
  mtime: Date;
  /** A symlink's target, as readlink gives it. */
  target?: string;
}

export interface StatDeps {
  pod: Pod;
  spec: Container;
  user: ContainerUser;
  startedAt: Date;
  workingDir: string;
  /** The instance's writable layer and writable volumes (layer.ts, volumes.ts). */
  layer: WritableLayer;
  volumes: readonly VolumeMountView[];
  /** The image's files and the mount points (rootfs.ts), under the layer. */
  lower: { readFile(path: string): string | undefined; listDir(path: string): string[] | undefined };
  /** The container's whole view. */
  readBytes(path: string): Buffer | undefined;
  listDir(path: string): string[] | undefined;
  /** The mode the kubelet gave a projected file (program.ts). */
  projectedMode?(path: string): number | undefined;
}

const clean = (p: string) => posix.normalize(p).replace(/(.)\/$/, '$1');
const under = (path: string, m: string) => path === m || path.startsWith(m === '/' ? m : `${m}/`);
const projectedKind = (v: Volume | undefined) => !!(v?.configMap || v?.secret || v?.downwardAPI || v?.projected);
const imageDirModes: Record<string, number> = { '/tmp': 0o1777, '/var/tmp': 0o1777, '/root': 0o700, '/proc': 0o555, '/sys': 0o555 };

/** The atomic writer's directory name: the time it wrote (here the start) and MkdirTemp's random number (here from the pod and volume). */
export function dataDirName(pod: Pod, volume: string, at: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const stamp = `${at.getUTCFullYear()}_${two(at.getUTCMonth() + 1)}_${two(at.getUTCDate())}_${two(at.getUTCHours())}_${two(at.getUTCMinutes())}_${two(at.getUTCSeconds())}`;
  const n = createHash('sha256').update(`${pod.metadata?.uid ?? ''}/${volume}`).digest().readUInt32BE(0);
  return `..${stamp}.${n}`;
}

/**
 * Where a path through the atomic writer's `..data` link or its data
 * directory leads (rule 1): `/etc/secret-volume/..data/my-group` is the
 * volume's `/etc/secret-volume/my-group`, as the kernel follows the link.
 * `mounts` are the container's projected mount points (no subPath).
 */
export function throughDataDirectory(path: string, mounts: readonly string[]): string {
  for (const m of mounts) {
    if (!path.startsWith(m === '/' ? m : `${m}/`)) continue;
    const rest = path.slice(m.length + 1);
    const first = rest.split('/')[0]!;
    if (first === '..data' || /^\.\.\d{4}(_\d\d){5}\.\d+$/.test(first)) return `${m}${rest.slice(first.length)}`;
  }
  return path;
}

/** stat(2) for the container (the rules above), and the entries listDir leaves out (`..data` and its directory). */
export function containerStat(d: StatDeps): { stat(path: string): FileStat | undefined; hiddenEntries(path: string): string[] } {
  const volumes = new Map((d.pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  const mounts = (d.spec.volumeMounts ?? []).map((m) => ({ path: clean(m.mountPath), name: m.name, volume: volumes.get(m.name), subPath: m.subPath }))
    .sort((a, b) => b.path.length - a.path.length);
  const fsGroup = d.pod.spec?.securityContext?.fsGroup;
  const abs = (p: string) => clean(posix.isAbsolute(p) ? p : posix.join(d.workingDir, p));
  const base = { mtime: d.startedAt, uid: 0, gid: 0, nlink: 1 };
  const subdirs = (path: string) => (d.listDir(path) ?? []).filter((e) => d.listDir(posix.join(path, e)) !== undefined).length;
  const dir = (path: string, mode: number, owner = { uid: 0, gid: 0 }): FileStat => ({ ...base, ...owner, type: 'dir', mode, size: 4096, nlink: 2 + subdirs(path) });
  const file = (size: number, mode: number, owner = { uid: 0, gid: 0 }): FileStat => ({ ...base, ...owner, type: 'file', mode, size });
  // Rule 3: the kubelet's SetVolumeOwnership.
  const owned = (s: FileStat, readOnly: boolean): FileStat => {
    if (fsGroup === undefined) return s;
    if (s.type === 'link') return { ...s, gid: fsGroup };
    return { ...s, gid: fsGroup, mode: s.mode | (readOnly ? 0o440 : 0o660) | (s.type === 'dir' ? 0o2110 : 0) };
  };

  const projected = (path: string, m: (typeof mounts)[number]): FileStat | undefined => {
    if (m.subPath) { const data = d.readBytes(path); return data && owned(file(data.length, d.projectedMode?.(path) ?? 0o644), true); }
    const ts = dataDirName(d.pod, m.name, d.startedAt);
    const rel = path.slice(m.path.length + 1);
    // Secret, downward API and projected volumes are memory-backed emptyDirs (their plugins' wrapped volume); a ConfigMap's is on disk.
    const tmpfs = !!(m.volume?.secret || m.volume?.downwardAPI || m.volume?.projected);
    // The mount's only real subdirectory is the data directory: the top-level names are symlinks.
    if (path === m.path) return owned({ ...dir(path, tmpfs ? 0o1777 : 0o777), nlink: 3 }, true);
    if (rel === '..data') return owned({ ...base, type: 'link', mode: 0o777, size: ts.length, target: ts }, true);
    if (rel === ts) return owned({ ...dir(path, 0o755), nlink: 2 + subdirs(m.path) }, true);
    // Inside the data directory: the files themselves (what the top-level symlinks point at).
    if (rel.startsWith(`${ts}/`)) {
      const real = `${m.path}/${rel.slice(ts.length + 1)}`;
      const data = d.readBytes(real);
      if (data) return owned(file(data.length, d.projectedMode?.(real) ?? 0o644), true);
      return d.listDir(real) === undefined ? undefined : owned(dir(real, 0o755), true);
    }
    const top = rel.split('/')[0]!;
    if (d.readBytes(path) === undefined && d.listDir(path) === undefined) return undefined;
    if (!rel.includes('/')) return owned({ ...base, type: 'link', mode: 0o777, size: `..data/${top}`.length, target: `..data/${top}` }, true);
    const data = d.readBytes(path);
    return owned(data ? file(data.length, d.projectedMode?.(path) ?? 0o644) : dir(path, 0o755), true);
  };

  /** Rules 2 and 4: a writable volume's root, or what the container wrote into it. */
  const writable = (path: string, m: (typeof mounts)[number], v: VolumeMountView): FileStat | undefined => {
    const emptyDir = !m.volume?.hostPath && !m.volume?.persistentVolumeClaim;
    if (path === m.path) { const root = dir(path, m.volume?.hostPath ? 0o755 : 0o777); return emptyDir ? owned(root, false) : root; }
    const inner = posix.join('/', v.subPath ?? '', path.slice(m.path.length));
    const setgid = emptyDir && fsGroup !== undefined;
    const owner = { uid: d.user.uid, gid: setgid ? fsGroup! : d.user.gid };
    const data = v.volume.files.get(inner);
    if (data) return file(data.length, 0o644, owner);
    return v.volume.dirs.has(inner) ? dir(path, setgid ? 0o2755 : 0o755, owner) : undefined;
  };

  /** Rules 4 and 5: the layer over the image. */
  const layered = (path: string): FileStat | undefined => {
    const owner = { uid: d.user.uid, gid: d.user.gid };
    const written = d.layer.files.get(path);
    if (written) return file(written.length, 0o644, owner);
    if (d.lower.listDir(path) !== undefined) return dir(path, imageDirModes[path] ?? 0o755);
    const image = d.lower.readFile(path);
    if (image !== undefined) return file(Buffer.byteLength(image), 0o644);
    return d.layer.dirs.has(path) ? dir(path, 0o755, owner) : undefined;
  };

  const stat = (p: string): FileStat | undefined => {
    const path = abs(p);
    const m = mounts.find((x) => under(path, x.path));
    if (m && projectedKind(m.volume)) return projected(path, m);
    const v = m && d.volumes.find((x) => clean(x.mountPath) === m.path);
    if (m && v) return writable(path, m, v);
    return layered(path);
  };
  /** The mount's `..data` and data directory; the data directory's own entries (and its subdirectories'), which are the mount's. */
  const hiddenEntries = (p: string): string[] => {
    const path = abs(p);
    const m = mounts.find((x) => under(path, x.path) && projectedKind(x.volume) && !x.subPath);
    if (!m) return [];
    const ts = dataDirName(d.pod, m.name, d.startedAt);
    if (path === m.path) return ['..data', ts];
    const rel = path.slice(m.path.length + 1);
    return rel === ts || rel.startsWith(`${ts}/`) ? d.listDir(`${m.path}${rel.slice(ts.length)}`) ?? [] : [];
  };
  return { stat, hiddenEntries };
}
