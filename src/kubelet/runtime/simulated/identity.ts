/**
 * Who a simulated container's processes run as, and `id`, as the Configure
 * a Security Context page reads them (`kubectl exec -it
 * security-context-demo -- sh`, then `id`: `uid=1000 gid=3000
 * groups=2000,3000,4000`).
 *
 * The ids follow the kubelet and containerd: runAsUser and runAsGroup of the
 * container, else of the pod, else the image's user (taken as root: no image
 * is unpacked); the supplementary groups are the primary group, fsGroup and
 * supplementalGroups (the kubelet passes fsGroup as one), and the groups
 * the image's /etc/group gives the user (image-accounts.ts: agnhost's 50000
 * for uid 1000; busybox's `wheel` for root). The kernel
 * keeps them sorted (setgroups), which is the order busybox's id prints;
 * coreutils' id prints the primary group first.
 */
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { lsFlavour } from './ls-columns.js';
import { imageGroups } from './image-accounts.js';

export interface ContainerUser {
  uid: number;
  gid: number;
  /** Supplementary groups, sorted and without repeats, as getgroups returns them. */
  groups: number[];
}

export function containerUser(pod: Pod, c: Container): ContainerUser {
  const podSC = pod.spec?.securityContext;
  const uid = c.securityContext?.runAsUser ?? podSC?.runAsUser ?? 0;
  const gid = c.securityContext?.runAsGroup ?? podSC?.runAsGroup ?? 0;
  // The image's /etc/group where it is known (agnhost: user 1000 in 50000), else busybox's root in wheel.
  const image = imageGroups(c.image, uid) ?? (uid === 0 && lsFlavour(c.image) === 'busybox' ? [0, 10] : []);
  const all = [gid, ...image, ...(podSC?.fsGroup !== undefined ? [podSC.fsGroup] : []), ...(podSC?.supplementalGroups ?? [])];
  return { uid, gid, groups: [...new Set(all)].sort((a, b) => a - b) };
}

/** Names the images' /etc/passwd and /etc/group give the ids the tutorials meet; others print as numbers. */
const userNames: Record<number, string> = { 0: 'root', 65534: 'nobody' };
const groupNames = (busybox: boolean): Record<number, string> => (busybox ? { 0: 'root', 10: 'wheel', 65534: 'nobody' } : { 0: 'root', 65534: 'nogroup' });

/** A uid and a gid as the image's ls -l names them: a name its /etc/passwd or /etc/group has, else the number. */
export const ownerNames = (uid: number, gid: number, image: string | undefined): [string, string] =>
  [userNames[uid] ?? String(uid), groupNames(lsFlavour(image) === 'busybox')[gid] ?? String(gid)];

/** `id` [-u|-g|-G] [-n], busybox's (busybox, alpine) or coreutils' (other images) output; exit 0, or 1 with the usage error. */
export function id(args: string[], user: ContainerUser, image: string | undefined, out: (stream: 'stdout' | 'stderr', text: string) => void): number {
  const busybox = lsFlavour(image) === 'busybox';
  const groups = groupNames(busybox);
  const flags = new Set(args.flatMap((a) => (a.startsWith('-') ? [...a.slice(1)] : [])));
  const unknown = [...flags].find((f) => !'ugGnr'.includes(f));
  if (unknown || args.some((a) => !a.startsWith('-'))) {
    out('stderr', busybox ? `id: ${unknown ? `invalid option -- '${unknown}'` : `unknown user ${args.find((a) => !a.startsWith('-'))}`}\n` : `id: ${unknown ? `invalid option -- '${unknown}'` : `'${args.find((a) => !a.startsWith('-'))}': no such user`}\n`);
    return 1;
  }
  // coreutils lists the primary group first, then the others; busybox as the kernel holds them.
  const list = busybox ? user.groups : [user.gid, ...user.groups.filter((g) => g !== user.gid)];
  const name = (n: number, names: Record<number, string>) => names[n] ?? String(n);
  if (flags.has('u') || flags.has('g') || flags.has('G')) {
    const ids = flags.has('u') ? [user.uid] : flags.has('g') ? [user.gid] : list;
    out('stdout', `${ids.map((n) => (flags.has('n') ? name(n, flags.has('u') ? userNames : groups) : String(n))).join(' ')}\n`);
    return 0;
  }
  const labelled = (n: number, names: Record<number, string>) => (names[n] ? `${n}(${names[n]})` : String(n));
  out('stdout', `uid=${labelled(user.uid, userNames)} gid=${labelled(user.gid, groups)} groups=${list.map((g) => labelled(g, groups)).join(',')}\n`);
  return 0;
}
