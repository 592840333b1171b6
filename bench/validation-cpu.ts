/**
 * CPU per pod create in validation (api/validation: validateCreate('v1/Pod'), what the pod
 * strategy's validate runs), for the pod side-by-side.ts creates: its create answer as the
 * server gives it (defaults, the service-account volume with its random suffix, tolerations),
 * renamed per pod. In a fresh process per build and round, without a server: `--batches`
 * batches of `--batch` pods are parsed, then validated, CPU (process.cpuUsage, garbage
 * collection on this thread included) per validation over the batches after the first five;
 * medians of the batches, then of the rounds. With `--baseline-dist` another build's validation
 * runs the same rounds, interleaved with this one's, the order alternating by round.
 *
 *   node dist/bench/validation-cpu.js [--rounds 6] [--batches 25] [--batch 2000] [--baseline-dist /tmp/base/dist]
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


interface FieldError { field: string }

/** One round in this process: µs of CPU per validation, the median of the measured batches. */
async function child(dist: string, batches: number, batch: number): Promise<number> {
  const { validateCreate } = await import(pathToFileURL(join(dist, 'src', 'api', 'validation', 'index.js')).href) as
    { validateCreate(key: string, obj: unknown): FieldError[] };
  const perCall: number[] = [];
  for (let b = 0; b < batches; b++) {
    // Parsed as the server's objects are; what validation sees: no managedFields yet.
    const pods = Array.from({ length: batch }, (_, i) => {
      const pod = JSON.parse(JSON.stringify(createdPod(`p-${b}-${i}`, randomUUID(), Math.random().toString(36).slice(2, 7)))) as Pod;
      delete pod.metadata!.managedFields;
      return pod;
    });
    const t0 = process.cpuUsage();
    let errors = 0;
    for (const p of pods) errors += validateCreate('v1/Pod', p).length;
    const t = process.cpuUsage(t0);
    if (errors) throw new Error(`the benchmark's pod is invalid: ${JSON.stringify(validateCreate('v1/Pod', pods[0]))}`);
    if (b >= 5) perCall.push((t.user + t.system) / batch);
  }
  return median(perCall);
}

await buildRoundsMain({
  script: import.meta.url, description: 'CPU per pod create in validation, in a fresh process per build and round.',
  defaults: { rounds: '6', batches: '25', batch: '2000' }, child,
  title: 'validation-cpu', column: 'CPU µs per validation (median)', digits: 2,
});
