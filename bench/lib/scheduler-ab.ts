/**
 * bench/scheduler.ts --baseline DIR: this build and another built checkout, interleaved.
 *
 * Each round runs each build's own `dist/bench/scheduler.js --runs 1 --no-write` in a child process
 * (a fresh server, scheduler and pod creator of that build, as one run of the benchmark alone), in
 * the order A B, then B A, and so on, so that a load that rises or falls through the run weighs on
 * both. The children's result lines (the same words in every build since sched10) are read back
 * and the rounds tabulated with each pair's difference: CPU per pod of each process is what the
 * noisy shared host leaves readable, pods/s only indicative.
 */
import { loadavg } from 'node:os';
import { median } from './stats.js';
import { table } from './results.js';
import { runBenchChild, type Build } from './ab-child.js';

export interface SchedulerAbRow {
  round: number;
  build: string;
  loadBefore: number;
  loadAfter: number;
  /** scheduler_perf's SchedulingThroughput Average. */
  throughput: number;
  /** CPU ms a pod over the window, user + system, whole process and main thread. */
  serverMs: number;
  serverMainMs: number;
  schedulerMs: number;
  schedulerMainMs: number;
  /** The server's write syscalls a pod (NaN when the build's bench did not log them). */
  serverWrites: number;
}

const cpuLine = /\d+ nodes: CPU ms\/pod, user \+ system: server ([\d.]+) \+ ([\d.]+), scheduler ([\d.]+) \+ ([\d.]+); main threads: server ([\d.]+), scheduler ([\d.]+)/;
const throughputLine = /\d+ nodes: \d+ bound, SchedulingThroughput Average (\d+)/;
const syscallLine = /server syscalls per pod in the window: ([\d.]+) writes/;

/** A child's result lines read into a row; undefined when it printed none. */
export function parseSchedulerRun(output: string, round: number, build: string, loadBefore: number, loadAfter: number): SchedulerAbRow | undefined {
  const c = cpuLine.exec(output);
  const t = throughputLine.exec(output);
  if (!c || !t) return undefined;
  return {
    round, build, loadBefore, loadAfter, throughput: Number(t[1]),
    serverMs: Number(c[1]) + Number(c[2]), serverMainMs: Number(c[5]),
    schedulerMs: Number(c[3]) + Number(c[4]), schedulerMainMs: Number(c[6]),
    serverWrites: Number(syscallLine.exec(output)?.[1] ?? NaN),
  };
}

/** `rounds` rounds of one run per build, alternating which goes first; the rows in the order they ran. */
export async function runSchedulerInterleaved(builds: Build[], rounds: number, childArgs: string[], log: (s: string) => void): Promise<SchedulerAbRow[]> {
  const rows: SchedulerAbRow[] = [];
  for (let r = 1; r <= rounds; r++) {
    for (const b of r % 2 === 1 ? builds : [...builds].reverse()) {
      const loadBefore = loadavg()[0]!;
      log(`round ${r}: ${b.label} (${b.root}), load ${loadBefore.toFixed(1)}`);
      const row = parseSchedulerRun(await runBenchChild(b, 'scheduler.js', childArgs), r, b.label, loadBefore, loadavg()[0]!);
      if (!row) throw new Error(`${b.label}: no result line in its output`);
      rows.push(row);
    }
  }
  return rows;
}

const f3 = (n: number) => (Number.isNaN(n) ? 'n/a' : n.toFixed(3));
const f1 = (n: number) => (Number.isNaN(n) ? 'n/a' : n.toFixed(1));
const signed = (v: number) => (v >= 0 ? '+' : '') + v.toFixed(3);

/** The rows as run, the medians per build, then each round's difference (first build − second) and how often it was lower. */
export function renderSchedulerInterleaved(rows: SchedulerAbRow[], builds: Build[]): string {
  const runs = table(
    ['Round', 'Build', 'Load before → after', 'SchedulingThroughput Average', 'Server CPU ms/pod (main)', 'Scheduler CPU ms/pod (main)', 'Both', 'Server writes / pod'],
    rows.map((r) => [String(r.round), r.build, `${f1(r.loadBefore)} → ${f1(r.loadAfter)}`, String(r.throughput), `${f3(r.serverMs)} (${f3(r.serverMainMs)})`,
      `${f3(r.schedulerMs)} (${f3(r.schedulerMainMs)})`, f3(r.serverMs + r.schedulerMs), r.serverWrites.toFixed(2)]),
  );
  const metrics: [string, (r: SchedulerAbRow) => number][] = [
    ['server ms/pod', (r) => r.serverMs], ['server main ms/pod', (r) => r.serverMainMs],
    ['scheduler ms/pod', (r) => r.schedulerMs], ['scheduler main ms/pod', (r) => r.schedulerMainMs], ['both ms/pod', (r) => r.serverMs + r.schedulerMs],
  ];
  const med = (b: string, f: (r: SchedulerAbRow) => number) => median(rows.filter((r) => r.build === b).map(f));
  const medians = table(['Build', ...metrics.map(([m]) => `median ${m}`), 'median pods/s'],
    builds.map((b) => [b.label, ...metrics.map(([, f]) => f3(med(b.label, f))), String(med(b.label, (r) => r.throughput))]));
  const [a, b] = builds;
  const pairs = [...new Set(rows.map((r) => r.round))].flatMap((round) => {
    const x = rows.find((r) => r.round === round && r.build === a!.label);
    const y = rows.find((r) => r.round === round && r.build === b!.label);
    return x && y ? [{ x, y }] : [];
  });
  const lower = metrics.map(([m, f]) => {
    const d = pairs.map(({ x, y }) => f(x) - f(y));
    return `- ${m}: ${a!.label} − ${b!.label} per round ${d.map(signed).join(', ')} (median ${signed(median(d))}; lower in ${d.filter((v) => v < 0).length} of ${d.length})`;
  });
  return [runs, '', medians, '', ...lower].join('\n');
}
