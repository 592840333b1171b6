/**
 * The driver of an in-process CPU benchmark that compares builds: each round
 * runs the measurement once per build, each in a fresh child process of the
 * benchmark's own script (`--child DIST --batches N --batch M`, which prints
 * one number), the builds' order alternating by round so neither always goes
 * first (side-by-side.ts found the first cell after a pause paying 5-10% more).
 * Used by compact-cpu.ts and validation-cpu.ts.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './stats.js';
import { table } from './results.js';

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
export function printBuildRounds(o: BuildRounds & { title: string; column: string; digits: number }): void {
  const loadStart = loadavg()[0]!.toFixed(1);
  const results = runBuildRounds(o);
  console.log(`${o.title}: ${o.batch} pods a batch, ${o.batches} batches (first 5 unmeasured), load ${loadStart} -> ${loadavg()[0]!.toFixed(1)}`);
  console.log(table(['Build', o.column, 'Rounds'],
    [...results].map(([name, xs]) => [name, `**${median(xs).toFixed(o.digits)}**`, xs.map((x) => x.toFixed(o.digits)).join(', ')])));
}
