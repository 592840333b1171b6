/**
 * CPU per pod as it enters the watch cache (registry/watch-cache/compact.ts: strings pooled,
 * field sets and spec/status subtrees shared), for the pod side-by-side.ts creates: its create
 * answer as the server gives it (defaults, service-account volume with its random suffix,
 * managedFields), renamed per pod. In a fresh process per build and round, without a server:
 * `--batches` batches of `--batch` pods are parsed, then compacted in order with the last one
 * as `like` (as the cache does for creates), CPU (process.cpuUsage) per compact over the
 * batches after the first five; medians of the batches, then of the rounds. With `--baseline-dist`
 * another build's compact runs the same rounds, interleaved with this one's.
 *
 *   node dist/bench/compact-cpu.js [--rounds 5] [--batches 25] [--batch 2000] [--baseline-dist /tmp/base/dist]
 *
 * Prints a Markdown table; results are copied into bench/RESULTS.md by hand.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { createdPod } from './lib/pods.js';
import { table } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const thisDist = join(dirname(fileURLToPath(import.meta.url)), '..');

/** One round in this process: µs of CPU per compact, the median of the measured batches. */
async function child(dist: string, batches: number, batch: number): Promise<number> {
  const { compact } = await import(pathToFileURL(join(dist, 'src', 'registry', 'watch-cache', 'compact.js')).href) as
    { compact<T>(obj: T, prev?: unknown, members?: readonly string[], like?: unknown): T };
  const kept: Pod[][] = [];
  const perCompact: number[] = [];
  let last: Pod | undefined;
  for (let b = 0; b < batches; b++) {
    // Parsed as the server's objects are (JSON.parse gives every string value its own copy).
    const pods = Array.from({ length: batch }, (_, i) => JSON.parse(JSON.stringify(createdPod(`p-${b}-${i}`, randomUUID(), Math.random().toString(36).slice(2, 7)))) as Pod);
    const t0 = process.cpuUsage();
    for (const p of pods) { compact(p, undefined, ['spec', 'status'], last); last = p; }
    const t = process.cpuUsage(t0);
    kept.push(pods);
    if (b >= 5) perCompact.push((t.user + t.system) / batch);
  }
  return median(perCompact);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

async function main(): Promise<void> {
  const { values } = benchArgs('CPU per pod as it enters the watch cache (compact.ts), in a fresh process per build and round.', {
    options: {
      rounds: { type: 'string', default: '5' }, batches: { type: 'string', default: '25' }, batch: { type: 'string', default: '2000' },
      'baseline-dist': { type: 'string' }, child: { type: 'string' },
    },
  });
  const batches = Number(values.batches);
  const batch = Number(values.batch);
  if (values.child) return void console.log(JSON.stringify(await child(values.child, batches, batch)));
  const builds: Array<[string, string]> = [['this checkout', thisDist]];
  if (values['baseline-dist']) builds.push(['baseline', values['baseline-dist']]);
  const results = new Map<string, number[]>(builds.map(([name]) => [name, []]));
  const loadStart = loadavg()[0]!.toFixed(1);
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const [name, dist] of r % 2 ? [...builds].reverse() : builds) {
      const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', dist, '--batches', String(batches), '--batch', String(batch)], { encoding: 'utf8' });
      results.get(name)!.push(Number(out.trim()));
    }
  }
  console.log(`compact-cpu: ${batch} pods a batch, ${batches} batches (first 5 unmeasured), load ${loadStart} -> ${loadavg()[0]!.toFixed(1)}`);
  console.log(table(['Build', 'CPU µs per compact (median)', 'Rounds'],
    [...results].map(([name, xs]) => [name, `**${median(xs).toFixed(1)}**`, xs.map((x) => x.toFixed(1)).join(', ')])));
}

await main();
