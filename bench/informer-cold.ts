/**
 * The control loops' pod informer with cold pods (client/cold-objects.ts, cold-sweep.ts), in
 * process (issue #20): `--pods` Running pods of ReplicaSets (createdPod's body with an owner,
 * a template hash, a node, an IP and a Running status), each as the control loops' informer
 * holds it (managedFields dropped, subtrees and strings shared: cli/controller-manager.ts's
 * transform), in a Map as the informer's cache. Then, after full GCs (V8 heap used plus array
 * buffers), the marginal bytes a pod from `--pods` to three times as many (the string and subtree
 * pools are bounded, so these are what more pods cost): decoded, and cold after the sweep;
 * and CPU per pod: the sweep (JSON.stringify and deflate), a keyed read of a cold pod as
 * `Informer.get` does it (inflate, JSON.parse, the transform: it stays decoded), and a list's
 * decode of a cold pod (inflate, JSON.parse). Also the bytes a pod at `--pods` itself, decoded
 * and cold (below the pools' bounds: what they still hold of cold pods shows there). Each round
 * runs in a fresh child process, with `--baseline-dist` each build in turn (another build's
 * modules loaded by path), the order alternating by round.
 *
 *   node dist/bench/informer-cold.js [--pods 20000] [--rounds 3] [--baseline-dist /tmp/base/dist]
 *
 * Prints a Markdown table; results are copied into bench/RESULTS.md by hand.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { benchArgs } from './lib/args.js';
import { createdPod } from './lib/pods.js';
import { median } from './lib/stats.js';
import { table } from './lib/results.js';
import { thisDist } from './lib/builds-in-children.js';
import type { ColdObject } from '../src/client/cold-objects.js';

interface Figures { hotAtN: number; coldAtN: number; hotBytes: number; coldBytes: number; coldTextBytes: number; sweepUs: number; getUs: number; listUs: number }

/** A Running pod of ReplicaSet `rs` on `node`, as the API server sends it (managedFields included). */
function runningPod(i: number, rs: number): Pod {
  const p = createdPod(`web-${rs}-${randomUUID().slice(0, 5)}`, randomUUID(), randomUUID().slice(0, 5));
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const t = '2026-12-07T00:00:00Z';
  return {
    ...p,
    metadata: {
    ...p.metadata, namespace: 'default', resourceVersion: String(1000 + i), generateName: `web-${rs}-`, labels: { app: `web-${rs}`, 'pod-template-hash': `h${rs}` },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `web-${rs}`, uid: `rs-${rs}`, controller: true, blockOwnerDeletion: true }],
    },
    spec: { ...p.spec!, nodeName: `node-${i % 1000}`, schedulerName: 'default-scheduler' },
    status: {
    phase: 'Running', qosClass: 'Burstable', hostIP: `192.168.${(i % 1000) >> 8}.${i % 256}`, hostIPs: [{ ip: '192.168.0.1' }], podIP: ip, podIPs: [{ ip }], startTime: t,
    conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastProbeTime: null as unknown as string, lastTransitionTime: t })),
    containerStatuses: [{ name: 'c', ready: true, started: true, restartCount: 0, image: 'busybox:latest', imageID: 'sha256:1', containerID: `containerd://${randomUUID()}`, state: { running: { startedAt: t } } }],
    },
  };
}

const gcNow = () => { for (let i = 0; i < 4; i++) (globalThis as { gc?: () => void }).gc!(); };
/**
 * V8 heap used plus array buffers after full GCs, on a later turn of the loop: a WeakRef's target
 * (the subtree pool's entries for what it met once) lives at least until the job that made it ends.
 */
const used = async () => { await new Promise((r) => setImmediate(r)); gcNow(); const m = process.memoryUsage(); return m.heapUsed + m.arrayBuffers; };
const cpuUs = () => { const c = process.cpuUsage(); return c.user + c.system; };

async function child(dist: string, n: number): Promise<Figures> {
  const load = (p: string) => import(pathToFileURL(join(dist, 'src', ...p.split('/'))).href);
  // Another build's modules, loaded by path: typed as this checkout's.
  const { ObjectSharing } = await load('util/shared-objects.js') as typeof import('../src/util/shared-objects.js');
  const { stripManagedFields } = await load('client/informer.js') as typeof import('../src/client/informer.js');
  const { ColdSweep } = await load('client/cold-sweep.js') as typeof import('../src/client/cold-sweep.js');
  const { isCold } = await load('client/cold-objects.js') as typeof import('../src/client/cold-objects.js');
  const sharing = new ObjectSharing();
  const transform = (o: Pod, like?: unknown): Pod => sharing.compact(stripManagedFields(o), undefined, ['spec', 'status', 'metadata'], like);
  const cache = new Map<string, unknown>();
  let last: unknown;
  let made = 0;
  const add = (from: number, to: number) => { for (let i = from; i < to; i++) { const o = transform(runningPod(i, i % 20), last); last = o; cache.set(`default/${o.metadata!.name}`, o); } };
  const sweep = new ColdSweep(cache, { afterMs: 3_600_000, tickMs: 0, budgetMs: 1e9 });
  const base = await used();
  add(0, n);
  const hot1 = await used();
  sweep.sweep(1e9);
  last = undefined;
  const cold1 = await used();
  // Marginal figures, from n to 3n pods: the pools (strings, subtrees) fill up with the first pods
  // and are bounded, so at 150,000 pods what each more pod costs is what counts.
  add(n, 3 * n);
  const hot2 = await used();
  (sweep as unknown as { walkedUntilTurn?: unknown }).walkedUntilTurn = undefined;
  let c0 = cpuUs();
  made = sweep.sweep(1e9);
  const sweepUs = (cpuUs() - c0) / made;
  last = undefined;
  const cold2 = await used();
  let text = 0;
  for (const e of cache.values()) text += (e as ColdObject).size;
  const keys = [...cache.keys()];
  c0 = cpuUs();
  let sink = 0;
  for (const e of cache.values()) sink += (e as ColdObject).decode().metadata.name.length;
  const listUs = (cpuUs() - c0) / cache.size;
  c0 = cpuUs();
  for (const k of keys) { const e = cache.get(k); if (isCold(e)) { const o = transform(e.decode(), last); last = o; cache.set(k, o); } }
  const getUs = (cpuUs() - c0) / keys.length;
  if (sink < 0) console.error(sink);
  return {
    hotAtN: (hot1 - base) / n, coldAtN: (cold1 - base) / n,
    hotBytes: (hot2 - cold1) / (2 * n), coldBytes: (cold2 - cold1) / (2 * n), coldTextBytes: text / cache.size, sweepUs, getUs, listUs,
  };
}

async function main(): Promise<void> {
  const { values } = benchArgs('Heap per pod of the control loops\' pod informer, decoded and cold, and the CPU of making and reading cold pods.', {
    options: {
      pods: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '3' },
      'baseline-dist': { type: 'string', help: "another build's dist directory, run in the same rounds" },
      child: { type: 'string', help: '(internal) one round in this process for the build at DIST' },
    },
  });
  const n = Number(values.pods);
  if (values.child) return void console.log(JSON.stringify(await child(values.child, n)));
  const builds: Array<[string, string]> = [['this checkout', thisDist(import.meta.url)]];
  if (values['baseline-dist']) builds.push(['baseline', values['baseline-dist']]);
  const results = new Map<string, Figures[]>(builds.map(([name]) => [name, []]));
  const loads = [loadavg()[0]!.toFixed(1)];
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const [name, dist] of r % 2 ? [...builds].reverse() : builds) {
      const out = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', dist, '--pods', String(n)], { encoding: 'utf8', maxBuffer: 1 << 20 });
      results.get(name)!.push(JSON.parse(out.trim().split('\n').at(-1)!) as Figures);
      loads.push(loadavg()[0]!.toFixed(1));
    }
  }
  const col = (runs: Figures[], f: (x: Figures) => number, d = 0) => `**${median(runs.map(f)).toFixed(d)}** (${runs.map((x) => f(x).toFixed(d)).join(', ')})`;
  console.log(table(['build', 'pods', `heap per pod at ${n}, decoded`, `heap per pod at ${n}, cold`, 'marginal heap per pod, decoded', 'marginal heap per pod, cold', 'deflated text per pod', 'sweep, µs per pod', 'keyed read of a cold pod (kept decoded), µs', 'list decode of a cold pod, µs'],
    [...results].map(([name, runs]) => [
      name, String(n), col(runs, (x) => x.hotAtN), col(runs, (x) => x.coldAtN), col(runs, (x) => x.hotBytes), col(runs, (x) => x.coldBytes), col(runs, (x) => x.coldTextBytes),
      col(runs, (x) => x.sweepUs, 1), col(runs, (x) => x.getUs, 1), col(runs, (x) => x.listUs, 1),
    ])));
  console.log(`\nload average ${loads.join(' → ')}; ${Number(values.rounds)} rounds, median (each round)`);
}

main().catch((e) => { console.error(e); process.exit(1); });
