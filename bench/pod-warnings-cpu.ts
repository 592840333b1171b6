/**
 * CPU per pod create in the pod spec warnings (src/api/warnings/pod.ts), which every pod create
 * and update now walks after validation: scheduler_perf's pod-default as bench/scheduler.ts
 * creates it, defaulted, with the service account's token volume the server's admission adds
 * and two env entries (so the env check builds its set). In a fresh process per build and round,
 * without a server: `--batches` batches of `--batch` pods, CPU (process.cpuUsage, garbage
 * collection on this thread included) per pod over the batches after the first five; medians of
 * the batches, then of the rounds. Set beside a warm create's ~250-300 µs of serving-thread CPU.
 *
 *   node dist/bench/pod-warnings-cpu.js [--rounds 6] [--batches 25] [--batch 2000] [--baseline-dist /tmp/base/dist]
 *
 * Prints a Markdown table; results are copied into bench/RESULTS.md by hand.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { median } from './lib/stats.js';
import { buildRoundsMain } from './lib/builds-in-children.js';
import { benchPod } from './lib/scheduler-perf-objects.js';

const load = async <T>(dist: string, ...path: string[]): Promise<T> => await import(pathToFileURL(join(dist, 'src', ...path)).href) as T;

/** One round in this process: µs of CPU per pod in the warnings, the median of the measured batches. */
async function child(dist: string, batches: number, batch: number): Promise<number> {
  const { applyDefaults } = await load<{ applyDefaults(key: string, obj: unknown): void }>(dist, 'api', 'defaults', 'index.js');
  const { podSpecWarnings } = await load<{ podSpecWarnings(prefix: string, spec: PodSpec | undefined, meta: ObjectMeta | undefined): string[] }>(dist, 'api', 'warnings', 'pod.js');
  const perPod: number[] = [];
  for (let b = 0; b < batches; b++) {
    const pods = Array.from({ length: batch }, (_, i) => {
      const pod = JSON.parse(benchPod(b * batch + i, 'pod', 'namespace-2')) as Pod;
      const volume = `kube-api-access-${Math.random().toString(36).slice(2, 7)}`;
      pod.spec!.volumes = [{ name: volume, projected: { defaultMode: 420, sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }] } }];
      pod.spec!.containers[0]!.env = [{ name: 'A', value: '1' }, { name: 'B', value: '2' }];
      applyDefaults('v1/Pod', pod);
      return pod;
    });
    const t0 = process.cpuUsage();
    let warnings = 0;
    for (const p of pods) warnings += podSpecWarnings('', p.spec, p.metadata).length;
    const t = process.cpuUsage(t0);
    if (warnings) throw new Error(`the benchmark's pod is warned about: ${podSpecWarnings('', pods[0]!.spec, pods[0]!.metadata).join('; ')}`);
    if (b >= 5) perPod.push((t.user + t.system) / batch);
  }
  return median(perPod);
}

await buildRoundsMain({
  script: import.meta.url, description: 'CPU per pod create in the pod spec warnings, in a fresh process per build and round.',
  defaults: { rounds: '6', batches: '25', batch: '2000' }, child,
  title: 'pod-warnings-cpu', column: 'CPU µs per pod (median)', digits: 2,
});
