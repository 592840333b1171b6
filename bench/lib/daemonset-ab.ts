/**
 * bench/daemonset.ts --baseline DIR: this build and another built checkout, interleaved.
 *
 * Each round runs each build's own `dist/bench/daemonset.js --runs 1 --no-write` in a child
 * process (so its server, its simulated kubelets and this benchmark's code are that build's, each
 * fresh, as one run of the benchmark alone is), in the order A B, then B A, and so on, so that a
 * load that rises or falls through the run weighs on both. The children's log lines are passed
 * through; their result lines (the same words in every build since ds10) are read back, and the
 * rounds and their pairs are tabulated: CPU per pod of each process is what the noisy shared host
 * leaves readable, wall time only indicative.
 */
import { loadavg } from 'node:os';
import { median } from './stats.js';
import { table } from './results.js';
import { runBenchChild, type Build } from './ab-child.js';

export type { Build } from './ab-child.js';

export interface AbRow {
  round: number;
  build: string;
  nodes: number;
  loadBefore: number;
  loadAfter: number;
  /** Create to all Ready, s (NaN past the cutoff). */
  readySec: number;
  serverCpuSec: number;
  serverMainCpuSec: number;
  /** Server CPU per pod net of Lease renewals (all threads, serving thread), ms. */
  serverMsPerPod: number;
  mainMsPerPod: number;
  /** The simulated kubelets' process, per pod net of renewals, ms. */
  benchMsPerPod: number;
  benchCpuSec: number;
  threads: string;
}

/** The words of bench/daemonset.ts's result line (main since ds10, and this build). */
const resultLine = new RegExp(
  String.raw`(\d+) nodes: (?:all \d+ pods Ready in ([\d.]+) s|CUTOFF after [\d.]+ s: \d+/\d+ Ready), `
  + String.raw`server CPU ([\d.]+) s \(main thread ([\d.]+) s; per pod net of leases (-?[\d.]+) ms, main (-?[\d.]+) ms\), `
  + String.raw`bench CPU ([\d.]+) s \(per pod net of leases (-?[\d.]+) ms\)`,
);
const threadsLine = /\d+ nodes: CPU by thread, create → end: (.*)$/;

/** A child's result line and thread line read into a row; undefined when the child printed none. */
export function parseRun(output: string, round: number, build: string, loadBefore: number, loadAfter: number): AbRow | undefined {
  const lines = output.split('\n');
  const m = lines.map((l) => resultLine.exec(l)).find((x) => x !== null);
  if (!m) return undefined;
  const threads = lines.map((l) => threadsLine.exec(l)).find((x) => x !== null)?.[1] ?? '';
  return {
    round, build, nodes: Number(m[1]), loadBefore, loadAfter, readySec: m[2] === undefined ? NaN : Number(m[2]),
    serverCpuSec: Number(m[3]), serverMainCpuSec: Number(m[4]), serverMsPerPod: Number(m[5]), mainMsPerPod: Number(m[6]),
    benchCpuSec: Number(m[7]), benchMsPerPod: Number(m[8]), threads,
  };
}

/** `rounds` rounds of one run per build, alternating which goes first; the rows in the order they ran. */
export async function runInterleaved(builds: Build[], rounds: number, childArgs: string[], log: (s: string) => void): Promise<AbRow[]> {
  const rows: AbRow[] = [];
  for (let r = 1; r <= rounds; r++) {
    const order = r % 2 === 1 ? builds : [...builds].reverse();
    for (const b of order) {
      const loadBefore = loadavg()[0]!;
      log(`round ${r}: ${b.label} (${b.root}), load ${loadBefore.toFixed(1)}`);
      const out = await runBenchChild(b, 'daemonset.js', childArgs);
      const row = parseRun(out, r, b.label, loadBefore, loadavg()[0]!);
      if (!row) throw new Error(`${b.label}: no result line in its output`);
      rows.push(row);
    }
  }
  return rows;
}

const f2 = (n: number) => (Number.isNaN(n) ? 'n/a' : n.toFixed(2));
const f1 = (n: number) => (Number.isNaN(n) ? 'n/a' : n.toFixed(1));

/** The rows as run, then per build the medians, then each round's difference (first build − second) and how often it was lower. */
export function renderInterleaved(rows: AbRow[], builds: Build[]): string {
  const runs = table(
    ['Round', 'Build', 'Nodes', 'Load before → after', 'Create → all Ready (s)', 'Server CPU s (serving thread)', 'Server ms per pod net of leases (serving)', 'Simulated nodes ms per pod net of leases', 'Server + simulated ms per pod'],
    rows.map((r) => [String(r.round), r.build, String(r.nodes), `${f1(r.loadBefore)} → ${f1(r.loadAfter)}`, f1(r.readySec), `${f1(r.serverCpuSec)} (${f1(r.serverMainCpuSec)})`,
      `${f2(r.serverMsPerPod)} (${f2(r.mainMsPerPod)})`, f2(r.benchMsPerPod), f2(r.serverMsPerPod + r.benchMsPerPod)]),
  );
  const med = (b: string, f: (r: AbRow) => number) => median(rows.filter((r) => r.build === b).map(f));
  const metrics: [string, (r: AbRow) => number][] = [
    ['server ms per pod', (r) => r.serverMsPerPod], ['serving thread ms per pod', (r) => r.mainMsPerPod],
    ['simulated nodes ms per pod', (r) => r.benchMsPerPod], ['both ms per pod', (r) => r.serverMsPerPod + r.benchMsPerPod], ['create → Ready s', (r) => r.readySec],
  ];
  const medians = table(['Build', ...metrics.map(([m]) => `median ${m}`)], builds.map((b) => [b.label, ...metrics.map(([, f]) => f2(med(b.label, f)))]));
  const [a, b] = builds;
  const pairs = [...new Set(rows.map((r) => r.round))].map((round) => {
    const x = rows.find((r) => r.round === round && r.build === a!.label);
    const y = rows.find((r) => r.round === round && r.build === b!.label);
    return x && y ? { x, y } : undefined;
  }).filter((p): p is { x: AbRow; y: AbRow } => p !== undefined);
  const lower = metrics.slice(0, 4).map(([m, f]) => {
    const d = pairs.map(({ x, y }) => f(x) - f(y));
    return `${m}: ${a!.label} − ${b!.label} per round ${d.map((v) => (v >= 0 ? '+' : '') + v.toFixed(2)).join(', ')} (median ${f2(median(d))}; lower in ${d.filter((v) => v < 0).length} of ${d.length})`;
  });
  return [runs, '', medians, '', ...lower.map((l) => `- ${l}`)].join('\n');
}
