/**
 * The driver of an in-process CPU benchmark that compares builds: each round
 * runs the measurement once per build, each in a fresh child process of the
 * benchmark's own script (`--child DIST --batches N --batch M`, which prints
 * one number), the builds' order alternating by round so neither always goes
 * first (side-by-side.ts found the first cell after a pause paying 5-10% more).
 * Used by compact-cpu.ts, validation-cpu.ts and ds-sync-plan.ts.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './stats.js';
import { table } from './results.js';
import { benchArgs } from './args.js';

export interface BuildRounds {
  /** The benchmark script's own `import.meta.url`: what each child runs. */
  script: string;
  rounds: number;
  batches: number;
  batch: number;
  /** Another build's dist directory, run in the same rounds; absent: this checkout alone. */
  baselineDist?: string;
}

/** This checkout's dist directory, as seen from a script in dist/bench. */
export const thisDist = (script: string): string => join(dirname(fileURLToPath(script)), '..');

/** Each build's figure per round, this checkout first. */
export function runBuildRounds(o: BuildRounds): Map<string, number[]> {
  const builds: Array<[string, string]> = [['this checkout', thisDist(o.script)]];
  if (o.baselineDist) builds.push(['baseline', o.baselineDist]);
  const results = new Map<string, number[]>(builds.map(([name]) => [name, []]));
  for (let r = 0; r < o.rounds; r++) {
    for (const [name, dist] of r % 2 ? [...builds].reverse() : builds) {
      const out = execFileSync(process.execPath, [fileURLToPath(o.script), '--child', dist, '--batches', String(o.batches), '--batch', String(o.batch)], { encoding: 'utf8' });
      results.get(name)!.push(Number(out.trim()));
    }
  }
  return results;
}

/** Runs the rounds and prints the title line (with the load before and after) and the Markdown table of medians. */
export function printBuildRounds(o: BuildRounds & { title: string; column: string; digits: number; unit?: string }): void {
  const loadStart = loadavg()[0]!.toFixed(1);
  const results = runBuildRounds(o);
  console.log(`${o.title}: ${o.batch} ${o.unit ?? 'pods'} a batch, ${o.batches} batches (first 5 unmeasured), load ${loadStart} -> ${loadavg()[0]!.toFixed(1)}`);
  console.log(table(['Build', o.column, 'Rounds'],
    [...results].map(([name, xs]) => [name, `**${median(xs).toFixed(o.digits)}**`, xs.map((x) => x.toFixed(o.digits)).join(', ')])));
}

export interface BuildRoundsMain {
  /** The benchmark script's own `import.meta.url`. */
  script: string;
  /** What `--help` says the benchmark measures. */
  description: string;
  defaults: { rounds: string; batches: string; batch: string };
  /** One round in this process, for the build at `dist`: the figure printed for it. */
  child(dist: string, batches: number, batch: number): Promise<number>;
  title: string;
  column: string;
  digits: number;
  /** What a batch counts (default "pods"). */
  unit?: string;
  /** Set-up the parent does once before the rounds (not for --help, a bad flag or a child). */
  prepare?: () => Promise<void>;
}

/**
 * Such a benchmark's entry point: its flags (`--rounds`, `--batches`, `--batch`, `--baseline-dist`),
 * then either one child round (`--child DIST`, printing its figure) or the interleaved rounds' table.
 */
export async function buildRoundsMain(o: BuildRoundsMain): Promise<void> {
  const { values } = benchArgs(o.description, {
    options: {
      rounds: { type: 'string', default: o.defaults.rounds }, batches: { type: 'string', default: o.defaults.batches }, batch: { type: 'string', default: o.defaults.batch },
      'baseline-dist': { type: 'string' }, child: { type: 'string' },
    },
  });
  const batches = Number(values.batches);
  const batch = Number(values.batch);
  if (values.child) return void console.log(JSON.stringify(await o.child(values.child, batches, batch)));
  // After the arguments are checked: --help and a bad flag must not start or write anything (bench-help.test.ts).
  await o.prepare?.();
  printBuildRounds({ script: o.script, rounds: Number(values.rounds), batches, batch, baselineDist: values['baseline-dist'], title: o.title, column: o.column, digits: o.digits, unit: o.unit });
}

/**
 * Rounds of a benchmark whose child prints one JSON record of figures on its last line (not one
 * number): each build's records, this checkout first, the builds' order alternating by round, and
 * the 1-minute load before the first and after each child. `args` are the child's flags after
 * `--child DIST`; `nodeArgs` the flags its node runs with.
 */
export function runBuildRecords<F = Record<string, number>>(o: { script: string; rounds: number; baselineDist?: string; args: string[]; nodeArgs?: string[] }): { results: Map<string, F[]>; loads: string[] } {
  const builds: Array<[string, string]> = [['this checkout', thisDist(o.script)]];
  if (o.baselineDist) builds.push(['baseline', o.baselineDist]);
  const results = new Map<string, F[]>(builds.map(([name]) => [name, []]));
  const loads = [loadavg()[0]!.toFixed(1)];
  for (let r = 0; r < o.rounds; r++) {
    for (const [name, dist] of r % 2 ? [...builds].reverse() : builds) {
      const out = execFileSync(process.execPath, [...o.nodeArgs ?? [], fileURLToPath(o.script), '--child', dist, ...o.args], { encoding: 'utf8', maxBuffer: 1 << 20, stdio: ['ignore', 'pipe', 'inherit'] });
      results.get(name)!.push(JSON.parse(out.trim().split('\n').at(-1)!) as F);
      loads.push(loadavg()[0]!.toFixed(1));
    }
  }
  return { results, loads };
}

/** runBuildRecords with `--expose-gc` (a heap benchmark's children: sched-cache-heap.ts). */
export function runJsonRounds<F>(script: string, rounds: number, baselineDist: string | undefined, args: string[]): { results: Map<string, F[]>; loads: string[] } {
  return runBuildRecords<F>({ script, rounds, baselineDist, args, nodeArgs: ['--expose-gc'] });
}
