/**
 * `ps` in a simulated container (busybox's, as the Configure a Security
 * Context and Share Process Namespace pages run it): the processes a real
 * container would show, made up from the pod's spec since none runs.
 *
 *  - A container's main process is its command (command then args); ash
 *    execs a script that is one simple command, so `sh -c "sleep 1h"` shows
 *    as `sleep 1h`. Without a command, the image's entrypoint where the
 *    simulation knows it (nginx: its master and one worker, the worker as
 *    user 101), else the image's default `sh`.
 *  - With shareProcessNamespace every container's processes are listed
 *    after the sandbox's `/pause` (PID 1); otherwise the container's own
 *    main process is PID 1.
 *  - Then the exec's own processes: its shell, and ps itself.
 *
 * PIDs are made up (increasing, in that order) and TIME is always 0:00.
 */
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { containerUser } from './identity.js';
import { runsUntilStopped } from './image-entrypoints.js';

export interface SimulatedProcess {
  uid: number;
  args: string;
  /** The container the process runs in (its root is what /proc/PID/root shows: proc-files.ts). */
  container?: Container;
}

const shells = new Set(['sh', '/bin/sh', 'bash', '/bin/bash']);

/** The main process of a container (and the workers its image forks). */
function containerProcesses(pod: Pod, c: Container): SimulatedProcess[] {
  return mainProcesses(pod, c).map((p) => ({ ...p, container: c }));
}

function mainProcesses(pod: Pod, c: Container): SimulatedProcess[] {
  const { uid } = containerUser(pod, c);
  const argv = [...(c.command ?? []), ...(c.args ?? [])];
  if (argv.length) {
    // ash (and bash) exec a `-c` script that is one simple command.
    if (shells.has(argv[0]!) && argv[1] === '-c' && argv.length === 3 && /^[\w./ =:-]+$/.test(argv[2]!.trim())) return [{ uid, args: argv[2]!.trim() }];
    return [{ uid, args: argv.join(' ') }];
  }
  if (runsUntilStopped(c.image)) return [{ uid, args: '/pause' }];
  if (/(^|\/)nginx(:|@|$)/.test(c.image ?? '')) return [{ uid, args: 'nginx: master process nginx -g daemon off;' }, { uid: 101, args: 'nginx: worker process' }];
  // The images' CMD: bash in Debian's and Ubuntu's, sh in busybox's and alpine's.
  return [{ uid, args: /(^|\/)(ubuntu|debian)(:|@|$)/.test(c.image ?? '') ? 'bash' : 'sh' }];
}

/** What ps in container `c` sees before the exec's own processes: the pod's (shared) or the container's. */
export function visibleProcesses(pod: Pod, c: Container): SimulatedProcess[] {
  // An ephemeral container with a target joins that container's PID namespace (kubectl debug --target).
  const target = (pod.spec?.ephemeralContainers ?? []).find((e) => e.name === c.name)?.targetContainerName;
  const targetSpec = target && !pod.spec?.shareProcessNamespace ? pod.spec?.containers.find((x) => x.name === target) : undefined;
  if (targetSpec) return [...containerProcesses(pod, targetSpec), ...containerProcesses(pod, c)];
  if (!pod.spec?.shareProcessNamespace) return containerProcesses(pod, c);
  // The page shows the sandbox's pause as root (pause images before 3.8 ran as root).
  const ephemeral = (pod.spec.ephemeralContainers ?? []).some((e) => e.name === c.name) ? containerProcesses(pod, c) : [];
  return [{ uid: 0, args: '/pause' }, ...(pod.spec.containers ?? []).flatMap((x) => containerProcesses(pod, x)), ...ephemeral];
}

const userName = (uid: number) => (uid === 0 ? 'root' : uid === 65534 ? 'nobody' : String(uid));

/** busybox ps's table: `PID   USER     TIME  COMMAND`, then `%5u %-8.8s %5s %s` rows. */
export function busyboxPs(processes: SimulatedProcess[]): string {
  let pid = 1;
  const rows = processes.map((p, i) => {
    if (i > 0) pid += 6;
    return `${String(pid).padStart(5)} ${userName(p.uid).padEnd(8).slice(0, 8)} ${'0:00'.padStart(5)} ${p.args}\n`;
  });
  return `PID   USER     TIME  COMMAND\n${rows.join('')}`;
}
