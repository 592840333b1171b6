/**
 * The serving thread's wake-up delays, and who held its CPU meanwhile (bench/bystander.ts
 * --perf-sched). The bystander's GET waits for the serving thread to wake; on a busy machine that
 * thread, woken by the GET's bytes, waits on a run queue first. /proc's schedstat gives the total
 * wait only; the kernel's scheduler events (`perf sched record -a`, root) give each wake-up: when
 * the thread was woken (sched_waking), when it got a CPU (sched_switch to it), and which threads
 * ran on that CPU in between. That tells the wait the server's own threads caused (the heavy-lane
 * worker, V8's platform threads: what their priority decides) from the wait other processes
 * caused (other sessions, which no priority of ours orders under autogroup).
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { serverThreads } from './bystander-rows.js';
import { percentile } from './stats.js';

/** Who held a CPU: a class of the server's threads, this benchmark's own threads, or anything else. */
export type Holder = 'heavy lane' | 'V8 platform' | 'other server threads' | 'the benchmark' | 'other processes' | 'nothing (idle)';

export interface WakeDelays {
  wakeups: number;
  p50Ms: number;
  p99Ms: number;
  totalMs: number;
  /** Of totalMs: how long each holder ran on the CPU the serving thread then got, while it waited. */
  byHolder: Partial<Record<Holder, number>>;
}

/** Starts `perf sched record -a` into `file`; stop() ends it (SIGINT) once perf has written its data. */
export function recordScheduler(file: string): { stop(): Promise<void> } {
  const perf = spawn('perf', ['sched', 'record', '-a', '-o', file], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => perf.once('exit', () => resolve()));
  return { stop: async () => { perf.kill('SIGINT'); await exited; } };
}

/** The holder of each thread id: the server's threads by class (read after the row: a heavy worker starts with its first job) and this process's. */
export function holdersOf(pid: number, platformThreads: number): Map<number, Holder> {
  const roles = new Map<number, Holder>();
  const byClass = { loop: 'other server threads', heavy: 'heavy lane', platform: 'V8 platform', other: 'other server threads' } as const;
  for (const t of serverThreads(pid, platformThreads)) roles.set(t.tid, byClass[t.cls]);
  for (const t of readdirSync('/proc/self/task')) roles.set(Number(t), 'the benchmark');
  roles.set(0, 'nothing (idle)');
  return roles;
}

interface Run { tid: number; from: number; to: number }

/** Reads `perf script` of a `perf sched record` and measures each wake-up of thread `loop`. */
export async function loopWakeDelays(file: string, loop: number, holders: Map<number, Holder>): Promise<WakeDelays> {
  const script = spawn('perf', ['script', '-i', file, '-F', 'cpu,time,event,trace'], { stdio: ['ignore', 'pipe', 'ignore'] });
  return wakeDelaysOf(createInterface({ input: script.stdout }), loop, holders);
}

/**
 * The measure itself, over `perf script -F cpu,time,event,trace` lines: from each sched_waking of
 * `loop` to the sched_switch that puts it on a CPU, and what ran on that CPU in between.
 */
export async function wakeDelaysOf(lines: AsyncIterable<string> | Iterable<string>, loop: number, holders: Map<number, Holder>): Promise<WakeDelays> {
  const delays: number[] = [];
  const byHolder: Partial<Record<Holder, number>> = {};
  // Per CPU: what runs now (since when), and the runs that ended since the serving thread was woken.
  const current = new Map<number, { tid: number; since: number }>();
  const runs = new Map<number, Run[]>();
  let wokeAt: number | undefined;
  const switchRe = /\[(\d+)\]\s+([\d.]+):\s+sched:sched_switch: .*prev_pid=(\d+) .*==> .*next_pid=(\d+) /;
  const wakingRe = /\s([\d.]+):\s+sched:sched_waking: .*pid=(\d+) /;
  for await (const line of lines) {
    const w = wakingRe.exec(line);
    if (w) { if (Number(w[2]) === loop && wokeAt === undefined) wokeAt = Number(w[1]); continue; }
    const s = switchRe.exec(line);
    if (!s) continue;
    const cpu = Number(s[1]), at = Number(s[2]), next = Number(s[4]);
    const prev = current.get(cpu) ?? { tid: Number(s[3]), since: at };
    const list = runs.get(cpu) ?? [];
    if (wokeAt !== undefined) list.push({ tid: prev.tid, from: Math.max(prev.since, wokeAt), to: at });
    runs.set(cpu, list);
    current.set(cpu, { tid: next, since: at });
    if (next !== loop || wokeAt === undefined) continue;
    delays.push((at - wokeAt) * 1000);
    for (const r of list) {
      const h = holders.get(r.tid) ?? 'other processes';
      byHolder[h] = (byHolder[h] ?? 0) + (r.to - r.from) * 1000;
    }
    wokeAt = undefined;
    runs.clear();
  }
  return { wakeups: delays.length, p50Ms: percentile(delays, 50), p99Ms: percentile(delays, 99), totalMs: delays.reduce((a, b) => a + b, 0), byHolder };
}

/** One line: the wake-ups, their delay and each holder's share of it. */
export function describeWakeDelays(d: WakeDelays): string {
  const held = Object.entries(d.byHolder).filter(([, ms]) => ms >= 0.5).sort((a, b) => b[1] - a[1]).map(([h, ms]) => `${h} ${Math.round(ms)} ms`).join(', ');
  return `serving thread woken ${d.wakeups} times, delay to a CPU p50 ${d.p50Ms.toFixed(2)} ms, p99 ${d.p99Ms.toFixed(2)} ms, ${Math.round(d.totalMs)} ms in all; its CPU meanwhile ran: ${held || 'nothing'}`;
}
