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
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { createdPod } from './lib/pods.js';
import { median } from './lib/stats.js';
import { buildRoundsMain } from './lib/builds-in-children.js';


/** One round in this process: µs of CPU per compact, the median of the measured batches. */
async function child(dist: string, batches: number, batch: number): Promise<number> {
  const { compact, compactionFor } = await import(pathToFileURL(join(dist, 'src', 'registry', 'watch-cache', 'compact.js')).href) as
    { compact<T>(obj: T, prev: unknown, how: unknown, like?: unknown): T; compactionFor(prefix: string): unknown };
  // As the pods' cache compacts them (spec, status and metadata shared): not a list of members, as
  // this benchmark passed before compact took a Compaction (it then shared no pod subtree at all).
  const how = compactionFor('/registry/core/pods/');
  const kept: Pod[][] = [];
  const perCompact: number[] = [];
  let last: Pod | undefined;
  for (let b = 0; b < batches; b++) {
    // Parsed as the server's objects are (JSON.parse gives every string value its own copy).
    const pods = Array.from({ length: batch }, (_, i) => JSON.parse(JSON.stringify(createdPod(`p-${b}-${i}`, randomUUID(), Math.random().toString(36).slice(2, 7)))) as Pod);
    const t0 = process.cpuUsage();
    for (const p of pods) { compact(p, undefined, how, last); last = p; }
    const t = process.cpuUsage(t0);
    kept.push(pods);
    if (b >= 5) perCompact.push((t.user + t.system) / batch);
  }
  return median(perCompact);
}


await buildRoundsMain({
  script: import.meta.url, description: 'CPU per pod as it enters the watch cache (compact.ts), in a fresh process per build and round.',
  defaults: { rounds: '5', batches: '25', batch: '2000' }, child,
  title: 'compact-cpu', column: 'CPU µs per compact (median)', digits: 1,
});
