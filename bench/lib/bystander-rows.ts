/**
 * The rows of bench/bystander.ts and what is read from them. The machine is shared and a row's p99
 * of 100 or 300 GETs is one of its slowest few samples, so each attack runs for tens of seconds with
 * an idle row before and after it, several times over, and an attack's figure is the p99 of all its
 * rows' GETs pooled (hundreds to thousands of samples: upstream's SLI is a p99 over 5 minutes of
 * calls, sig-scalability/slos/slos.md), beside the p99 of the idle rows adjacent to them pooled the
 * same way, each with its distribution-free 95% interval (quantile-interval.ts), and the ratio's.
 * Each repeat's own p99 and ratio are listed too: the interval assumes independent samples, and a
 * host whose speed swings between repeats shows there instead.
 *
 * Each row also reads the serving thread's /proc/<pid>/task/<pid>/schedstat: the time it ran on a
 * CPU and the time it waited on a run queue, ready but not running. A bystander that waits while
 * the loop ran was waiting for our work; one that waits while the loop sat on a run queue was
 * waiting for the machine (other threads and processes holding the cores).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fmtMs, median, percentile } from './stats.js';
import { percentileInterval, ratioInterval, type QuantileInterval } from './quantile-interval.js';

export interface Row {
  /** The server measured (`this`, or `base` for the baseline build's). */
  server: string;
  name: string;
  outcome: string;
  attacks: number;
  samples: number[];
  /** Server CPU (all threads) per attack, ms. */
  cpuMs: number;
  /** The row's wall time and the serving thread's time on a CPU and on a run queue in it, ms. */
  wallMs: number;
  loopRunMs: number;
  loopWaitMs: number;
  /** CPU of the heavy lane's workers and of V8's platform threads in the row, ms (threadClasses). */
  heavyRunMs?: number;
  platformRunMs?: number;
  /** With --gc-log: the serving thread's GC pauses in the row (ms each), and how many of the row's slowest 2% of GETs overlapped one. */
  gcPauses?: number[];
  slowDuringGc?: { slow: number; duringGc: number };
}

/** The samples that set a row's p99: its slowest 2% (at least two). */
export function slowest(samples: readonly number[]): number {
  return percentile(samples, 98);
}

/** Time on a CPU and waiting on a run queue, ms. */
export interface Sched { runMs: number; waitMs: number }

/**
 * Every thread's schedstat, summed by what the thread is: `loop` (the main thread), `heavy` (the
 * heavy lane's workers, named k8ts-heavy), `platform` (V8's platform threads: Node 20 starts its
 * delayed-task scheduler and then `--v8-pool-size` workers, 4 by default, right after the main
 * thread, before anything of ours runs; all are named `node`, so they are told by their order of
 * birth) and `other` (libuv's pool, the signal thread, other workers). A thread that ended
 * (a replaced worker) drops out, so a row's difference can be short by its time.
 */
export function threadClasses(pid: number, platformThreads = 5): Record<ThreadClass, Sched> {
  const out = { loop: zero(), heavy: zero(), platform: zero(), other: zero() };
  for (const t of serverThreads(pid, platformThreads)) {
    out[t.cls].runMs += t.sched.runMs;
    out[t.cls].waitMs += t.sched.waitMs;
  }
  return out;
}

export type ThreadClass = 'loop' | 'heavy' | 'platform' | 'other';

/**
 * The server's threads by class: the serving thread, heavy-lane workers (named k8ts-heavy), V8's
 * platform threads (the first `platformThreads` born after the main thread) and the rest.
 */
export function serverThreads(pid: number, platformThreads = 5): { tid: number; cls: ThreadClass; sched: Sched }[] {
  const tasks = processTasks(pid);
  tasks.sort((a, b) => a.born - b.born || a.tid - b.tid);
  let order = 0;
  return tasks.map((t) => ({ tid: t.tid, sched: t.sched, cls: (t.tid === pid ? 'loop' : t.comm.startsWith('k8ts-heavy') ? 'heavy' : order++ < platformThreads ? 'platform' : 'other') as ThreadClass }));
}

function processTasks(pid: number): { tid: number; born: number; comm: string; sched: Sched }[] {
  const tasks: { tid: number; born: number; comm: string; sched: Sched }[] = [];
  let names: string[] = [];
  try { names = readdirSync(`/proc/${pid}/task`); } catch { /* the process ended */ }
  for (const t of names) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
      const [run, wait] = readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').trim().split(' ').map(Number);
      tasks.push({ tid: Number(t), born: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]), comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
        sched: { runMs: run! / 1e6, waitMs: wait! / 1e6 } });
    } catch { /* the thread ended meanwhile */ }
  }
  return tasks;
}

const zero = (): Sched => ({ runMs: 0, waitMs: 0 });

/** The serving thread's (the main thread's) time on a CPU and waiting on a run queue, ms. */
export function loopSchedstat(pid: number): { runMs: number; waitMs: number } {
  const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
  return { runMs: run! / 1e6, waitMs: wait! / 1e6 };
}

export const isIdle = (r: Row) => r.name === 'idle';

/** The idle rows of the same server just before and after row `at`. */
export function adjacentIdle(rows: readonly Row[], at: number): number[] {
  return [at - 1, at + 1].filter((i) => rows[i] !== undefined && isIdle(rows[i]!) && rows[i]!.server === rows[at]!.server);
}

/** The p99 of an attack row over the mean p99 of the idle rows of the same server just before and after it. */
export function ratioToIdle(rows: readonly Row[], at: number): number {
  const beside = adjacentIdle(rows, at).map((i) => rows[i]!);
  if (beside.length === 0) return NaN;
  const idle = beside.reduce((s, r) => s + percentile(r.samples, 99), 0) / beside.length;
  return percentile(rows[at]!.samples, 99) / idle;
}

/**
 * One server's attack over all its repeats: the p99 of all its GETs and of all the GETs of the idle
 * rows beside them (each idle row once), and their ratio, each with its 95% interval.
 */
export function pooledP99(rows: readonly Row[], at: readonly number[]): { p99: QuantileInterval; idleP99: QuantileInterval; ratio: QuantileInterval } {
  const samples = at.flatMap((i) => rows[i]!.samples);
  const idle = [...new Set(at.flatMap((i) => adjacentIdle(rows, i)))].flatMap((i) => rows[i]!.samples);
  return { p99: percentileInterval(samples, 99), idleP99: percentileInterval(idle, 99), ratio: ratioInterval(samples, idle, 99) };
}

/** Issue 19's target, an attack's p99 within 2x of idle's, read against the ratio's interval. */
export function againstTarget(ratio: QuantileInterval, target = 2): string {
  if (Number.isNaN(ratio.value)) return '';
  if (ratio.high <= target) return `within ${target}x`;
  if (ratio.low > target) return `over ${target}x`;
  return `not told apart (${ratio.value <= target ? 'within' : 'over'} ${target}x, the interval spans it)`;
}

const fmtInterval = (q: QuantileInterval, f: (x: number) => string) => {
  const bound = (x: number) => (Number.isFinite(x) ? f(x) : 'unbounded');
  return `${f(q.value)} [${bound(q.low)}, ${bound(q.high)}]`;
};

const pct = (part: number, whole: number) => `${Math.round((100 * part) / whole)}%`;
const fmtRatio = (x: number) => (Number.isNaN(x) ? 'n/a' : `${x.toFixed(2)}x`);

/**
 * One line per server and attack (idle included): the pooled p99 with its interval (pooledP99), the
 * ratio to the adjacent idle rows' and what it says against 2x, each repeat's p99 (ratio), and the
 * medians over the repeats of the CPU figures.
 */
export function summaryRows(rows: readonly Row[]): string[][] {
  const keys = [...new Set(rows.map((r) => `${r.server}\u0000${r.name}`))];
  return keys.map((key) => {
    const at = rows.flatMap((r, i) => (`${r.server}\u0000${r.name}` === key ? [i] : []));
    const mine = at.map((i) => rows[i]!);
    const p99s = mine.map((r) => percentile(r.samples, 99));
    const ratios = at.map((i) => ratioToIdle(rows, i));
    const idle = isIdle(mine[0]!);
    const pooled = idle ? { p99: percentileInterval(mine.flatMap((r) => r.samples), 99) } : pooledP99(rows, at);
    const ratio = 'ratio' in pooled ? pooled.ratio : undefined;
    const sum = (f: (r: Row) => number) => mine.reduce((s, r) => s + f(r), 0);
    return [
      mine[0]!.server, mine[0]!.name, mine[mine.length - 1]!.outcome, String(sum((r) => r.attacks)), idle ? '' : fmtMs(median(mine.map((r) => r.cpuMs))),
      String(sum((r) => r.samples.length)), fmtMs(percentile(mine.flatMap((r) => r.samples), 50)), fmtInterval(pooled.p99, fmtMs),
      ratio ? fmtInterval(ratio, fmtRatio) : '', ratio ? againstTarget(ratio) : '',
      p99s.map((p, i) => (idle ? fmtMs(p) : `${fmtMs(p)} (${fmtRatio(ratios[i]!)})`)).join(', '), fmtMs(Math.max(...mine.flatMap((r) => r.samples))),
      pct(sum((r) => r.loopRunMs), sum((r) => r.wallMs)), pct(sum((r) => r.loopWaitMs), sum((r) => r.wallMs)),
      idle ? '' : fmtMs(median(mine.map((r) => (r.heavyRunMs ?? NaN) / r.attacks))), idle ? '' : fmtMs(median(mine.map((r) => (r.platformRunMs ?? NaN) / r.attacks))),
      gcColumn(mine), mine[0]!.slowDuringGc ? `${sum((r) => r.slowDuringGc!.duringGc)} of ${sum((r) => r.slowDuringGc!.slow)}` : '',
    ];
  });
}

export const summaryHeaders = ['server', 'attack', 'outcome of the last attack (its time)', 'attacks', 'server CPU per attack (median)', 'bystander GETs',
  'p50 (all GETs)', 'p99 of all GETs [95% interval]', "p99 / adjacent idle rows' p99 [95% interval]", 'against 2x', 'each repeat: p99 (ratio)', 'worst', 'loop on CPU', 'loop on run queue',
  'heavy lane CPU per attack (median)', 'V8 platform threads CPU per attack (median)',
  'loop GC pauses per s, p50 / p99 / longest (all repeats)', 'slowest 2% of GETs during a loop GC pause'];

/** Pauses per second of the rows and their p50, p99 and longest, over all the rows' pauses. */
function gcColumn(rows: readonly Row[]): string {
  if (!rows[0]!.gcPauses) return '';
  const all = rows.flatMap((r) => r.gcPauses!);
  const seconds = rows.reduce((s, r) => s + r.wallMs, 0) / 1000;
  return all.length ? `${(all.length / seconds).toFixed(1)}: ${fmtMs(percentile(all, 50))} / ${fmtMs(percentile(all, 99))} / ${fmtMs(Math.max(...all))}` : '0';
}
