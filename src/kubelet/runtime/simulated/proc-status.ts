/**
 * /proc/1/status of a simulated container, as the Configure a Security
 * Context page reads it (`cd /proc/1; cat status`) for its capability
 * bitmaps: the fields a 6.1 kernel prints, in its order. The ids, groups,
 * capability sets (capabilities.ts), NoNewPrivs (allowPrivilegeEscalation:
 * false) and Seccomp mode (2, a filter, for a RuntimeDefault or Localhost
 * profile; the kubelet's default is Unconfined) follow the pod's spec; the
 * memory, signal and scheduling figures are invented and fixed.
 */
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { capabilityHex, containerCapabilities } from './capabilities.js';
import { containerUser } from './identity.js';
import type { SimulatedProcess } from './processes.js';

/** The process's comm: its program's base name, at most 15 characters (TASK_COMM_LEN); nginx's master and workers are `nginx`. */
function comm(args: string): string {
  const program = args.startsWith('nginx:') ? 'nginx' : args.split(' ')[0]!;
  return program.slice(program.lastIndexOf('/') + 1).slice(0, 15);
}

/** The seccomp mode: 2 (filter) under a RuntimeDefault or Localhost profile of the container or the pod, else 0. */
function seccompMode(pod: Pod, c: Container): number {
  const type = c.securityContext?.seccompProfile?.type ?? pod.spec?.securityContext?.seccompProfile?.type;
  return type === 'RuntimeDefault' || type === 'Localhost' ? 2 : 0;
}

export function procStatus(pod: Pod, main: SimulatedProcess | undefined, spec: Container, pid = 1): string {
  const c = main ? main.container ?? { name: 'pause' } : spec;
  const user = containerUser(pod, c);
  const uid = main?.uid ?? user.uid;
  const caps = containerCapabilities(pod, c);
  const seccomp = seccompMode(pod, c);
  const ids = (n: number) => `${n}\t${n}\t${n}\t${n}`;
  const fields: [string, string | number][] = [
    ['Name', comm(main?.args ?? 'sh')], ['Umask', '0022'], ['State', 'S (sleeping)'], ['Tgid', pid], ['Ngid', 0], ['Pid', pid], ['PPid', 0], ['TracerPid', 0],
    ['Uid', ids(uid)], ['Gid', ids(user.gid)], ['FDSize', 64], ['Groups', user.groups.map((g) => `${g} `).join('')],
    ['NStgid', pid], ['NSpid', pid], ['NSpgid', pid], ['NSsid', pid],
    ['VmPeak', '    4336 kB'], ['VmSize', '    4336 kB'], ['VmLck', '       0 kB'], ['VmPin', '       0 kB'], ['VmHWM', '     764 kB'], ['VmRSS', '     764 kB'],
    ['RssAnon', '      88 kB'], ['RssFile', '     676 kB'], ['RssShmem', '       0 kB'], ['VmData', '     144 kB'], ['VmStk', '     132 kB'],
    ['VmExe', '     792 kB'], ['VmLib', '     576 kB'], ['VmPTE', '      48 kB'], ['VmSwap', '       0 kB'], ['HugetlbPages', '       0 kB'],
    ['CoreDumping', 0], ['THP_enabled', 1], ['Threads', 1], ['SigQ', '0/31529'],
    ['SigPnd', '0000000000000000'], ['ShdPnd', '0000000000000000'], ['SigBlk', '0000000000000000'], ['SigIgn', '0000000000000000'], ['SigCgt', '0000000000010002'],
    ['CapInh', capabilityHex(caps.inheritable)], ['CapPrm', capabilityHex(caps.permitted)], ['CapEff', capabilityHex(caps.effective)],
    ['CapBnd', capabilityHex(caps.bounding)], ['CapAmb', capabilityHex(caps.ambient)],
    ['NoNewPrivs', c.securityContext?.allowPrivilegeEscalation === false ? 1 : 0], ['Seccomp', seccomp], ['Seccomp_filters', seccomp ? 1 : 0],
    ['Speculation_Store_Bypass', seccomp ? 'thread force mitigated' : 'thread vulnerable'], ['SpeculationIndirectBranch', 'conditional enabled'],
    ['Cpus_allowed', 3], ['Cpus_allowed_list', '0-1'], ['Mems_allowed', '00000000,00000001'], ['Mems_allowed_list', 0],
    ['voluntary_ctxt_switches', 40], ['nonvoluntary_ctxt_switches', 2],
  ];
  return fields.map(([k, v]) => `${k}:\t${v}\n`).join('');
}
