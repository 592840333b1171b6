/**
 * What a signal from `kill` (kill.ts) does to a process ps lists, other than
 * what the kernel keeps from a namespace's init (kill.ts handles PID 1):
 *
 *  1. nginx's master reloads on SIGHUP: it starts a new worker with the
 *     configuration read again and lets the old one finish, so ps shows the
 *     worker with a new PID (pid-namespace.ts rule 3), as the Share Process
 *     Namespace page's `kill -HUP 8` shows. So does `kill -HUP 1` of nginx
 *     in its own namespace, and `nginx -s reload`.
 *  2. Another container's main process, seen in the pod's shared PID
 *     namespace, is not init there: the signal reaches it as it would its
 *     own program (the runtime decides: nginx and redis exit on their stop
 *     signals, kill.ts mainExitOnSignal).
 *  3. Anything else (a worker, an exec's shell, /pause) changes nothing.
 */
import type { SimulatedProcess } from './processes.js';
import { nginxWorkerKey } from './processes.js';
import type { PidNamespace } from './pid-namespace.js';

export interface SignalTargets {
  pids?: PidNamespace;
  signalContainer?(name: string, signal: number): void;
}

const hup = 1;

export function signalListed(p: SimulatedProcess | undefined, signal: number, ctx: SignalTargets): void {
  const c = p?.container;
  if (!p || !c) return;
  if (p.args.startsWith('nginx: master') && signal === hup) { reloadNginx(c.name, ctx); return; }
  if (p.key === `${c.name}/0`) ctx.signalContainer?.(c.name, signal);
}

/** Rule 1: nginx of container `name` reloads; its worker is a new process. */
export function reloadNginx(name: string, ctx: SignalTargets): void {
  ctx.pids?.replace(nginxWorkerKey(name));
}
