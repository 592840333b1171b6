/**
 * What an exec sees of a simulated container's filesystem beyond its
 * volumes (program.ts): only what the simulation knows. `/` lists the
 * top-level directories of the image's base (busybox's, or Debian's for
 * the others; empty here: no image is unpacked) and the container's mount points; `/etc`
 * holds the files the kubelet and runtime write into every container,
 * hostname, hosts (upstream's managed hosts file) and resolv.conf (the
 * sandbox's DNS configuration, when the node knows its cluster DNS), next
 * to mounted files.
 */
import { posix } from 'node:path';
import type { ContainerView } from './program.js';
import { lsFlavour } from './ls-columns.js';
import { managedHostsFile, type PodHosts } from '../../hosts-file.js';

const topLevel = ['bin', 'dev', 'etc', 'home', 'lib', 'proc', 'root', 'sys', 'tmp', 'usr', 'var'];
/** Debian 12's (the nginx, httpd and debian images' base): busybox's and the FHS rest. */
const debianTopLevel = [...topLevel, 'boot', 'lib64', 'media', 'mnt', 'opt', 'run', 'sbin', 'srv'];

/**
 * The directories under /usr and /var of the images' own trees (empty
 * here), so a write where a real image has a directory succeeds: the
 * lifecycle page's postStart `echo ... > /usr/share/message`. busybox's
 * image has /usr/bin, /usr/sbin, /var/spool and /var/www; Debian's
 * (debian, nginx, httpd ...) the FHS set below.
 */
const secondLevel = {
  busybox: { '/usr': ['bin', 'sbin'], '/var': ['spool', 'www'] },
  coreutils: {
    '/usr': ['bin', 'games', 'include', 'lib', 'libexec', 'local', 'sbin', 'share', 'src'],
    '/var': ['backups', 'cache', 'lib', 'local', 'lock', 'log', 'mail', 'opt', 'run', 'spool', 'tmp'],
  },
} as const;

const union = (a: string[], b: string[] | undefined) => [...new Set([...a, ...(b ?? [])])].sort();

/**
 * The view with the root and /etc as described above; `mountPaths` are the
 * container's volumeMounts (directories even when empty); `imageFiles` what
 * the simulation knows of the image's own files (image-contents.ts), under
 * the layer and volumes like the image's own.
 */
export function withRootFilesystem(view: ContainerView, podIP: string | undefined, mountPaths: string[] = [], hosts: PodHosts = {}, imageFiles: ReadonlyMap<string, string> = new Map(), resolvConf?: string): ContainerView {
  const mountDirs = new Map<string, Set<string>>();
  // A volume mounted over an image directory hides what the image has there.
  const masked = (f: string) => mountPaths.some((m) => m === '/' || f.startsWith(`${m.replace(/\/$/, '')}/`));
  const image = new Map([...imageFiles].filter(([f]) => !masked(f)));
  for (const f of image.keys()) {
    const parts = f.split('/').filter(Boolean);
    for (let i = 0; i < parts.length; i++) {
      const dir = `/${parts.slice(0, i).join('/')}`;
      if (!mountDirs.has(dir)) mountDirs.set(dir, new Set());
      mountDirs.get(dir)!.add(parts[i]!);
    }
  }
  // The working directory exists (the runtime creates it when the image lacks it: redis's WORKDIR /data).
  for (const m of [...mountPaths, view.workingDir]) {
    const parts = m.split('/').filter(Boolean);
    for (let i = 0; i < parts.length; i++) {
      const dir = `/${parts.slice(0, i).join('/')}`;
      if (!mountDirs.has(dir)) mountDirs.set(dir, new Set());
      mountDirs.get(dir)!.add(parts[i]!);
    }
    mountDirs.set(`/${parts.join('/')}`, mountDirs.get(`/${parts.join('/')}`) ?? new Set());
  }
  const etc = new Map([['/etc/hostname', `${view.hostname}\n`], ['/etc/hosts', managedHostsFile(podIP, view.hostname, hosts)]]);
  if (resolvConf !== undefined) etc.set('/etc/resolv.conf', resolvConf);
  const abs = (p: string) => {
    const joined = p.startsWith('/') ? p : `${view.workingDir.replace(/\/$/, '')}/${p}`;
    // `.` and `..` as the kernel resolves them (`ls` with no operand lists `.` of a working directory such as /data).
    return posix.normalize(joined).replace(/(.)\/$/, '$1');
  };
  return {
    ...view,
    readFile: (p) => view.readFile(p) ?? etc.get(abs(p)) ?? image.get(abs(p)),
    listDir: (p) => {
      const path = abs(p);
      const known = mountDirs.get(path);
      const mounted = known || view.listDir(p) ? union([...(known ?? [])], view.listDir(p)) : undefined;
      const top = lsFlavour(view.image) === 'busybox' ? topLevel : debianTopLevel;
      if (path === '/') return union(top, mounted);
      if (path === '/etc') return union([...etc.keys()].map((f) => f.slice('/etc/'.length)), mounted);
      const standard: Record<string, readonly string[]> = secondLevel[lsFlavour(view.image)];
      const parent = path.slice(0, path.lastIndexOf('/')) || '/';
      if (standard[path]) return union([...standard[path]], mounted);
      if (top.includes(path.slice(1)) || standard[parent]?.includes(path.slice(parent.length + 1))) return mounted ?? [];
      return mounted;
    },
  };
}
