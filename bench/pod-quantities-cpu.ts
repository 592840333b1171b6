/**
 * CPU per pod create in the three steps that read the pod's resource quantities: defaulting
 * (applyDefaults('v1/Pod'): each request and limit rounded and written in canonical form),
 * validation (validateCreate('v1/Pod'): each parsed, limits against requests) and the QoS class
 * the pod strategy records at creation (podQOSClass). The pod is scheduler_perf's pod-default
 * as bench/scheduler.ts creates it (requests and limits 100m / 500Mi), renamed per pod and
 * given the service account's token volume the server's admission adds. In a fresh process per
 * build and round, without a server: `--batches` batches of `--batch` pods are parsed, then run
 * through the three steps, CPU (process.cpuUsage, garbage collection on this thread included)
 * per pod over the batches after the first five; medians of the batches, then of the rounds.
 * With `--baseline-dist` another build's steps run the same rounds, interleaved with this one's.
 *
 *   node dist/bench/pod-quantities-cpu.js [--rounds 6] [--batches 25] [--batch 2000] [--baseline-dist /tmp/base/dist]
 *
 * Prints a Markdown table; results are copied into bench/RESULTS.md by hand.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import { median } from './lib/stats.js';
import { buildRoundsMain } from './lib/builds-in-children.js';
import { benchPod } from './lib/scheduler-perf-objects.js';

interface FieldError { field: string }

const load = async <T>(dist: string, ...path: string[]): Promise<T> => await import(pathToFileURL(join(dist, 'src', ...path)).href) as T;

/** One round in this process: µs of CPU per pod through defaulting, validation and the QoS class, the median of the measured batches. */
async function child(dist: string, batches: number, batch: number): Promise<number> {
  const { applyDefaults } = await load<{ applyDefaults(key: string, obj: unknown): void }>(dist, 'api', 'defaults', 'index.js');
  const { validateCreate } = await load<{ validateCreate(key: string, obj: unknown): FieldError[] }>(dist, 'api', 'validation', 'index.js');
  const { podQOSClass } = await load<{ podQOSClass(spec: PodSpec | undefined): string }>(dist, 'api', 'qos.js');
  const perPod: number[] = [];
  for (let b = 0; b < batches; b++) {
    const pods = Array.from({ length: batch }, (_, i) => {
      const pod = JSON.parse(benchPod(b * batch + i, 'pod', 'namespace-2')) as Pod;
      const volume = `kube-api-access-${Math.random().toString(36).slice(2, 7)}`;
      pod.spec!.serviceAccountName = 'default';
      pod.spec!.volumes = [{ name: volume, projected: { defaultMode: 420, sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }] } }];
      pod.spec!.containers[0]!.volumeMounts = [{ name: volume, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }];
      return pod;
    });
    const t0 = process.cpuUsage();
    let errors = 0;
    for (const p of pods) {
      applyDefaults('v1/Pod', p);
      errors += validateCreate('v1/Pod', p).length;
      (p as { status?: Pod['status'] }).status = { phase: 'Pending', qosClass: podQOSClass(p.spec) };
    }
    const t = process.cpuUsage(t0);
    if (errors) throw new Error(`the benchmark's pod is invalid: ${JSON.stringify(validateCreate('v1/Pod', pods[0]))}`);
    if (pods[0]!.status!.qosClass !== 'Guaranteed') throw new Error(`the benchmark's pod is ${pods[0]!.status!.qosClass}, not Guaranteed`);
    if (b >= 5) perPod.push((t.user + t.system) / batch);
  }
  return median(perPod);
}

await buildRoundsMain({
  script: import.meta.url, description: 'CPU per pod create in defaulting, validation and the QoS class, in a fresh process per build and round.',
  defaults: { rounds: '6', batches: '25', batch: '2000' }, child,
  title: 'pod-quantities-cpu', column: 'CPU µs per pod (median)', digits: 2,
});
