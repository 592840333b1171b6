/**
 * Where a window's core-seconds went, thread by thread (bench/daemonset.ts): every thread of a
 * process sampled at the window's start and end from /proc/<pid>/task/<tid>/stat (user and system
 * CPU) and /proc/<pid>/task/<tid>/schedstat (time spent runnable but waiting for a core), grouped
 * as the reader needs them: the main thread, V8's platform threads (the garbage collector's helpers
 * and background compiles: util/platform-threads.ts tells them apart by their order of birth), the
 * heavy lane's workers (named `k8ts-heavy…`), the busiest other thread (the control loops' thread
 * in a `k8ts server`) and the rest (libuv's pool, the inspector). And the machine's own idle time
 * in the window (/proc/stat): with nobody else on the host, idle time during a rollout that is not
 * done means the pipeline, not the CPU, held it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { platformThreadIds } from '../../src/util/platform-threads.js';

interface ThreadSample { user: number; sys: number; waitMs: number; born: number; comm: string }

export interface ProcessSnapshot { pid: number; threads: Map<number, ThreadSample> }

const ticksPerMs = 100 / 1000;

function readThread(pid: number, tid: number): ThreadSample | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const sched = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ');
    const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
    return { user: Number(f[11]) / ticksPerMs, sys: Number(f[12]) / ticksPerMs, waitMs: Number(sched[1]) / 1e6, born: Number(f[19]), comm };
  } catch {
    return undefined; // the thread ended
  }
}

export function snapshotThreads(pid: number): ProcessSnapshot {
  const threads = new Map<number, ThreadSample>();
  for (const t of readdirSync(`/proc/${pid}/task`).map(Number)) {
    const s = readThread(pid, t);
    if (s) threads.set(t, s);
  }
  return { pid, threads };
}

/** The machine's busy and idle jiffies so far (first line of /proc/stat), in ms of all cores together. */
export function machineCpu(): { busyMs: number; idleMs: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = (f[3] ?? 0) + (f[4] ?? 0);
  const all = f.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busyMs: (all - idle) / ticksPerMs, idleMs: idle / ticksPerMs };
}

export interface ThreadGroup { name: string; userMs: number; sysMs: number; waitMs: number; threads: number }

/**
 * The window's CPU of `pid` by group (threads born inside the window count from zero). `poolSize`:
 * the process's `--v8-pool-size` (Node 20's default 4).
 */
export function splitThreads(before: ProcessSnapshot, after: ProcessSnapshot, poolSize = 4): ThreadGroup[] {
  const pid = after.pid;
  const births = [...after.threads].map(([tid, s]) => ({ tid, born: s.born }));
  const platform = new Set(platformThreadIds(pid, births, poolSize));
  const delta = new Map<number, { user: number; sys: number; wait: number; comm: string }>();
  for (const [tid, s] of after.threads) {
    const b = before.threads.get(tid);
    delta.set(tid, { user: s.user - (b?.user ?? 0), sys: s.sys - (b?.sys ?? 0), wait: s.waitMs - (b?.waitMs ?? 0), comm: s.comm });
  }
  const groupOf = new Map<number, string>();
  for (const [tid, d] of delta) {
    groupOf.set(tid, tid === pid ? 'main' : platform.has(tid) ? 'V8 platform' : d.comm.startsWith('k8ts-heavy') ? 'heavy lane' : 'other');
  }
  // The busiest ungrouped thread is the worker thread (the control loops'); the rest stay "other".
  let busiest: number | undefined;
  for (const [tid, d] of delta) {
    if (groupOf.get(tid) === 'other' && (busiest === undefined || d.user + d.sys > delta.get(busiest)!.user + delta.get(busiest)!.sys)) busiest = tid;
  }
  if (busiest !== undefined) groupOf.set(busiest, 'busiest other');
  const groups = new Map<string, ThreadGroup>();
  for (const [tid, d] of delta) {
    const name = groupOf.get(tid)!;
    const g = groups.get(name) ?? { name, userMs: 0, sysMs: 0, waitMs: 0, threads: 0 };
    g.userMs += d.user; g.sysMs += d.sys; g.waitMs += d.wait; g.threads++;
    groups.set(name, g);
  }
  const order = ['main', 'busiest other', 'V8 platform', 'heavy lane', 'other'];
  return order.map((n) => groups.get(n)).filter((g): g is ThreadGroup => g !== undefined);
}

/** "main 8.1 s (sys 0.9, waited 2.0), ..." */
export function describeGroups(groups: readonly ThreadGroup[]): string {
  const s = (ms: number) => (ms / 1000).toFixed(2);
  return groups.map((g) => `${g.name}${g.threads > 1 ? ` ×${g.threads}` : ''} ${s(g.userMs + g.sysMs)} s (sys ${s(g.sysMs)}, runnable-waiting ${s(g.waitMs)})`).join(', ');
}
