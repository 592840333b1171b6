/**
 * The scheduler cache's bytes per assigned pod, in process (issue #20): `--nodes` nodes, then
 * Running pods of ReplicaSets added as the informer hands them over (SchedulerCache.addPod,
 * the pods compacted as the control loops' informer keeps them), measured after full GCs
 * with every pod object held by the bench itself as well, so that the difference is what the
 * cache adds a pod: its cached form (scheduler/cached-pod.ts), its entries in the cache's map
 * and its node's. Marginal from `--pods` to three times as many. CPU per pod: adding it, its
 * bound version confirming it (addPod again), and a read of the members the plugins read of an
 * existing pod (labels, namespace, affinity, priority, startTime, deletionTimestamp, resources)
 * over every node's pods, as interpod affinity and preemption walk them (30 passes after 10 unmeasured). Each round in a fresh
 * child process, with `--baseline-dist` each build in turn, the order alternating by round.
 *
 *   node dist/bench/sched-cache-heap.js [--pods 30000] [--nodes 1000] [--rounds 3] [--baseline-dist /tmp/base/dist]
 *
 * Prints a Markdown table; results are copied into bench/RESULTS.md by hand.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { benchArgs } from './lib/args.js';
import { createdPod } from './lib/pods.js';
import { median } from './lib/stats.js';
import { table } from './lib/results.js';
import { runJsonRounds } from './lib/builds-in-children.js';

interface Figures { atN: number; marginal: number; addUs: number; confirmUs: number; readUs: number }

const gcNow = () => { for (let i = 0; i < 4; i++) (globalThis as { gc?: () => void }).gc!(); };
const used = async () => { await new Promise((r) => setImmediate(r)); gcNow(); return process.memoryUsage().heapUsed; };
const cpuUs = () => { const c = process.cpuUsage(); return c.user + c.system; };
const readPasses = 30;

function runningPod(i: number, nodes: number): Pod {
  const rs = i % 20;
  const p = createdPod(`web-${rs}-${i.toString(36)}`, `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, i.toString(36));
  return {
    ...p,
    metadata: { ...p.metadata, labels: { app: `web-${rs}`, 'pod-template-hash': `h${rs}` } },
    spec: { ...p.spec!, nodeName: `node-${i % nodes}`, priority: 0 },
    status: { phase: 'Running', startTime: '2026-12-07T00:00:00Z' },
  };
}

function node(i: number): Node {
  return {
    metadata: { name: `node-${i}`, labels: { 'kubernetes.io/hostname': `node-${i}` } },
    status: { allocatable: { cpu: '64', memory: '256Gi', pods: '500' }, capacity: { cpu: '64', memory: '256Gi', pods: '500' } },
  };
}

async function child(dist: string, n: number, nodes: number): Promise<Figures> {
  const load = (p: string) => import(pathToFileURL(join(dist, 'src', ...p.split('/'))).href);
  // Another build's modules, loaded by path: typed as this checkout's.
  const { SchedulerCache } = await load('scheduler/cache.js') as typeof import('../src/scheduler/cache.js');
  const { ObjectSharing } = await load('util/shared-objects.js') as typeof import('../src/util/shared-objects.js');
  const { podResources } = await load('scheduler/nodeinfo.js') as typeof import('../src/scheduler/nodeinfo.js');
  const sharing = new ObjectSharing();
  let last: unknown;
  const pods: Pod[] = [];
  for (let i = 0; i < 3 * n; i++) { const o = sharing.compact(runningPod(i, nodes), undefined, ['spec', 'status', 'metadata'], last); last = o; pods.push(o); }
  const cache = new SchedulerCache();
  for (let i = 0; i < nodes; i++) cache.addNode(node(i));
  const base = await used();
  let c0 = cpuUs();
  for (let i = 0; i < n; i++) cache.addPod(pods[i]!);
  const addUs = (cpuUs() - c0) / n;
  const atN = await used();
  for (let i = n; i < 3 * n; i++) cache.addPod(pods[i]!);
  const at3N = await used();
  c0 = cpuUs();
  for (let i = 0; i < 3 * n; i++) cache.updatePod(pods[i]!, pods[i]!);
  const confirmUs = (cpuUs() - c0) / (3 * n);
  let sink = 0;
  const readAll = () => {
    for (const info of cache.list) {
      for (const p of info.pods.values() as Iterable<Pod>) {
        const m = p.metadata!;
        if (m.labels?.app !== undefined && m.namespace !== undefined && !m.deletionTimestamp) sink++;
        if (p.spec!.affinity === undefined && (p.spec!.priority ?? 0) === 0 && p.status!.startTime) sink++;
        sink += podResources(p).hostPorts.length;
      }
    }
  };
  // Warmed up first: a few passes alone read mostly V8's tiering (0.09-0.2 µs a pod run to run).
  for (let r = 0; r < 10; r++) readAll();
  c0 = cpuUs();
  for (let r = 0; r < readPasses; r++) readAll();
  const readUs = (cpuUs() - c0) / (readPasses * 3 * n);
  if (sink < 0) console.error(sink);
  return { atN: (atN - base) / n, marginal: (at3N - atN) / (2 * n), addUs, confirmUs, readUs };
}

async function main(): Promise<void> {
  const { values } = benchArgs('Heap per pod of the scheduler cache and the CPU of adding, confirming and reading its pods.', {
    options: {
      pods: { type: 'string', default: '30000' }, nodes: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '3' },
      'baseline-dist': { type: 'string', help: "another build's dist directory, run in the same rounds" },
      child: { type: 'string', help: '(internal) one round in this process for the build at DIST' },
    },
  });
  const n = Number(values.pods);
  const nodes = Number(values.nodes);
  if (values.child) return void console.log(JSON.stringify(await child(values.child, n, nodes)));
  const { results, loads } = runJsonRounds<Figures>(import.meta.url, Number(values.rounds), values['baseline-dist'], ['--pods', String(n), '--nodes', String(nodes)]);
  const col = (runs: Figures[], f: (x: Figures) => number, d = 0) => `**${median(runs.map(f)).toFixed(d)}** (${runs.map((x) => f(x).toFixed(d)).join(', ')})`;
  console.log(table(['build', 'pods', `bytes per pod at ${n}`, `marginal bytes per pod, ${n} → ${3 * n}`, 'addPod, µs', 'confirm (addPod again), µs', 'read a cached pod, µs'],
    [...results].map(([name, runs]) => [
      name, String(n), col(runs, (x) => x.atN), col(runs, (x) => x.marginal),
      col(runs, (x) => x.addUs, 2), col(runs, (x) => x.confirmUs, 2), col(runs, (x) => x.readUs, 3),
    ])));
  console.log(`\nload average ${loads.join(' → ')}; ${Number(values.rounds)} rounds, median (each round); ${nodes} nodes`);
}

main().catch((e) => { console.error(e); process.exit(1); });
