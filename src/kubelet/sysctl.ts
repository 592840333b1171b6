/**
 * The kubelet's sysctl allowlist (upstream pkg/kubelet/sysctl: allowlist.go,
 * safe_sysctls.go), the first pod admission check: every sysctl a pod sets
 * in spec.securityContext.sysctls must be allowlisted on the node, or the pod
 * is rejected with reason SysctlForbidden. The rules, in order, per sysctl:
 *  1. Its name is normalized (`net/ipv4/ip_local_port_range` reads as
 *     `net.ipv4.ip_local_port_range`: when the first separator is `/`, the
 *     `/` and `.` swap).
 *  2. A name on the list (or under a listed `prefix*`) is allowed, unless
 *     its namespace is the host's: an IPC sysctl with hostIPC or a network
 *     one with hostNetwork: `"NAME" not allowed with host IPC|Net enabled`.
 *  3. Anything else: `"NAME" not allowlisted`.
 * The list is 1.32's safe sysctls (those namespaced in every kernel 1.32
 * supports), plus what the node allows as unsafe (--allowed-unsafe-sysctls).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';

export const sysctlForbiddenReason = 'SysctlForbidden';

/** SafeSysctlAllowlist (1.32). */
export const safeSysctls: readonly string[] = [
  'kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start', 'net.ipv4.ip_local_reserved_ports', 'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes', 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem',
];

type Namespace = 'IPC' | 'Net' | '';

/** NamespacedBy: the namespace a sysctl (or prefix) lives in, '' when it is not namespaced. */
function namespacedBy(name: string): Namespace {
  if (name.startsWith('kernel.shm') || name.startsWith('kernel.msg') || name.startsWith('kernel.sem') || name.startsWith('fs.mqueue.')) return 'IPC';
  return name.startsWith('net.') ? 'Net' : '';
}

/** The pattern a --allowed-unsafe-sysctls entry must match (SysctlContainSlashPatternFmt). */
export const sysctlPatternFmt = '([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]';
const sysctlPattern = new RegExp(`^${sysctlPatternFmt}$`);

/**
 * NewAllowlist of the safe sysctls and the node's --allowed-unsafe-sysctls. The kubelet refuses to
 * start, in these words, on a pattern that is malformed or names no namespaced sysctl: a sysctl the
 * kernel does not namespace would change the node itself, not the pod's sandbox.
 */
export function nodeSysctlAllowlist(unsafe: readonly string[]): SysctlAllowlist {
  const names: string[] = [];
  for (const pattern of unsafe) {
    if (pattern.length > 253 || !sysctlPattern.test(pattern)) {
      throw new Error(`sysctl ${JSON.stringify(pattern)} must have at most 253 characters and match regex ${sysctlPatternFmt}`);
    }
    const name = normalizeSysctlName(pattern);
    const prefix = name.endsWith('*') ? name.slice(0, -1) : name;
    if (namespacedBy(prefix) === '') throw new Error(`the sysctls ${JSON.stringify(prefix)} are not known to be namespaced`);
    names.push(name);
  }
  return new SysctlAllowlist([...safeSysctls, ...names]);
}

/** NormalizeName: a name whose first separator is `/` has its `/` and `.` swapped. */
export function normalizeSysctlName(name: string): string {
  const first = name.search(/[./]/);
  if (first === -1 || name[first] === '.') return name;
  return name.replace(/[./]/g, (c) => (c === '.' ? '/' : '.'));
}

export class SysctlAllowlist {
  private readonly names = new Map<string, Namespace>();
  private readonly prefixes = new Map<string, Namespace>();

  constructor(allowed: readonly string[] = safeSysctls) {
    for (const entry of allowed) {
      if (entry.endsWith('*')) this.prefixes.set(entry.slice(0, -1), namespacedBy(entry.slice(0, -1)));
      else this.names.set(entry, namespacedBy(entry));
    }
  }

  /** Why `pod` may not run here, or undefined when every sysctl it sets is allowed. */
  forbidden(pod: Pod): string | undefined {
    for (const s of pod.spec?.securityContext?.sysctls ?? []) {
      const err = this.validate(normalizeSysctlName(s.name), !!pod.spec?.hostNetwork, !!pod.spec?.hostIPC);
      if (err) return `forbidden sysctl: ${err}`;
    }
    return undefined;
  }

  private validate(name: string, hostNet: boolean, hostIPC: boolean): string | undefined {
    let ns = this.names.get(name);
    if (ns === undefined) for (const [p, pns] of this.prefixes) if (name.startsWith(p)) { ns = pns; break; }
    if (ns === undefined) return `"${name}" not allowlisted`;
    if ((ns === 'IPC' && hostIPC) || (ns === 'Net' && hostNet)) return `"${name}" not allowed with host ${ns} enabled`;
    return undefined;
  }
}
