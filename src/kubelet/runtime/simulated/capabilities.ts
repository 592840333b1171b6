/**
 * The capability sets of a simulated container's processes, as the Configure
 * a Security Context page reads them from /proc/1/status (CapPrm and CapEff
 * 00000000a80425fb by default, 00000000aa0435fb with NET_ADMIN and SYS_TIME
 * added). They follow what containerd, runc and the kernel do:
 *  1. The bounding set is containerd's default set (CRI's
 *     DefaultCapabilities, the same 14 as Docker's), plus the container's
 *     `capabilities.add`, minus its `drop`, in containerd's order: "ALL" in
 *     add gives every one, "ALL" in drop then removes every one, and the
 *     named adds and drops apply after them (drop ALL, add NET_BIND_SERVICE
 *     keeps that one). A privileged container has every capability the kernel knows
 *     (41 on kernels since 5.9).
 *  2. The inheritable and ambient sets are empty (containerd no longer sets
 *     an inheritable set, since the fix for CVE-2022-24769).
 *  3. A process that runs as root gets the bounding set as its permitted and
 *     effective sets; any other uid gets none: its execve computes them from
 *     file capabilities and the ambient set, both empty.
 */
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { containerUser } from './identity.js';

/** The kernel's capability numbers (include/uapi/linux/capability.h), without the CAP_ prefix, as a manifest names them. */
const capabilityNumbers: readonly string[] = [
  'CHOWN', 'DAC_OVERRIDE', 'DAC_READ_SEARCH', 'FOWNER', 'FSETID', 'KILL', 'SETGID', 'SETUID', 'SETPCAP', 'LINUX_IMMUTABLE',
  'NET_BIND_SERVICE', 'NET_BROADCAST', 'NET_ADMIN', 'NET_RAW', 'IPC_LOCK', 'IPC_OWNER', 'SYS_MODULE', 'SYS_RAWIO', 'SYS_CHROOT',
  'SYS_PTRACE', 'SYS_PACCT', 'SYS_ADMIN', 'SYS_BOOT', 'SYS_NICE', 'SYS_RESOURCE', 'SYS_TIME', 'SYS_TTY_CONFIG', 'MKNOD', 'LEASE',
  'AUDIT_WRITE', 'AUDIT_CONTROL', 'SETFCAP', 'MAC_OVERRIDE', 'MAC_ADMIN', 'SYSLOG', 'WAKE_ALARM', 'BLOCK_SUSPEND', 'AUDIT_READ',
  'PERFMON', 'BPF', 'CHECKPOINT_RESTORE',
];

/** containerd's default set for a container that is not privileged. */
const containerdDefaults = ['CHOWN', 'DAC_OVERRIDE', 'FSETID', 'FOWNER', 'MKNOD', 'NET_RAW', 'SETGID', 'SETUID', 'SETFCAP', 'SETPCAP', 'NET_BIND_SERVICE', 'SYS_CHROOT', 'KILL', 'AUDIT_WRITE'];

const all = (1n << BigInt(capabilityNumbers.length)) - 1n;

/** The bit of a capability as a manifest names it (`NET_ADMIN`, any case: containerd upper-cases it and adds `CAP_`); 0n for a name the kernel does not have. */
function bit(name: string): bigint {
  const n = capabilityNumbers.indexOf(name.toUpperCase());
  return n < 0 ? 0n : 1n << BigInt(n);
}

const isAll = (name: string) => name.toUpperCase() === 'ALL';
const setOf = (names: readonly string[]) => names.reduce((s, name) => (isAll(name) ? s : s | bit(name)), 0n);

export interface CapabilitySets {
  inheritable: bigint;
  permitted: bigint;
  effective: bigint;
  bounding: bigint;
  ambient: bigint;
}

/** The sets of the container's processes (its main process and every exec: runc gives an exec the container's). */
export function containerCapabilities(pod: Pod, c: Container): CapabilitySets {
  const sc = c.securityContext;
  let bounding = all;
  if (!sc?.privileged) {
    // containerd's WithCapabilities: "ALL" added, then "ALL" dropped, then the named adds, then the named drops.
    const add = sc?.capabilities?.add ?? [];
    const drop = sc?.capabilities?.drop ?? [];
    bounding = setOf(containerdDefaults);
    if (add.some(isAll)) bounding = all;
    if (drop.some(isAll)) bounding = 0n;
    bounding = (bounding | setOf(add)) & ~setOf(drop);
  }
  const root = containerUser(pod, c).uid === 0;
  return { inheritable: 0n, permitted: root ? bounding : 0n, effective: root ? bounding : 0n, bounding, ambient: 0n };
}

/** A set as /proc/PID/status prints it: 16 hexadecimal digits. */
export const capabilityHex = (set: bigint) => set.toString(16).padStart(16, '0');
