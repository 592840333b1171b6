/**
 * `ps` in a simulated container (busybox's, as the Configure a Security
 * Context and Share Process Namespace pages run it): the processes a real
 * container would show, made up from the pod's spec since none runs.
 *
 *  - A container's main process is its command (command then args); ash
 *    execs a script that is one simple command, so `sh -c "sleep 1h"` shows
 *    as `sleep 1h`. Without a command, the image's entrypoint where the
 *    simulation knows it (nginx: its master and one worker, the worker as
 *    user 101; hello-app: `./hello-app`; agnhost: `/agnhost` with the args,
 *    `pause` without), else the image's default `sh`.
 *  - With shareProcessNamespace every container's processes are listed
 *    after the sandbox's `/pause` (PID 1); otherwise the container's own
 *    main process is PID 1.
 *  - Then the exec's own processes: its shell, and ps itself.
 *
 * PIDs come from the pod's or container's PID namespace (pid-namespace.ts):
 * handed out in that order the first time they are listed, kept by the
 * long-lived processes, new for every ps; ps lists by PID. TIME is always
 * 0:00.
 */
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { containerUser } from './identity.js';
import { helloAppOnAlpine, runsUntilStopped } from './image-entrypoints.js';
import { PidNamespace } from './pid-namespace.js';
import { agnhostImage } from './image-accounts.js';

export interface SimulatedProcess {
  uid: number;
  args: string;
  /** The container the process runs in (its root is what /proc/PID/root shows: proc-files.ts). */
  container?: Container;
  /** A long-lived process's name in its PID namespace (it keeps its PID); absent: a command, a new PID each time it runs. */
  key?: string;
  /** PIDs its start used before it (pid-namespace.ts). */
  gap?: number;
}

/** A process with the PID its namespace gave it. */
export type NumberedProcess = SimulatedProcess & { pid: number };

/**
 * The PIDs of `processes` in namespace `ns` (a new one, as for a lone ps,
 * when the caller keeps none), handed out in the order given; sorted by PID
 * as ps lists them.
 */
export function withPids<T extends SimulatedProcess>(processes: T[], ns = new PidNamespace()): (T & { pid: number })[] {
  const numbered = processes.map((p) => ({ ...p, pid: p.key === undefined ? ns.fresh(p.gap) : ns.pidOf(p.key, p.gap) }));
  return numbered.sort((a, b) => a.pid - b.pid);
}

/**
 * The PID of long-lived process `key` in `ns`, numbered after the long-lived
 * `processes` before it (a debug container's shell after its target's), as a
 * ps would list them; the commands among them take no PID.
 */
export function pidOfProcess(processes: SimulatedProcess[], key: string, ns: PidNamespace): number {
  withPids(processes.filter((p) => p.key !== undefined), ns);
  return ns.pidOf(key);
}

/** The key of a container's main process in its PID namespace. */
export const mainProcessKey = (container: string) => `${container}/0`;

/** The key of nginx's worker of `container`, which SIGHUP to its master replaces (kill.ts). */
export const nginxWorkerKey = (container: string) => `${container}/worker`;

const shells = new Set(['sh', '/bin/sh', 'bash', '/bin/bash']);

/** The main process of a container (and the workers its image forks). */
function containerProcesses(pod: Pod, c: Container, shared: boolean): SimulatedProcess[] {
  return mainProcesses(pod, c).map((p, i) => {
    const worker = p.args.startsWith('nginx: worker');
    // In a shared namespace the nginx image's entrypoint scripts run after /pause, before the master (the page's PID 8).
    const gap = shared && p.args.startsWith('nginx: master') ? 1 : 0;
    return { ...p, container: c, key: worker ? nginxWorkerKey(c.name) : i === 0 ? mainProcessKey(c.name) : `${c.name}/${i}`, ...(gap ? { gap } : {}) };
  });
}

function mainProcesses(pod: Pod, c: Container): SimulatedProcess[] {
  const { uid } = containerUser(pod, c);
  // agnhost's ENTRYPOINT ["/agnhost"] (CMD ["pause"]) runs whatever args the pod gives it, unless a command replaces it.
  const entrypoint = !c.command?.length && agnhostImage.test(c.image ?? '') ? ['/agnhost', ...(c.args?.length ? [] : ['pause'])] : [];
  const argv = [...entrypoint, ...(c.command ?? []), ...(c.args ?? [])];
  if (argv.length) {
    // ash (and bash) exec a `-c` script that is one simple command.
    if (shells.has(argv[0]!) && argv[1] === '-c' && argv.length === 3 && /^[\w./ =:-]+$/.test(argv[2]!.trim())) return [{ uid, args: argv[2]!.trim() }];
    return [{ uid, args: argv.join(' ') }];
  }
  if (runsUntilStopped(c.image)) return [{ uid, args: '/pause' }];
  if (/(^|\/)nginx(:|@|$)/.test(c.image ?? '')) return [{ uid, args: 'nginx: master process nginx -g daemon off;' }, { uid: 101, args: 'nginx: worker process' }];
  if (helloAppOnAlpine.test(c.image ?? '')) return [{ uid, args: './hello-app' }];
  // The images' CMD: bash in Debian's and Ubuntu's, sh in busybox's and alpine's.
  return [{ uid, args: /(^|\/)(ubuntu|debian)(:|@|$)/.test(c.image ?? '') ? 'bash' : 'sh' }];
}

/** What ps in container `c` sees before the exec's own processes: the pod's (shared) or the container's. */
export function visibleProcesses(pod: Pod, c: Container): SimulatedProcess[] {
  // An ephemeral container with a target joins that container's PID namespace (kubectl debug --target).
  const target = (pod.spec?.ephemeralContainers ?? []).find((e) => e.name === c.name)?.targetContainerName;
  const targetSpec = target && !pod.spec?.shareProcessNamespace ? pod.spec?.containers.find((x) => x.name === target) : undefined;
  if (targetSpec) return [...containerProcesses(pod, targetSpec, false), ...containerProcesses(pod, c, false)];
  if (!pod.spec?.shareProcessNamespace) return containerProcesses(pod, c, false);
  // The page shows the sandbox's pause as root (pause images before 3.8 ran as root).
  const ephemeral = (pod.spec.ephemeralContainers ?? []).some((e) => e.name === c.name) ? containerProcesses(pod, c, true) : [];
  return [{ uid: 0, args: '/pause', key: 'pause' }, ...(pod.spec.containers ?? []).flatMap((x) => containerProcesses(pod, x, true)), ...ephemeral];
}

/** Which PID namespace container `c` is in: the pod's with shareProcessNamespace, its target's (kubectl debug --target), else its own. */
export function pidNamespaceName(pod: Pod, c: Container): string {
  if (pod.spec?.shareProcessNamespace) return '';
  return (pod.spec?.ephemeralContainers ?? []).find((e) => e.name === c.name)?.targetContainerName ?? c.name;
}

const userName = (uid: number) => (uid === 0 ? 'root' : uid === 65534 ? 'nobody' : String(uid));

/** busybox ps's table: `PID   USER     TIME  COMMAND`, then `%5u %-8.8s %5s %s` rows. */
export function busyboxPs(processes: NumberedProcess[]): string {
  const rows = processes.map((p) => `${String(p.pid).padStart(5)} ${userName(p.uid).padEnd(8).slice(0, 8)} ${'0:00'.padStart(5)} ${p.args}\n`);
  return `PID   USER     TIME  COMMAND\n${rows.join('')}`;
}
