/**
 * The API server's memory at scale, by component (issue 20: server peak RSS < 1 GB on
 * SQLite at 5,000 nodes and 150,000 pods), rerunnable at any size:
 *
 * Per build: a fresh `k8ts server` (SQLite, `--controllers all`: the control loops in their
 * thread, as `k8ts up`), a NodeSimulator in this process (N nodes, Leases renewed every 10 s,
 * no kubelet Events, as bench/scale.ts), P DaemonSet-style pods created through the API by 64
 * clients, bound by spec.nodeName (as bench/dashboard.ts --map-pods; the scheduler and the
 * ReplicaSet controller would make the run an hour on a loaded machine), started by their
 * simulated kubelets. Once every pod is Running and after --settle-s seconds:
 *  - the process's RSS and peak RSS (VmHWM, /proc), sampled through the run;
 *  - each isolate's V8 heap (SIGUSR2: the server logs `memory by isolate`, src/cli/heap-report.ts):
 *    the serving thread (watch cache, listers, fan-out) and the control loops' thread (their informers);
 *  - per cached pod, measured in this process on one of the run's own pods as the server
 *    sends it: the decoded object, the same without metadata.managedFields, its JSON text,
 *    N copies each held at once (heap used after a full GC, divided by N).
 *
 * With --baseline DIR (a built checkout, e.g. /tmp/base-memory) the two builds run in turn,
 * baseline first, --runs times each, on the same machine in one run.
 *
 * With --heap-snapshots DIR the server writes a heap snapshot of each isolate there once with
 * the nodes only and once at the end (src/cli/heap-report.ts; summarize them with
 * `node dist/bench/heap-summary.js FILE`), and logs how much of each heap was garbage.
 *
 *   node dist/bench/memory.js [--nodes 5000] [--pods 50000] [--settle-s 20]
 *     [--baseline DIR] [--runs 1] [--no-write] [--heap-snapshots DIR]
 *     [--node-args '--heap-growing-percent=50']   (node/V8 flags for both builds' servers)
 *   (the pods' node names assume --nodes 5000)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { startServer, readMemory, readSmapsRollup, readCpuMs, RssSampler, type ServerProcess } from './lib/server.js';
import { isolateReport, type IsolateReport } from './lib/isolate-report.js';
import { ApiClient } from './lib/client.js';
import { runConcurrent, podName } from './lib/load.js';
import { daemonSetPod } from './lib/pods.js';
import { machineLine, revisionLine, table, writeSection } from './lib/results.js';
import { msSince } from './lib/stats.js';
import { Clientset, loadKubeconfig } from '../src/client/index.js';
import { NodeSimulator } from '../src/kubelet/index.js';
import { silentLogger } from '../src/util/log.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');

const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

interface PerObject { decoded: number; withoutManagedFields: number; text: number; textChars: number }

interface Run {
  build: string;
  podsReadySec: number;
  podsReady: number;
  rssMiB: number;
  peakMiB: number;
  /** Highest RSS sampled before the pods (nodes registered, Leases renewing). */
  nodesOnlyMiB: number;
  heap?: IsolateReport;
  /** Anonymous and file-backed RSS at the end, MiB. */
  anonMiB: number;
  fileMiB: number;
  /** Server CPU (user + system) from the first create to every pod Running, ms per pod. */
  cpuMsPerPod: number;
  perObject: PerObject;
  load: [number, number];
}

/** bench/lib/pods.ts's pod without its owner (a DaemonSet that does not exist: the garbage collector would delete it). */
function pod(i: number): Pod {
  const p = daemonSetPod('default', podName('mem', i), `node-${i % 5000}`) as Pod;
  delete p.metadata!.ownerReferences;
  return p;
}

const heapLine = (name: string, h?: { usedMiB: number; totalMiB: number; usedAfterFullGcMiB?: number }) =>
  h ? `${name} ${h.usedMiB}/${h.totalMiB} MiB used/total (${h.usedAfterFullGcMiB ?? '?'} after its last full GC)` : `${name} n/a`;

/** RSS by kind and each isolate's heap, for the progress lines. */
async function memoryLine(server: ServerProcess): Promise<string> {
  const h = await isolateReport(server).catch(() => undefined);
  const s = readSmapsRollup(server.pid);
  return `RSS ${(readMemory(server.pid).rssKB / 1024).toFixed(0)} MiB (anonymous ${(s.anonKB / 1024).toFixed(0)}); ${heapLine('serving', h?.main)}; ${heapLine('loops', h?.controlLoops)}`;
}

/** Bytes of V8 heap per copy of what `make` returns, `n` copies held at once. */
function heapPerCopy(n: number, make: (i: number) => unknown): number {
  gc(); gc();
  const before = process.memoryUsage().heapUsed;
  const held: unknown[] = new Array(n);
  for (let i = 0; i < n; i++) held[i] = make(i);
  gc(); gc();
  const after = process.memoryUsage().heapUsed;
  if (held.length !== n) throw new Error('unreachable');
  return (after - before) / n;
}

/** One pod as the server sends it: decoded, decoded without managed fields, and its text. */
function perObject(text: string): PerObject {
  const n = 5000;
  const decoded = heapPerCopy(n, () => JSON.parse(text));
  const withoutManagedFields = heapPerCopy(n, () => { const p = JSON.parse(text) as Pod; delete p.metadata!.managedFields; return p; });
  // A fresh flat string each time (Buffer round trip), as the cache keeps one text per object.
  const bytes = Buffer.from(text);
  const textBytes = heapPerCopy(n, () => bytes.toString());
  return { decoded, withoutManagedFields, text: textBytes, textChars: text.length };
}

interface Options { nodes: number; pods: number; settleMs: number; snapshots: boolean; nodeArgs: string[] }

async function runOnce(work: string, build: string, cliPath: string, o: Options): Promise<Run> {
  const dataDir = join(work, build);
  const server = await startServer({ cliPath, dataDir, serverArgs: ['--controllers', 'all'], nodeArgs: o.nodeArgs });
  const sampler = new RssSampler(server.pid, 500).start();
  const kubeconfig = join(dataDir, 'admin.conf');
  const simClients = new Clientset(loadKubeconfig(kubeconfig), { qps: 0, userAgent: 'k8ts-node-simulator' });
  const clients = new Clientset(loadKubeconfig(kubeconfig), { qps: 0, userAgent: 'k8ts-bench' });
  const sim = new NodeSimulator(simClients, { count: o.nodes, namePrefix: 'node-', renewIntervalMs: 10_000, events: false, logger: silentLogger });
  const load0 = loadavg()[0]!;
  try {
    await sim.start();
    await sleep(o.settleMs);
    const nodesOnlyMiB = sampler.peakKB / 1024;
    log(`${build}: ${o.nodes} nodes registered; RSS peak so far ${nodesOnlyMiB.toFixed(0)} MiB`);
    if (o.snapshots && build !== 'baseline') log(`${build}: nodes only: ${JSON.stringify(await isolateReport(server, true, log))}`);
    const p0 = process.hrtime.bigint();
    const cpu0 = readCpuMs(server.pid);
    const client = new ApiClient(server.creds, 64);
    let podsReady = 0;
    let podsReadySec = NaN;
    try {
      await runConcurrent(0, o.pods, 64, async (i) => (await client.expect(201, 'POST', '/api/v1/namespaces/default/pods', { body: JSON.stringify(pod(i)) })).ms);
      log(`${build}: ${o.pods} pods created in ${(msSince(p0) / 1000).toFixed(0)} s; RSS ${(readMemory(server.pid).rssKB / 1024).toFixed(0)} MiB`);
      // Every pod started by its simulated kubelet (its status written): one page of one pod not Running, from the cache.
      while (msSince(p0) < 3_600_000) {
        const page = await client.expect(200, 'GET', '/api/v1/namespaces/default/pods?fieldSelector=status.phase%21%3DRunning&limit=1');
        if ((JSON.parse(page.body.toString()) as { items: unknown[] }).items.length === 0) { podsReady = o.pods; podsReadySec = msSince(p0) / 1000; break; }
        log(`  ${(msSince(p0) / 1000).toFixed(0)} s: pods still starting; ${await memoryLine(server)}`);
        await sleep(10_000);
      }
    } finally {
      client.close();
    }
    const cpuMsPerPod = (readCpuMs(server.pid) - cpu0) / o.pods;
    log(`${build}: ${podsReady} pods ready in ${podsReadySec.toFixed(1)} s; settling ${o.settleMs / 1000} s; ${await memoryLine(server)}`);
    await sleep(o.settleMs);
    // Baselines since src/cli/heap-report.ts answer SIGUSR2 too (older ones would die of it).
    const heap = await isolateReport(server, o.snapshots, log);
    const smaps = readSmapsRollup(server.pid);
    log(`${build}: settled; ${await memoryLine(server)}`);
    const text = JSON.stringify((await clients.pods.get('default', podName('mem', 0))) as Pod);
    const mem = readMemory(server.pid);
    sampler.stop();
    return {
      build, podsReadySec, podsReady, rssMiB: mem.rssKB / 1024, peakMiB: mem.hwmKB / 1024, nodesOnlyMiB, heap,
      anonMiB: smaps.anonKB / 1024, fileMiB: smaps.fileKB / 1024, cpuMsPerPod,
      perObject: perObject(text), load: [load0, loadavg()[0]!],
    };
  } finally {
    sampler.stop();
    await sim.close().catch((e) => log(`sim.close: ${e}`));
    simClients.close();
    clients.close();
    await server.stop();
  }
}

const f0 = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
const heapCell = (h?: { usedMiB: number; totalMiB: number; usedAfterFullGcMiB?: number }) =>
  h ? `${f0(h.usedMiB)} / ${f0(h.totalMiB)}${h.usedAfterFullGcMiB === undefined ? '' : ` (${f0(h.usedAfterFullGcMiB)})`}` : 'n/a';

function report(runs: Run[], command: string, o: { nodes: number; pods: number }): string {
  const rows = runs.map((r) => [
    r.build, `${f0(r.podsReady)} in ${r.podsReadySec.toFixed(0)} s`, f0(r.nodesOnlyMiB), `**${f0(r.peakMiB)}**`, f0(r.rssMiB),
    `${f0(r.anonMiB)} / ${f0(r.fileMiB)}`,
    heapCell(r.heap?.main), heapCell(r.heap?.controlLoops),
    r.heap ? `${f0(r.heap.externalMiB)} (${f0(r.heap.arrayBuffersMiB)})` : 'n/a',
    `${f0(r.perObject.decoded)} / ${f0(r.perObject.withoutManagedFields)} / ${f0(r.perObject.text)} (${f0(r.perObject.textChars)} chars)`,
    r.cpuMsPerPod.toFixed(2),
    `${r.load[0].toFixed(1)} → ${r.load[1].toFixed(1)}`,
  ]);
  return [
    '## Memory at scale, by component (bench/memory.ts)',
    '',
    `- Command: \`${command}\``,
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${machineLine()}`,
    `- Revision: ${revisionLine(repoRoot)}`,
    `- Setup: per build a fresh \`k8ts server --controllers all\` on SQLite, ${f0(o.nodes)} simulated nodes (Leases every 10 s, no Events), ${f0(o.pods)} DaemonSet-style pods of ~1.3 KB (bench/lib/pods.ts, without the owner) created through the API by 64 clients, bound by spec.nodeName to nodes node-0 ... node-4999 and started by their simulated kubelets (status written); read once every pod is ready and the cluster settled. Heap: the serving thread's and the control loops' thread's V8 heap, used / total, MiB (SIGUSR2 report), and in brackets what its last full collection kept (about the live heap; servers since mem6). Per pod: one of the run's pods as the server sends it, decoded / decoded without managedFields / its JSON text, bytes of V8 heap each (5,000 copies held in the benchmark process).`,
    '',
    table(['build', 'pods Running', 'RSS with nodes only, MiB', 'peak RSS (VmHWM), MiB', 'RSS at the end, MiB', 'anonymous / file RSS at the end, MiB', 'serving heap, MiB', 'control loops heap, MiB', 'external (ArrayBuffers), MiB', 'per pod, bytes', 'server CPU per pod created and started, ms', 'load'], rows),
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = benchArgs("The API server's memory at scale, by component.", {
    options: {
      nodes: { type: 'string', default: '5000' }, pods: { type: 'string', default: '50000' },
      'settle-s': { type: 'string', default: '20' }, baseline: { type: 'string' }, runs: { type: 'string', default: '1' }, 'no-write': { type: 'boolean', default: false },
      'heap-snapshots': { type: 'string' }, 'node-args': { type: 'string', default: '' },
    },
  });
  const o = { nodes: Number(values.nodes), pods: Number(values.pods), settleMs: Number(values['settle-s']) * 1000, snapshots: !!values['heap-snapshots'],
    nodeArgs: values['node-args'].split(' ').filter(Boolean),
  };
  // The server (a child process) reads it: src/cli/heap-report.ts.
  if (values['heap-snapshots']) process.env.K8TS_HEAP_SNAPSHOT_DIR = values['heap-snapshots'];
  const command = `node ${relative(repoRoot, process.argv[1]!)} ${process.argv.slice(2).join(' ')}`.trim();
  const builds: [string, string][] = [['this build', join(repoRoot, 'dist', 'src', 'cli', 'main.js')]];
  if (values.baseline) builds.unshift(['baseline', join(values.baseline, 'dist', 'src', 'cli', 'main.js')]);
  const work = mkdtempSync(join(tmpdir(), 'k8ts-bench-memory-'));
  try {
    const runs: Run[] = [];
    for (let i = 0; i < Number(values.runs); i++) {
      for (const [name, cli] of builds) {
        const r = await runOnce(join(work, String(i)), name, cli, o);
        log(JSON.stringify(r));
        runs.push(r);
      }
    }
    const md = report(runs, command, o);
    console.log(`\n${md}`);
    if (!values['no-write']) writeSection(resultsFile, 'memory', md);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
