/**
 * A PID namespace of a simulated pod: the pod's sandbox's with
 * shareProcessNamespace, else one per container (an ephemeral container with
 * a target joins its target's). No process runs, but the PIDs behave as the
 * kernel's do for what ps and kill show:
 *
 *  1. A PID is handed out once, in increasing order, and never again while
 *     the namespace lives (pid_max is far off).
 *  2. A long-lived process (a container's main process, nginx's worker, an
 *     exec's shell) keeps its PID from the first time it is listed; a
 *     command (each ps) gets a new one every time it runs.
 *  3. A process that is replaced (nginx's worker after SIGHUP) gets a new
 *     PID, after every PID handed out before.
 *
 * Between two processes a real namespace loses PIDs to short-lived helpers
 * (runc's init, an image's entrypoint scripts): the simulation skips 5, so
 * consecutive processes are 6 apart (1, 7, 13...), and a process may skip
 * more (`gap`: the official nginx image's entrypoint runs its
 * /docker-entrypoint.d scripts before nginx, whose master is PID 8 after
 * /pause in the Share Process Namespace page).
 */
export const pidStep = 6;

export class PidNamespace {
  private next = 1;
  private readonly held = new Map<string, number>();

  /** The PID of long-lived process `key` (rule 2), handed out now if it has none; `gap` more PIDs go to its start's helpers first. */
  pidOf(key: string, gap = 0): number {
    let pid = this.held.get(key);
    if (pid === undefined) {
      pid = this.fresh(gap);
      this.held.set(key, pid);
    }
    return pid;
  }

  /** The long-lived process holding `pid`, if one does. */
  keyOf(pid: number): string | undefined {
    for (const [key, held] of this.held) if (held === pid) return key;
    return undefined;
  }

  /** A PID for a command that runs now (rule 2). */
  fresh(gap = 0): number {
    const pid = this.next + gap;
    this.next = pid + pidStep;
    return pid;
  }

  /** Process `key` was replaced (rule 3): the new one's PID comes after every PID handed out so far. */
  replace(key: string): void {
    this.held.set(key, this.fresh());
  }
}
