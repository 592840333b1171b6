/**
 * CPU per pod create in dropOmittedZeros (api/protobuf/omitempty.ts: the store drops the zero
 * values of Go's omitempty fields from every object it writes), for the pod side-by-side.ts
 * creates: its create answer as the server gives it, without managedFields (the store sets them
 * after this step), renamed per pod. In a fresh process per build and round, without a server:
 * `--batches` batches of `--batch` pods are parsed, then walked, CPU (process.cpuUsage, garbage
 * collection on this thread included) per pod over the batches after the first five; medians of
 * the batches, then of the rounds. With `--baseline-dist` another build's step runs the same
 * rounds, interleaved with this one's, the order alternating by round.
 *
 *   node dist/bench/omitempty-cpu.js [--rounds 6] [--batches 25] [--batch 2000] [--baseline-dist /tmp/base/dist]
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

/** One round in this process: µs of CPU per pod, the median of the measured batches. */
async function child(dist: string, batches: number, batch: number): Promise<number> {
  const { dropOmittedZeros } = await import(pathToFileURL(join(dist, 'src', 'api', 'protobuf', 'omitempty.js')).href) as
    { dropOmittedZeros(obj: unknown): void };
  const perCall: number[] = [];
  for (let b = 0; b < batches; b++) {
    const pods = Array.from({ length: batch }, (_, i) => {
      const pod = JSON.parse(JSON.stringify(createdPod(`p-${b}-${i}`, randomUUID(), Math.random().toString(36).slice(2, 7)))) as Pod;
      delete pod.metadata!.managedFields;
      // One omitempty zero to drop, as a client's body may hold one.
      pod.spec!.hostname = '';
      return pod;
    });
    const t0 = process.cpuUsage();
    for (const p of pods) dropOmittedZeros(p);
    const t = process.cpuUsage(t0);
    if (pods.some((p) => 'hostname' in p.spec!)) throw new Error('spec.hostname "" was not dropped');
    if (b >= 5) perCall.push((t.user + t.system) / batch);
  }
  return median(perCall);
}

await buildRoundsMain({
  script: import.meta.url, description: 'CPU per pod create in dropOmittedZeros, in a fresh process per build and round.',
  defaults: { rounds: '6', batches: '25', batch: '2000' }, child,
  title: 'omitempty-cpu', column: 'CPU µs per pod (median)', digits: 2,
});
