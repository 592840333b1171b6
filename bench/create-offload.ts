/**
 * Whether a second thread can take a share of a pod create's pure work off the serving loop
 * (issue 20, create3): the loop's CPU per create with the steps run on the loop, against the
 * loop's CPU when a worker thread runs them and the loop only posts and receives (docs/threads.md,
 * "The serving loop's share of a create"). In process, no HTTP, no storage: the steps are the
 * ones a create runs between its body and storage (api/ and the heavy lane's body reader, as the
 * server calls them), on the side-by-side / reference load's pod, with what the server's pod
 * admission adds (the service account's token volume) between the two halves, as upstream orders
 * them (decode with defaults, managed fields, admission, validation, the stored encoding).
 *
 * Modes, each `--creates` creates after `--warmup`, 16 in flight (as 16 clients), all of one
 * turn's posts in one postMessage and the worker's answers to them in one (as the etcd client
 * thread batches its calls):
 *  - loop:   every step on the loop (what the server does today);
 *  - front:  the worker decodes the body (its bytes posted), defaults it and computes its
 *            managedFields, and posts the object back (structured clone); the loop admits,
 *            validates and encodes;
 *  - back:   the loop decodes, defaults, tracks and admits, posts the object; the worker
 *            validates and encodes, and posts the stored text back (the loop keeps its object
 *            for the watch cache and the answer);
 *  - both:   front and back (two round trips a create);
 *  - all:    the worker runs every step, admission's mutation included (as if its caches were
 *            there too), and posts back the stored text and only what a watch cache indexes (name,
 *            namespace, uid, labels): the ceiling of any split, since the loop then holds no
 *            object of the pod at all (a watch cache and an answer built from the text alone);
 *  - parse:  all, and the loop parses the stored text into its own object (a watch cache of
 *            objects as today's, admission still in the worker);
 *  - hop:    the round trip alone (a number each way), the floor of any move.
 * Per mode: the loop's CPU per create (/proc/thread-self/schedstat), the worker's, and the
 * process's. Rounds alternate the modes' order; medians of the rounds.
 *
 *   node dist/bench/create-offload.js [--rounds 3] [--creates 20000] [--warmup 5000]
 * Prints a Markdown table; results are copied into bench/RESULTS.md by hand.
 */
import { loadavg } from 'node:os';
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import { readObjectBody, type ObjectBodyJob } from '../src/apiserver/heavy/object-body.js';
import { kindKey } from '../src/api/resources.js';
import { applyDefaults } from '../src/api/defaults/index.js';
import { validateCreate } from '../src/api/validation/index.js';
import { resetFields, updateManagedFields } from '../src/api/managedfields/index.js';
import { dropOmittedZeros } from '../src/api/protobuf/omitempty.js';
import { fillGoZeroValues } from '../src/api/go-zero-values.js';
import { mountServiceAccountToken } from '../src/apiserver/admission/serviceaccount.js';
import { roundsCell, threadCpuNs } from './lib/thread-cpu.js';
import { table } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const endpoint = { group: '', version: 'v1', kind: 'Pod' };
const key = kindKey(endpoint);
const inFlight = 16;

/** The reference load's pod (api-load.mjs, side-by-side.ts), as its clients send it. */
const body = (name: string) => Buffer.from(JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { load: 'yes' } },
  spec: { containers: [{ name: 'c', image: 'busybox' }], schedulerName: 'no-such-scheduler' },
}));

/** The first half: the body read as the handler reads it, defaulted, its create's managedFields. */
function front(bytes: Uint8Array): { obj: Pod; managedFields?: ManagedFieldsEntry[] } {
  const job: ObjectBodyJob = { body: bytes, type: 'application/json', into: { apiVersion: 'v1', kind: 'Pod' }, endpoint, endpointApiVersion: 'v1', builtIn: true };
  const obj = readObjectBody(job).obj as Pod;
  applyDefaults(key, obj);
  const managedFields = updateManagedFields(undefined, obj, { kindKey: key, apiVersion: 'v1', manager: 'kubectl', now: new Date(), ignoredFields: resetFields(true, undefined, undefined, obj) });
  Object.assign(obj.metadata!, { uid: 'c0ffee00-0000-4000-8000-000000000000', creationTimestamp: new Date().toISOString().slice(0, 19) + 'Z' });
  dropOmittedZeros(obj);
  fillGoZeroValues(obj);
  return { obj, managedFields };
}

/** What the server's pod admission adds (a mutation between the halves, on the loop). */
function admit(pod: Pod): void {
  pod.spec!.serviceAccountName ??= 'default';
  mountServiceAccountToken(pod);
  pod.spec!.tolerations = [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }];
}

/** The second half: validation and the stored text. */
function back(pod: Pod, managedFields?: ManagedFieldsEntry[]): string {
  const errors = validateCreate(key, pod);
  if (errors.length) throw new Error(`invalid: ${JSON.stringify(errors[0])}`);
  if (managedFields) pod.metadata!.managedFields = managedFields;
  return JSON.stringify(pod);
}

type Job = { op: 'front' | 'all'; bytes: Uint8Array } | { op: 'back'; pod: Pod; mf?: ManagedFieldsEntry[] } | { op: 'hop'; n: number };

/** Every step, and what the loop needs back when it keeps no object: the stored text, and the watch cache's index. */
function all(bytes: Uint8Array): { text: string; name: string; namespace?: string; uid: string; labels?: Record<string, string> } {
  const r = front(bytes);
  admit(r.obj);
  const text = back(r.obj, r.managedFields);
  const m = r.obj.metadata!;
  return { text, name: m.name!, namespace: m.namespace, uid: m.uid!, labels: m.labels };
}

function serveJob(j: Job): unknown {
  switch (j.op) {
    case 'front': return front(j.bytes);
    case 'all': return all(j.bytes);
    case 'back': return back(j.pod, j.mf);
    default: return j.n;
  }
}

function serveInWorker(): void {
  const port = parentPort!;
  port.on('message', (jobs: Job[]) => {
    const out = jobs.map(serveJob);
    port.postMessage({ out, cpu: threadCpuNs() });
  });
}


/** The loop's side of the worker: one postMessage a turn, answers in order. */
class Hop {
  private readonly worker = new Worker(new URL(import.meta.url));
  private queued: Job[] = [];
  private waiting: Array<Array<(v: unknown) => void>> = [];
  private scheduled = false;
  workerCpuNs = 0;
  constructor() {
    this.worker.on('message', ({ out, cpu }: { out: unknown[]; cpu: number }) => {
      this.workerCpuNs = cpu;
      const resolves = this.waiting.shift()!;
      for (let i = 0; i < out.length; i++) resolves[i]!(out[i]);
    });
  }
  private pending: Array<(v: unknown) => void> = [];
  call<T>(job: Job): Promise<T> {
    this.queued.push(job);
    if (!this.scheduled) { this.scheduled = true; setImmediate(() => this.flush()); }
    return new Promise<T>((resolve) => this.pending.push(resolve as (v: unknown) => void));
  }
  private flush(): void {
    this.scheduled = false;
    this.waiting.push(this.pending);
    this.worker.postMessage(this.queued);
    this.queued = [];
    this.pending = [];
  }
  close(): Promise<number> { return this.worker.terminate(); }
}

type Mode = 'loop' | 'front' | 'back' | 'both' | 'all' | 'parse' | 'hop';

async function createOne(mode: Mode, hop: Hop, name: string): Promise<string> {
  const bytes = body(name);
  if (mode === 'all' || mode === 'parse') {
    const { text } = await hop.call<ReturnType<typeof all>>({ op: 'all', bytes: new Uint8Array(bytes) });
    return mode === 'all' ? text : (JSON.parse(text) as Pod).metadata!.name!;
  }
  if (mode === 'hop') { await hop.call({ op: 'hop', n: 1 }); const r = front(bytes); admit(r.obj); return back(r.obj, r.managedFields); }
  const r = mode === 'front' || mode === 'both'
    ? await hop.call<ReturnType<typeof front>>({ op: 'front', bytes: new Uint8Array(bytes) })
    : front(bytes);
  admit(r.obj);
  if (mode === 'back' || mode === 'both') return hop.call<string>({ op: 'back', pod: r.obj, mf: r.managedFields });
  return back(r.obj, r.managedFields);
}

async function run(mode: Mode, hop: Hop, creates: number, tag: string): Promise<{ loopUs: number; workerUs: number; processUs: number }> {
  let next = 0;
  let bytes = 0;
  const loop0 = threadCpuNs();
  const worker0 = hop.workerCpuNs;
  const proc0 = process.cpuUsage();
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < creates) bytes += (await createOne(mode, hop, `p-${tag}-${next++}`)).length;
  }));
  const p = process.cpuUsage(proc0);
  if (bytes === 0) throw new Error('nothing encoded');
  return { loopUs: (threadCpuNs() - loop0) / 1e3 / creates, workerUs: (hop.workerCpuNs - worker0) / 1e3 / creates, processUs: (p.user + p.system) / creates };
}

async function main(): Promise<void> {
  const { values } = benchArgs('Loop CPU per pod create with its pure steps on the loop or in a worker thread (in process).', {
    options: {
      rounds: { type: 'string', default: '3', help: 'rounds (modes in alternating order)' },
      creates: { type: 'string', default: '20000', help: 'measured creates per mode and round' },
      warmup: { type: 'string', default: '5000', help: 'unmeasured creates per mode before the rounds' },
    },
  });
  const rounds = Number(values.rounds), creates = Number(values.creates), warmup = Number(values.warmup);
  const modes: Mode[] = ['loop', 'hop', 'front', 'back', 'both', 'all', 'parse'];
  const hop = new Hop();
  for (const m of modes) await run(m, hop, warmup, `w-${m}`);
  const results = new Map(modes.map((m) => [m, [] as Array<Awaited<ReturnType<typeof run>>>]));
  const load0 = loadavg()[0]!.toFixed(1);
  for (let r = 0; r < rounds; r++) {
    for (const m of r % 2 ? [...modes].reverse() : modes) results.get(m)!.push(await run(m, hop, creates, `${r}-${m}`));
  }
  await hop.close();
  console.log(`create-offload: ${creates} creates a mode and round, ${rounds} rounds, ${inFlight} in flight, load ${load0} -> ${loadavg()[0]!.toFixed(1)}`);
  console.log(table(['Mode', 'Loop CPU µs per create', 'Worker CPU µs per create', 'Process CPU µs per create'],
    modes.map((m) => { const xs = results.get(m)!; return [m, roundsCell(xs.map((x) => x.loopUs)), roundsCell(xs.map((x) => x.workerUs)), roundsCell(xs.map((x) => x.processUs))]; })));
}

if (isMainThread) await main(); else serveInWorker();
