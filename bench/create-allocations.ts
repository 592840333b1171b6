/**
 * Bytes a pod create allocates in its pure steps, counted exactly, in process: defaulting
 * (applyDefaults), the create's managedFields entry (updateManagedFields from nothing, the shape
 * cache warm), the service account admission's token volume (mountServiceAccountToken), validation
 * (validateCreate), the pod spec warnings (warningsOnCreate) and the store's encode
 * (JSON.stringify), in the store's order. Each step runs over a batch of pods that went through the
 * steps before it (outside the count), after a full GC, with the young generation sized so that no
 * collection runs inside the batch: V8's used heap after the batch minus before it is every byte
 * the step allocated, kept or not. A batch that a GC interrupted anyway is dropped (read from
 * `gc` performance entries). The first five batches warm the code up and are not counted.
 *
 * What the server does around these steps (the request's context, the body read, the answer, the
 * storage write, the watch cache) is not here: side-by-side.ts `--alloc-profile` samples those.
 *
 *   node dist/bench/create-allocations.js [--pod scheduler-perf|minimal] [--rounds 3] [--batches 20] [--batch 1000] [--baseline-dist /tmp/base/dist]
 *
 * Each round runs each build in a fresh child process, the builds' order alternating by round
 * (bench/lib/builds-in-children.ts runBuildRecords).
 * Prints a Markdown table (bytes per pod: the median of a build's rounds, each round the median of
 * its batches); results are copied into bench/RESULTS.md by hand.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { benchArgs } from './lib/args.js';
import { median } from './lib/stats.js';
import { table } from './lib/results.js';
import { runBuildRecords } from './lib/builds-in-children.js';
import { benchPod } from './lib/scheduler-perf-objects.js';

type Step = (pod: Pod) => unknown;

const load = async <T>(dist: string, ...path: string[]): Promise<T> => await import(pathToFileURL(join(dist, 'src', ...path)).href) as T;

/** The steps of a pod create, in the store's order, as the build at `dist` has them. */
async function steps(dist: string): Promise<Array<[string, Step]>> {
  const { applyDefaults } = await load<{ applyDefaults(key: string, obj: unknown): void }>(dist, 'api', 'defaults', 'index.js');
  const { validateCreate } = await load<{ validateCreate(key: string, obj: unknown): Array<{ field: string }> }>(dist, 'api', 'validation', 'index.js');
  const { warningsOnCreate } = await load<{ warningsOnCreate(key: string, obj: unknown): string[] | undefined }>(dist, 'api', 'warnings', 'index.js');
  const { updateManagedFields, resetFields } = await load<{
    updateManagedFields(live: unknown, next: unknown, ctx: object): unknown[] | undefined;
    resetFields(hasStatus: boolean, subresource: string | undefined, ...objs: unknown[]): string[];
  }>(dist, 'api', 'managedfields', 'update.js');
  const { mountServiceAccountToken } = await load<{ mountServiceAccountToken(pod: Pod): void }>(dist, 'apiserver', 'admission', 'serviceaccount.js');
  const now = new Date();
  return [
    ['defaults', (p) => applyDefaults('v1/Pod', p)],
    ['managed fields', (p) => {
      const mf = updateManagedFields(undefined, p, { kindKey: 'v1/Pod', apiVersion: 'v1', manager: 'bench', subresource: undefined, now, ignoredFields: resetFields(true, undefined, undefined, p) });
      if (mf?.length !== 1) throw new Error(`the benchmark's pod has ${mf?.length} managedFields entries`);
      return mf;
    }],
    // The admission names the default account (step 1) before it mounts its token (2).
    ['service account admission', (p) => { p.spec!.serviceAccountName ??= 'default'; mountServiceAccountToken(p); }],
    ['validation', (p) => {
      const errs = validateCreate('v1/Pod', p);
      if (errs.length) throw new Error(`the benchmark's pod is invalid: ${JSON.stringify(errs)}`);
      return errs;
    }],
    ['warnings', (p) => warningsOnCreate('v1/Pod', p)],
    ['encode', (p) => JSON.stringify(p)],
  ];
}

/** The pod a create sends: scheduler_perf's pod-default (bench/scheduler.ts) or side-by-side.ts's minimal one. */
function podBody(kind: string, i: number): string {
  if (kind === 'scheduler-perf') return benchPod(i, 'pod', 'namespace-2');
  return JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `pod-${i}`, namespace: 'default', labels: { load: 'yes' } },
    spec: { containers: [{ name: 'c', image: 'busybox' }], schedulerName: 'no-such-scheduler' } });
}

/** A step that allocates nothing: what the counting loop itself allocates, taken off every step. */
const harness: [string, Step] = ['(the loop itself)', (p) => p];

const usedHeap = () => getHeapStatistics().used_heap_size;

/** One round in this process: bytes per pod of each step, the median of the counted batches. */
async function child(dist: string, pod: string, batches: number, batch: number): Promise<Record<string, number>> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const gcs: number[] = [];
  const observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) gcs.push(e.startTime); });
  observer.observe({ entryTypes: ['gc'] });
  const all = [...await steps(dist), harness];
  const windows: Array<{ step: string; from: number; to: number; bytes: number }> = [];
  // The warm-up's pods stay alive: once every object of a hidden class is collected, V8 drops the
  // class and deoptimizes the code built for it, and each batch would then count the interpreter's
  // allocations (iterators, closures), not those of the optimized code a warm server runs.
  const keep: Pod[] = [];
  for (let b = 0; b < batches; b++) {
    const pods = Array.from({ length: batch }, (_, i) => JSON.parse(podBody(pod, b * batch + i)) as Pod);
    if (b < 5) keep.push(...pods);
    for (const [name, step] of all) {
      gc();
      const from = performance.now();
      const before = usedHeap();
      for (const p of pods) step(p);
      const bytes = usedHeap() - before;
      if (b >= 5) windows.push({ step: name, from, to: performance.now(), bytes: bytes / batch });
    }
  }
  // The gc entries arrive after the loop: wait for them, then drop the batches one interrupted.
  await new Promise((r) => setTimeout(r, 50));
  observer.disconnect();
  const out: Record<string, number> = {};
  for (const [name] of all) {
    const clean = windows.filter((w) => w.step === name && !gcs.some((t) => t > w.from && t < w.to));
    if (clean.length < 3) throw new Error(`${name}: only ${clean.length} batches without a GC (use a smaller --batch)`);
    out[name] = median(clean.map((w) => w.bytes));
  }
  // The loop's own bytes (the heap statistics' object, the window's record) are not a step's.
  const own = out[harness[0]]!;
  delete out[harness[0]];
  for (const name of Object.keys(out)) out[name]! -= own;
  out.total = Object.values(out).reduce((a, b) => a + b, 0);
  return out;
}

/** A young generation that a batch's allocations fit in (about 35 MB of 1,000 pods' steps). */
const nodeArgs = ['--expose-gc', '--min-semi-space-size=128', '--max-semi-space-size=128'];

async function main(): Promise<void> {
  const { values } = benchArgs('Bytes a pod create allocates in its pure steps (defaults, managed fields, admission, validation, warnings, encode), counted in process.', {
    options: {
      pod: { type: 'string', default: 'scheduler-perf', help: 'scheduler-perf or minimal' },
      rounds: { type: 'string', default: '3' }, batches: { type: 'string', default: '20' }, batch: { type: 'string', default: '1000' },
      'baseline-dist': { type: 'string' }, child: { type: 'string' },
    },
  });
  if (values.pod !== 'scheduler-perf' && values.pod !== 'minimal') throw new Error(`--pod: scheduler-perf or minimal, not ${values.pod}`);
  const batches = Number(values.batches);
  const batch = Number(values.batch);
  if (values.child) return void console.log(JSON.stringify(await child(values.child, values.pod, batches, batch)));
  const loadStart = loadavg()[0]!.toFixed(1);
  const { results } = runBuildRecords({ script: import.meta.url, rounds: Number(values.rounds), baselineDist: values['baseline-dist'], nodeArgs,
    args: ['--pod', values.pod, '--batches', String(batches), '--batch', String(batch)] });
  console.log(`create-allocations: ${values.pod} pod, ${batch} pods a batch, ${batches} batches (first 5 uncounted), load ${loadStart} -> ${loadavg()[0]!.toFixed(1)}`);
  const stepNames = Object.keys(results.get('this checkout')![0]!);
  console.log(table(['Step', ...[...results.keys()].map((name) => `${name}: bytes a pod (rounds)`)],
    stepNames.map((s) => [s, ...[...results.keys()].map((name) => {
      const xs = results.get(name)!.map((o) => o[s]!);
      return `**${median(xs).toFixed(0)}** (${xs.map((x) => x.toFixed(0)).join(', ')})`;
    })])));
}

await main();
