/**
 * V8's scavenges run on their own thread alone while the heavy lane works
 * (docs/threads.md, "Priorities"). A scavenge is parallel by default: its
 * isolate's thread and V8's platform threads (platform-threads.ts) copy the
 * young generation together. The heavy lane's worker builds a heap of a
 * million objects, and its scavenges were most of those shared threads' work
 * during attacks 3a and 3c: on 2 cores, the worker on one core and its
 * scavenge helpers on the other, at the background nice but able to hold, for
 * a slice, the core a waking serving thread needs (a bystander's GET during
 * 3a and 3c: 2.08x and 2.12x of idle on a quiet machine). While a job runs, every
 * scavenge of the process is serial, so the worker's stay on the worker's own
 * thread and core; the flag is set back once no job runs, so a server that
 * serves no large body (pod creates, applies) scavenges as before.
 *
 * `--parallel-scavenge` is read by V8 at each scavenge, so it can change
 * while the process runs (node's v8.setFlagsFromString). It is one flag for
 * the whole process, so a server started with its own scavenge or GC-thread
 * flags keeps them.
 *
 * Opt-in (K8TS_HEAVY_SERIAL_SCAVENGES=1) until a quiet machine decides: it
 * halves the platform threads' CPU per 3a/3c attack, but while a job runs the
 * serving thread's own scavenges are serial too, and in one of three runs at
 * load 27 the bystander's p99 during 3c was 7.2x against main's 1.1x
 * (bench/RESULTS.md `bystander-atk3`).
 */
import { setFlagsFromString } from 'node:v8';

/** Node options that decide scavenge parallelism themselves: then it is theirs, never changed here. */
export function scavengeFlagsGiven(nodeOptions: readonly string[] = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]): boolean {
  return nodeOptions.some((o) => /^--(?:no[-_])?(?:parallel[-_]scavenge|single[-_]threaded(?:[-_]gc)?)(?:=|$)/.test(o));
}

/** Owners with a job running (a process may hold several pools: tests do). */
export class SerialScavenges {
  private readonly busy = new Set<object>();

  constructor(private readonly enabled: boolean, private readonly setFlags: (flags: string) => void = setFlagsFromString) {}

  /** `owner` has a job running or not; the flag changes only when the first starts and the last ends. */
  note(owner: object, running: boolean): void {
    if (!this.enabled || running === this.busy.has(owner)) return;
    if (running) this.busy.add(owner);
    else this.busy.delete(owner);
    if (running && this.busy.size === 1) this.setFlags('--no-parallel-scavenge');
    else if (!running && this.busy.size === 0) this.setFlags('--parallel-scavenge');
  }
}

/** The process's: on when asked for and node was given no scavenge flags of its own. */
export const serialScavenges = new SerialScavenges(process.env.K8TS_HEAVY_SERIAL_SCAVENGES === '1' && !scavengeFlagsGiven());
