/**
 * The few files under /proc that the Get a Shell to a Running Container
 * page reads (`cat /proc/mounts`, `cat /proc/1/maps`, `kubectl exec
 * shell-demo -- cat /proc/1/mounts`), made up as containerd and the kubelet
 * would lay a container's mounts out:
 *
 *  - mounts (also /proc/self/mounts and /proc/1/mounts): the overlay root,
 *    the runtime's proc, /dev, /dev/pts, mqueue, sysfs, cgroup2 and
 *    /dev/shm; then each volumeMount in the spec's order (an emptyDir,
 *    hostPath or PV on the node's disk, `/dev/sda1 ... ext4`; ConfigMap,
 *    Secret, downward API and projected volumes on `tmpfs`, `ro` when the
 *    kubelet mounts them so), and the kubelet's /etc/hosts,
 *    /dev/termination-log, /etc/hostname and /etc/resolv.conf;
 *  - 1/maps (and self/maps): a memory map of PID 1's program, its heap,
 *    libc and the loader, the stack, vvar, vdso, as the kernel prints it;
 *  - 1/status: PID 1's ids and capability sets (proc-status.ts), and PID/status
 *    of another process it sees or of an exec's shell (`grep Cap /proc/$$/status`);
 *  - uid_map and gid_map (1/ and self/), and the ns/user link: the host's
 *    user namespace (`user:[4026531837]`, the identity map of all 2^32
 *    ids) unless the pod says `hostUsers: false`; then its own, whose ids
 *    0-65535 are 65536 ids of the node from a multiple of 65536, as the
 *    kubelet's user namespace manager hands them out (the Use a User
 *    Namespace With a Pod page's `readlink /proc/self/ns/user` and
 *    `cat /proc/self/uid_map`).
 *
 * Everything is invented: devices, snapshot numbers, inodes and addresses
 * are fixed values, not a node's. Other /proc files do not exist.
 */
import { createHash } from 'node:crypto';
import type { Container, Pod, Volume } from 'kubernetes-types/core/v1.js';
import type { ContainerView } from './program.js';
import { withPids, type SimulatedProcess } from './processes.js';
import { PidNamespace } from './pid-namespace.js';
import { imageContents } from './image-contents.js';
import { procStatus } from './proc-status.js';
import type { FileStat } from './file-stat.js';

const diskMount = (path: string, ro: boolean) => `/dev/sda1 ${path} ext4 ${ro ? 'ro' : 'rw'},relatime 0 0`;

function volumeLine(v: Volume | undefined, path: string, readOnly: boolean): string {
  const tmpfs = !!(v?.configMap || v?.secret || v?.downwardAPI || v?.projected || (v?.emptyDir?.medium === 'Memory'));
  if (!tmpfs) return diskMount(path, readOnly);
  // The kubelet mounts ConfigMap, Secret, downward API and projected volumes read-only (since 1.9).
  const ro = readOnly || !v?.emptyDir;
  return `tmpfs ${path} tmpfs ${ro ? 'ro' : 'rw'},relatime,size=8039152k 0 0`;
}

export function procMounts(pod: Pod, spec: Container): string {
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  const snap = '/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots';
  // readOnlyRootFilesystem: the root is mounted ro, and containerd mounts the sandbox's hosts, hostname and resolv.conf so too.
  const rootRO = !!spec.securityContext?.readOnlyRootFilesystem;
  const lines = [
    `overlay / overlay ${rootRO ? 'ro' : 'rw'},relatime,lowerdir=${snap}/28/fs:${snap}/27/fs:${snap}/26/fs,upperdir=${snap}/41/fs,workdir=${snap}/41/work 0 0`,
    'proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0',
    'tmpfs /dev tmpfs rw,nosuid,size=65536k,mode=755 0 0',
    'devpts /dev/pts devpts rw,nosuid,noexec,relatime,gid=5,mode=620,ptmxmode=666 0 0',
    'mqueue /dev/mqueue mqueue rw,nosuid,nodev,noexec,relatime 0 0',
    'sysfs /sys sysfs ro,nosuid,nodev,noexec,relatime 0 0',
    'cgroup /sys/fs/cgroup cgroup2 ro,nosuid,nodev,noexec,relatime,nsdelegate,memory_recursiveprot 0 0',
    ...(spec.volumeMounts ?? []).map((m) => volumeLine(volumes.get(m.name), m.mountPath, !!m.readOnly)),
    diskMount('/etc/hosts', rootRO),
    diskMount(spec.terminationMessagePath ?? '/dev/termination-log', false),
    diskMount('/etc/hostname', rootRO),
    diskMount('/etc/resolv.conf', rootRO),
    'shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k 0 0',
  ];
  return `${lines.join('\n')}\n`;
}

/** The program PID 1 runs, as its maps name it. */
function programPath(main: SimulatedProcess | undefined): string {
  const args = main?.args ?? 'sh';
  if (args.startsWith('nginx:')) return '/usr/sbin/nginx';
  if (args === '/pause') return '/pause';
  const first = args.split(' ')[0]!;
  // A relative path (hello-app's `./hello-app`) is the image's working directory's: /.
  if (first.startsWith('./')) return first.slice(1);
  return first.startsWith('/') ? first : `/usr/bin/${first}`;
}

export function procMaps(main: SimulatedProcess | undefined): string {
  const prog = programPath(main);
  const rows: [string, string, string, string, string, string][] = [
    ['5581d6a00000-5581d6a2c000', 'r--p', '00000000', '00:33', '2625357', prog],
    ['5581d6a2c000-5581d6b0e000', 'r-xp', '0002c000', '00:33', '2625357', prog],
    ['5581d6b0e000-5581d6b44000', 'r--p', '0010e000', '00:33', '2625357', prog],
    ['5581d6b45000-5581d6b49000', 'r--p', '00144000', '00:33', '2625357', prog],
    ['5581d6b49000-5581d6b67000', 'rw-p', '00148000', '00:33', '2625357', prog],
    ['5581d7f3e000-5581d7f9b000', 'rw-p', '00000000', '00:00', '0', '[heap]'],
    ['7f3b8c9a6000-7f3b8c9cc000', 'r--p', '00000000', '00:33', '2622133', '/usr/lib/x86_64-linux-gnu/libc.so.6'],
    ['7f3b8c9cc000-7f3b8cb21000', 'r-xp', '00026000', '00:33', '2622133', '/usr/lib/x86_64-linux-gnu/libc.so.6'],
    ['7f3b8cb21000-7f3b8cb74000', 'r--p', '0017b000', '00:33', '2622133', '/usr/lib/x86_64-linux-gnu/libc.so.6'],
    ['7f3b8cb74000-7f3b8cb78000', 'r--p', '001ce000', '00:33', '2622133', '/usr/lib/x86_64-linux-gnu/libc.so.6'],
    ['7f3b8cb78000-7f3b8cb7a000', 'rw-p', '001d2000', '00:33', '2622133', '/usr/lib/x86_64-linux-gnu/libc.so.6'],
    ['7f3b8cbbb000-7f3b8cbbc000', 'r--p', '00000000', '00:33', '2622115', '/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2'],
    ['7f3b8cbbc000-7f3b8cbe1000', 'r-xp', '00001000', '00:33', '2622115', '/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2'],
    ['7f3b8cbeb000-7f3b8cbed000', 'rw-p', '00037000', '00:33', '2622115', '/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2'],
    ['7ffd4b2c1000-7ffd4b2e2000', 'rw-p', '00000000', '00:00', '0', '[stack]'],
    ['7ffd4b3c6000-7ffd4b3ca000', 'r--p', '00000000', '00:00', '0', '[vvar]'],
    ['7ffd4b3ca000-7ffd4b3cc000', 'r-xp', '00000000', '00:00', '0', '[vdso]'],
    ['ffffffffff600000-ffffffffff601000', '--xp', '00000000', '00:00', '0', '[vsyscall]'],
  ];
  // The kernel pads the fields before the path to column 73 (show_map_vma's seq_pad).
  return rows.map(([range, perms, off, dev, inode, path]) => `${`${range} ${perms} ${off} ${dev} ${inode} `.padEnd(73)}${path}\n`).join('');
}

/**
 * A file of another container seen through /proc/PID/root (the Share Process
 * Namespace page's `head /proc/8/root/etc/nginx/nginx.conf`): the PIDs are
 * ps's (processes.ts), the file that container's image holds (its writable
 * layer and volumes are not seen from here); the container's own processes
 * show its own files.
 */
function otherRootFile(view: ContainerView, spec: Container, p: string): string | undefined {
  const m = /^\/proc\/(\d+)\/root(\/.*)$/.exec(p);
  const owner = m && withPids(view.processes ?? [], view.pids).find((x) => x.pid === Number(m[1]))?.container;
  if (!owner) return undefined;
  if (owner.name === spec.name) return view.readFile(m![2]!);
  return imageContents(String(owner.image ?? ''))?.files.get(m![2]!);
}

/** The kernel's inode number of the initial (the host's) user namespace, PROC_USER_INIT_INO. */
const hostUserNamespace = 4026531837;
const idsPerPod = 65536;

/** The pod's own user namespace when it asks for one (hostUsers: false): a first host id and an inode, fixed by the pod's UID. */
function podUserNamespace(pod: Pod): { firstID: number; inode: number } | undefined {
  if (pod.spec?.hostUsers !== false) return undefined;
  const h = createHash('sha256').update(pod.metadata?.uid ?? pod.metadata?.name ?? '').digest().readUInt32BE(0);
  // Never the first block (the host's own users), and below 2^32.
  return { firstID: idsPerPod * (1 + (h % (idsPerPod - 2))), inode: 4026532200 + (h % 800) };
}

/** uid_map / gid_map as the kernel prints them (proc_id_map_show: three %10u columns). */
function idMap(pod: Pod): string {
  const own = podUserNamespace(pod);
  const cols = own ? [0, own.firstID, idsPerPod] : [0, 0, 4294967295];
  return `${cols.map((n) => String(n).padStart(10)).join(' ')}\n`;
}

/** /proc/1/ns/user and /proc/self/ns/user: symlinks whose target names the namespace, as readlink shows it. */
function userNamespaceLink(pod: Pod, at: Date): FileStat {
  const inode = podUserNamespace(pod)?.inode ?? hostUserNamespace;
  return { type: 'link', mode: 0o777, uid: 0, gid: 0, size: 0, nlink: 1, mtime: at, target: `user:[${inode}]` };
}

/**
 * /proc/PID/status of a process the container sees other than PID 1: a
 * long-lived one ps lists, or an exec's shell of this container (`grep Cap
 * /proc/$$/status` in `kubectl debug -it` or `kubectl exec`); undefined for a
 * PID no process holds.
 */
function otherProcessStatus(view: ContainerView, pod: Pod, spec: Container, pid: number): string | undefined {
  const ns = view.pids ?? new PidNamespace();
  const listed = withPids((view.processes ?? []).filter((x) => x.key !== undefined), ns).find((x) => x.pid === pid);
  const shell = !listed && ns.keyOf(pid)?.startsWith('exec/') ? { uid: view.user?.uid ?? 0, args: 'sh', container: spec } : undefined;
  const proc = listed ?? shell;
  return proc && procStatus(pod, proc, spec, pid);
}

/** `view` with /proc/mounts and PID 1's mounts, maps and status readable (and /proc/1, /proc/self listed), and other containers' files through /proc/PID/root. */
export function withProcFiles(view: ContainerView, pod: Pod, spec: Container): ContainerView {
  const main = view.processes?.[0];
  const file = (p: string): string | undefined => {
    if (p === '/proc/mounts' || p === '/proc/self/mounts' || p === '/proc/1/mounts') return procMounts(pod, spec);
    if (p === '/proc/1/maps' || p === '/proc/self/maps') return procMaps(main);
    if (p === '/proc/1/status') return procStatus(pod, main, spec);
    const status = /^\/proc\/(\d+)\/status$/.exec(p);
    if (status) return otherProcessStatus(view, pod, spec, Number(status[1]));
    if (/^\/proc\/(1|self)\/[ug]id_map$/.test(p)) return idMap(pod);
    return otherRootFile(view, spec, p);
  };
  const dirs: Record<string, string[]> = {
    '/proc': ['1', 'mounts', 'self'], '/proc/1': ['gid_map', 'maps', 'mounts', 'status', 'uid_map'], '/proc/self': ['gid_map', 'maps', 'mounts', 'uid_map'],
  };
  const stat = view.stat;
  return {
    ...view,
    ...(stat ? { stat: (p: string) => (/^\/proc\/(1|self)\/ns\/user$/.test(p) ? userNamespaceLink(pod, stat('/')?.mtime ?? new Date(0)) : stat(p)) } : {}),
    readFile: (p) => file(p) ?? view.readFile(p),
    ...(view.readBytes ? { readBytes: (p: string) => { const f = file(p); return f === undefined ? view.readBytes!(p) : Buffer.from(f); } } : {}),
    listDir: (p) => dirs[p] ?? view.listDir(p),
  };
}
