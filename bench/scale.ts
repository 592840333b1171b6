/**
 * Upstream's published scale limits on one machine, with upstream's SLOs
 * measured (the "Scale" part of the performance issue): N simulated nodes
 * (5,000) renewing their Leases every 10 s, P pods (150,000: 30 a node)
 * started through Deployments by the in-process controllers and scheduler,
 * then a DaemonSet rolled out to every node, on SQLite or on etcd.
 *
 * Per storage: a fresh `k8ts server --controllers all` (a child process,
 * fresh data dir; on etcd a fresh private etcd), a NodeSimulator in this
 * process registering N nodes, D Deployments of P/D replicas each (pause,
 * requests 10m/16Mi) created at once, their ready replicas polled every 5 s
 * until P or the cutoff; then the seed's DaemonSet, polled every 500 ms until
 * Ready on all N nodes; then a last node list (all Ready?). --cutoff-s is one
 * budget from the creates to the end (a partial run still reports what it
 * measured), of which the DaemonSet keeps min(300 s, a fifth).
 *
 * The SLOs (kubernetes/community sig-scalability/slos):
 *  - mutating API calls for single objects: p99 per (verb, resource) <= 1 s,
 *    read from the server's apiserver_request_duration_seconds histogram over
 *    the whole run (the bucket holding the 99th percentile; buckets end at 1, 2.5, 5, 10 s);
 *  - non-streaming lists: p99 <= 30 s cluster-wide: the histogram's LISTs
 *    (controllers, scheduler, simulator) and, timed by this process every
 *    --list-every-s seconds, the cluster-wide lists kubectl sends
 *    (`get pods -A`: pages of 500 with a continue token, each page a call;
 *    `get nodes`);
 *  - and the run's own criteria: every node Ready at the end, the DaemonSet on
 *    every node, server peak RSS (VmHWM) under 1 GB on SQLite.
 *
 *   node dist/bench/scale.js [--nodes 5000] [--pods 150000] [--deployments 150]
 *     [--storage sqlite,etcd] [--renew-ms 10000] [--cutoff-s 3600] [--list-every-s 30] [--no-write]
 *     [--heap-snapshots DIR] [--skip-daemonset] [--baseline DIR] [--runs 1]
 *   --heap-snapshots: a heap snapshot of each isolate once the nodes are Ready and once the pods
 *   are, each isolate's live heap (used after the snapshot's full GC) reported, and per pod the
 *   difference divided by the pods ready (src/cli/heap-report.ts; the files: bench/heap-summary.ts).
 *   --settle-s N: N seconds after the pods are ready before their heap report (a control loops'
 *   informer keeps pods untouched for a while compressed: client/cold-sweep.ts).
 *   --baseline DIR: a built checkout run in turn with this one, baseline first, --runs times each.
 *   (K8TS_BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" passes node flags to the server process)
 *   (K8TS_BENCH_SERVER_STDOUT=FILE keeps the server's stdout, e.g. with K8TS_BENCH_SERVER_NODE_ARGS=--trace-gc)
 *   (K8TS_BENCH_SERVER_ARGS="--max-mutating-requests-inflight 64" adds flags to `k8ts server`: one build A/B against itself)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DaemonSet, Deployment } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { mkdirSync } from 'node:fs';
import { readdirSync } from 'node:fs';
import { startServer, readMemory, readCpuMs, readThreadCpuMs } from './lib/server.js';
import { isolateReport, type IsolateReport } from './lib/isolate-report.js';
import { readEtcdDb, startEtcd, type Etcd, type EtcdDb } from './lib/etcd.js';
import { countsSince, describeCounts, writeCounts } from './lib/request-counts.js';
import { describeSeatWait, describeStages, p99s, scrape, type Quantile } from './lib/request-histograms.js';
import { machineLine, revisionLine, table, writeSection } from './lib/results.js';
import { msSince } from './lib/stats.js';
import { Clientset, loadKubeconfig } from '../src/client/index.js';
import { NodeSimulator } from '../src/kubelet/index.js';
import { silentLogger } from '../src/util/log.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const mutatingSloSec = 1;
/** The writes whose server time the report splits into stages. */
const stagedCalls = ['POST pods/binding', 'POST pods', 'PUT pods/status', 'PUT leases'];
const listSloSec = 30;
const rssLimitMB = 1024;

const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isPodReady = (p: Pod) => (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
const isReady = (n: Node) => (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** kubectl get pods -A: pages of 500 with a continue token; each page's latency. */
async function timedPagedList(clients: Clientset, path: string): Promise<{ pages: number[]; items: number; ready: number; totalMs: number }> {
  const pages: number[] = [];
  let items = 0;
  let ready = 0;
  let cont = '';
  const t0 = process.hrtime.bigint();
  do {
    const t = process.hrtime.bigint();
    const res = await clients.rest.raw('GET', `${path}?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
    let text = '';
    for await (const c of res) text += c;
    pages.push(msSince(t));
    const list = JSON.parse(text) as { items: Pod[]; metadata?: { continue?: string } };
    items += list.items.length;
    // The pods' own Ready condition, to hold the Deployments' readyReplicas against (they trailed by minutes
    // while the ReplicaSet controller's workers all sat in creates; bench/RESULTS.md `mem7`).
    ready += list.items.filter(isPodReady).length;
    cont = list.metadata?.continue ?? '';
  } while (cont);
  return { pages, items, ready, totalMs: msSince(t0) };
}

function deployment(i: number, replicas: number): Deployment {
  const app = `load-${i}`;
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: app, namespace: 'default' },
    spec: {
      replicas, selector: { matchLabels: { app } },
      template: { metadata: { labels: { app } }, spec: { containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] } },
    },
  };
}

function httpGo(): DaemonSet {
  return {
    apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'http-go', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'http-go' } },
      template: { metadata: { labels: { app: 'http-go' } }, spec: { containers: [{ name: 'http-go', image: 'gasbugs/http-go' }] } },
    },
  };
}

interface Run {
  storage: string;
  /** 'this build' or 'baseline'. */
  build: string;
  /** With --heap-snapshots: each isolate's live heap once the nodes were Ready, and once the pods were. */
  heapNodes?: IsolateReport;
  heapPods?: IsolateReport;
  nodes: number;
  pods: number;
  registerSec: number;
  podsReadySec: number;
  podsReady: number;
  /** Ready pods in the last timed list. */
  podsReadyListed: number;
  /** At each timed list: the Ready pods it found and the Deployments' readyReplicas read right after it. */
  statusLag: { listed: number; deployments: number }[];
  /** Each isolate's heap once the pods were ready or the cutoff came (SIGUSR2, no snapshot). */
  memoryAtPods?: IsolateReport;
  dsReadySec: number;
  dsReady: number;
  nodesReadyAtEnd: number;
  mutating: Quantile[];
  /** The same calls by upstream's SLI histogram (without the fair queue's wait); empty for a build without it. */
  mutatingSli: Quantile[];
  /** Where the staged calls' server time went (bench/lib/request-histograms.ts describeStages). */
  stages?: string;
  /** The fair queue's wait by priority level and flow schema. */
  seatWait?: string;
  lists: Quantile[];
  podPages: number[];
  podListTotals: number[];
  nodeLists: number[];
  serverPeakMB: number;
  serverCpuSec: number;
  /** CPU from the creates to the pods' heap report: the server's main thread and its busiest other thread (the control loops'). */
  podsCpu?: { mainSec: number; loopsSec: number };
  counts: string;
  load: [number, number];
  /** On etcd: the etcd process's peak RSS (VmHWM), its CPU from the creates to the end, and its backend file at the end. */
  etcd?: { peakMB: number; cpuSec: number; db?: EtcdDb };
}

interface Options { nodes: number; pods: number; deployments: number; renewMs: number; cutoffMs: number; listEveryMs: number; snapshotDir?: string; skipDaemonSet: boolean; settleMs: number }

/** CPU ms of each thread of `pid` by id (threads that ended are left out). */
function threadCpu(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try { out.set(Number(tid), readThreadCpuMs(pid, Number(tid))); } catch { /* ended meanwhile */ }
  }
  return out;
}

/**
 * The main thread's CPU since `before`, and the most of any other thread's: in `k8ts server` under
 * a rollout that is the control loops' worker thread (the heavy lane, libuv's pool and V8's
 * helpers use far less; the thread is unnamed in older builds, so it is found by its CPU).
 */
function podsCpu(pid: number, before: Map<number, number>): { mainSec: number; loopsSec: number } {
  const now = threadCpu(pid);
  let loops = 0;
  for (const [tid, ms] of now) if (tid !== pid) loops = Math.max(loops, ms - (before.get(tid) ?? 0));
  return { mainSec: ((now.get(pid) ?? 0) - (before.get(pid) ?? 0)) / 1000, loopsSec: loops / 1000 };
}

async function runOnce(work: string, storage: 'sqlite' | 'etcd', build: { name: string; cliPath: string }, o: Options): Promise<Run> {
  const dataDir = join(work, storage);
  const etcd: Etcd | undefined = storage === 'etcd' ? await startEtcd(join(work, 'etcd')) : undefined;
  // The server writes its snapshots where this variable says (src/cli/heap-report.ts).
  const snapshots = o.snapshotDir ? join(o.snapshotDir, `${basename(dirname(work))}-${storage}`) : undefined;
  if (snapshots) mkdirSync(snapshots, { recursive: true });
  const server = await startServer({
    cliPath: build.cliPath, dataDir, serverArgs: ['--controllers', 'all', ...(etcd ? ['--etcd-servers', etcd.url] : []), ...(process.env.K8TS_BENCH_SERVER_ARGS?.split(' ').filter(Boolean) ?? [])],
    nodeArgs: process.env.K8TS_BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean), env: snapshots ? { K8TS_HEAP_SNAPSHOT_DIR: snapshots } : undefined,
    stdoutFile: process.env.K8TS_BENCH_SERVER_STDOUT,
  });
  let heapNodes: IsolateReport | undefined;
  let heapPods: IsolateReport | undefined;
  const kubeconfig = join(dataDir, 'admin.conf');
  const simClients = new Clientset(loadKubeconfig(kubeconfig), { qps: 0, userAgent: 'k8ts-node-simulator' });
  const clients = new Clientset(loadKubeconfig(kubeconfig), { qps: 0, userAgent: 'k8ts-bench' });
  const sim = new NodeSimulator(simClients, { count: o.nodes, namePrefix: 'node-', renewIntervalMs: o.renewMs, events: false, logger: silentLogger });
  const podPages: number[] = [];
  const podListTotals: number[] = [];
  const nodeLists: number[] = [];
  let podsReadyListed = 0;
  const statusLag: { listed: number; deployments: number }[] = [];
  let memoryAtPods: IsolateReport | undefined;
  let listing = true;
  let lister: Promise<void> = Promise.resolve();
  const load0 = loadavg()[0]!;
  try {
    const t0 = process.hrtime.bigint();
    await sim.start();
    const registerSec = msSince(t0) / 1000;
    for (;;) {
      const ready = (await clients.nodes.list()).items.filter(isReady).length;
      if (ready >= o.nodes) break;
      if (msSince(t0) > 300_000) throw new Error(`only ${ready} of ${o.nodes} nodes Ready after 300 s`);
      await sleep(500);
    }
    log(`${storage}: ${o.nodes} nodes registered in ${registerSec.toFixed(1)} s, all Ready at ${(msSince(t0) / 1000).toFixed(1)} s`);
    // The control loops list the nodes and take their lease after the nodes register: let them settle first.
    if (snapshots) { await sleep(15_000); heapNodes = await isolateReport(server, true, log); }

    const h0 = await scrape(clients);
    const c0 = await writeCounts(clients);
    const cpu0 = readCpuMs(server.pid);
    const etcdCpu0 = etcd ? readCpuMs(etcd.pid) : 0;
    const threads0 = threadCpu(server.pid);
    lister = (async () => {
      while (listing) {
        const p = await timedPagedList(clients, '/api/v1/pods').catch((e: Error) => { log(`  list: ${e.message}`); return undefined; });
        if (!p) { await sleep(1000); continue; }
        podPages.push(...p.pages);
        podListTotals.push(p.totalMs);
        podsReadyListed = p.ready;
        // How far the Deployments' status trails the pods it counts (upstream's controllers keep it within seconds).
        const deployments = await deploymentsReady(clients).catch(() => NaN);
        if (!Number.isNaN(deployments) && p.items > 0) statusLag.push({ listed: p.ready, deployments });
        const t = process.hrtime.bigint();
        // Outside the page loop's catch: a failed node list ended the first 150,000-pod run's lister.
        const listed = await clients.nodes.list().then(() => true, (e: Error) => { log(`  node list: ${e.message}`); return false; });
        if (listed) nodeLists.push(msSince(t));
        log(`  list: ${p.items} pods (${p.ready} Ready) in ${p.pages.length} pages, ${(p.totalMs / 1000).toFixed(1)} s (slowest page ${Math.max(...p.pages).toFixed(0)} ms); nodes ${nodeLists.at(-1)!.toFixed(0)} ms`);
        for (let waited = 0; listing && waited < o.listEveryMs; waited += 500) await sleep(500);
      }
    })();

    const per = Math.ceil(o.pods / o.deployments);
    const p0 = process.hrtime.bigint();
    for (let i = 0; i < o.deployments; i++) await clients.resource('deployments').create('default', deployment(i, Math.min(per, o.pods - i * per)));
    // One budget from the creates to the end; the DaemonSet keeps a reserve of it so a partial run still measures its rollout.
    const dsReserveMs = Math.min(300_000, o.cutoffMs / 5);
    let podsReady = 0;
    let podsReadySec = NaN;
    while (msSince(p0) < o.cutoffMs - dsReserveMs) {
      podsReady = await deploymentsReady(clients);
      if (podsReady >= o.pods) { podsReadySec = msSince(p0) / 1000; break; }
      log(`  ${(msSince(p0) / 1000).toFixed(0)} s: ${podsReady} of ${o.pods} pods ready; server RSS ${(readMemory(server.pid).rssKB / 1024).toFixed(0)} MB (peak ${(readMemory(server.pid).hwmKB / 1024).toFixed(0)} MB)${etcd ? await etcdLine(etcd) : ''}; load ${loadavg()[0]!.toFixed(1)}`);
      await sleep(5000);
    }
    log(`${storage}: ${podsReady} pods ready${Number.isNaN(podsReadySec) ? ' at the cutoff' : ` in ${podsReadySec.toFixed(1)} s`}${o.skipDaemonSet ? '' : '; creating the DaemonSet'}`);
    if (o.settleMs > 0) { log(`  settling ${o.settleMs / 1000} s`); await sleep(o.settleMs); }
    const cpuAtPods = podsCpu(server.pid, threads0);
    log(`  CPU from the creates: main thread ${cpuAtPods.mainSec.toFixed(1)} s, control loops ${cpuAtPods.loopsSec.toFixed(1)} s; RSS ${(readMemory(server.pid).rssKB / 1024).toFixed(0)} MB`);
    if (snapshots) heapPods = await isolateReport(server, true, log);
    else memoryAtPods = await isolateReport(server).catch(() => undefined);
    if (memoryAtPods) log(`  memory by isolate: ${JSON.stringify(memoryAtPods)}`);

    const d0 = process.hrtime.bigint();
    if (!o.skipDaemonSet) await clients.daemonsets.create('default', httpGo());
    let dsReady = 0;
    let dsReadySec = NaN;
    for (let polls = 0; !o.skipDaemonSet && (polls === 0 || msSince(p0) < o.cutoffMs || msSince(d0) < dsReserveMs); polls++) {
      // A reset connection is one lost poll, not the run (the first 150,000-pod run ended on one here).
      const st = await clients.daemonsets.get('default', 'http-go').then((d) => d.status, (e: Error) => { log(`  DaemonSet poll: ${e.message}`); return undefined; });
      if (st === undefined) { await sleep(500); continue; }
      dsReady = st.numberReady ?? 0;
      if (polls % 60 === 59) log(`  DaemonSet ${(msSince(d0) / 1000).toFixed(0)} s: ${dsReady} of ${o.nodes} Ready; server RSS ${(readMemory(server.pid).rssKB / 1024).toFixed(0)} MB`);
      if (st?.desiredNumberScheduled === o.nodes && dsReady === o.nodes) { dsReadySec = msSince(d0) / 1000; break; }
      await sleep(500);
    }
    log(`${storage}: DaemonSet ${dsReady} of ${o.nodes} Ready${Number.isNaN(dsReadySec) ? ' at the cutoff' : ` in ${dsReadySec.toFixed(1)} s`}`);

    listing = false;
    await lister;
    const nodesReadyAtEnd = (await clients.nodes.list()).items.filter(isReady).length;
    const h1 = await scrape(clients);
    const isMutating = (q: Quantile) => /^(POST|PUT|PATCH|DELETE) /.test(q.key);
    const mutating = p99s(h0.duration, h1.duration, mutatingSloSec).filter(isMutating);
    const mutatingSli = p99s(h0.sli, h1.sli, mutatingSloSec).filter(isMutating);
    const stages = describeStages(h0, h1, stagedCalls, mutatingSloSec);
    const seatWait = describeSeatWait(h0, h1, mutatingSloSec);
    const lists = p99s(h0.duration, h1.duration, listSloSec).filter((q) => q.key.startsWith('LIST '));
    return {
      storage, build: build.name, heapNodes, heapPods, nodes: o.nodes, pods: o.pods, registerSec, podsReadySec, podsReady, podsReadyListed, statusLag, memoryAtPods, dsReadySec, dsReady, nodesReadyAtEnd, mutating, mutatingSli, stages, seatWait, lists,
      podPages, podListTotals, nodeLists, serverPeakMB: readMemory(server.pid).hwmKB / 1024, serverCpuSec: (readCpuMs(server.pid) - cpu0) / 1000, podsCpu: cpuAtPods,
      counts: describeCounts(countsSince(c0, await writeCounts(clients))), load: [load0, loadavg()[0]!],
      etcd: etcd ? { peakMB: readMemory(etcd.pid).hwmKB / 1024, cpuSec: (readCpuMs(etcd.pid) - etcdCpu0) / 1000, db: await readEtcdDb(etcd.url).catch(() => undefined) } : undefined,
    };
  } finally {
    listing = false;
    await lister.catch(() => undefined);
    await sim.close().catch((e) => log(`sim.close: ${e}`));
    simClients.close();
    clients.close();
    await server.stop();
    await etcd?.stop();
  }
}

/** etcd's RSS, CPU so far and backend file, for the progress lines. */
async function etcdLine(etcd: Etcd): Promise<string> {
  const db = await readEtcdDb(etcd.url).catch(() => undefined);
  const mb = (b: number) => (b / 2 ** 20).toFixed(0);
  return `; etcd RSS ${(readMemory(etcd.pid).rssKB / 1024).toFixed(0)} MB, CPU ${(readCpuMs(etcd.pid) / 1000).toFixed(0)} s${db ? `, db ${mb(db.totalBytes)} MB (${mb(db.inUseBytes)} in use)` : ''}`;
}

const f0 = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const bound = (s: number) => (Number.isFinite(s) ? `<= ${s} s` : '> 10 s');
const p99 = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]! : NaN);

/** Live heap (after a full GC) of each isolate with the nodes only and with the pods, and the difference per pod ready. */
function heapRows(r: Run): string[][] {
  if (!r.heapNodes?.liveMiB || !r.heapPods?.liveMiB) return [];
  return ['control loops', 'serving'].map((isolate) => {
    const nodes = r.heapNodes!.liveMiB![isolate] ?? NaN;
    const pods = r.heapPods!.liveMiB![isolate] ?? NaN;
    const perPod = ((pods - nodes) * 2 ** 20) / r.podsReady;
    return [r.storage, `${isolate} thread: live heap, nodes only → with the pods`, `${f0(nodes)} → ${f0(pods)} MiB: **${f0(perPod)} bytes per pod**`, '(measured)'];
  });
}

/** The Deployments' readyReplicas against the Ready pods of the same timed list; each isolate's heap at the pods' end. */
function lagRows(r: Run): string[][] {
  const rows: string[][] = [];
  if (r.statusLag.length) {
    const shares = r.statusLag.filter((l) => l.listed > 0).map((l) => l.deployments / l.listed);
    const worst = Math.min(...shares);
    rows.push([r.storage, 'Deployments\' readyReplicas against the Ready pods of each timed list', `${r.statusLag.map((l) => `${f0(l.deployments)}/${f0(l.listed)}`).join(', ')} (lowest share ${Number.isFinite(worst) ? `${(worst * 100).toFixed(0)}%` : 'n/a'})`, '(measured)']);
  }
  if (r.podsCpu) {
    const ms = (sec: number) => `${((sec * 1000) / Math.max(1, r.podsReady)).toFixed(2)} ms a pod`;
    rows.push([r.storage, 'CPU from the creates to the pods\' heap report: control loops thread; main thread', `${f1(r.podsCpu.loopsSec)} s (${ms(r.podsCpu.loopsSec)}); ${f1(r.podsCpu.mainSec)} s (${ms(r.podsCpu.mainSec)})`, '(measured)']);
  }
  const m = r.memoryAtPods;
  if (m) {
    const heap = (h?: { usedMiB: number; totalMiB: number; usedAfterFullGcMiB?: number }) => (h ? `${f0(h.usedMiB)} / ${f0(h.totalMiB)} MiB (${h.usedAfterFullGcMiB === undefined ? '?' : f0(h.usedAfterFullGcMiB)} after its last full GC)` : 'n/a');
    rows.push([r.storage, 'at the pods\' end: RSS; heap used / committed, serving and control loops', `${f0(m.rssMiB)} MiB; serving ${heap(m.main)}; control loops ${heap(m.controlLoops)}`, '(measured)']);
  }
  return rows;
}

/** Upstream's SLI reading of the mutating calls and the stage split, when the build has them. */
function sliRows(r: Run): string[][] {
  const rows: string[][] = [];
  const worst = r.mutatingSli.reduce<Quantile | undefined>((w, q) => (!w || q.p99UpperSec > w.p99UpperSec ? q : w), undefined);
  if (worst) {
    rows.push([r.storage, `the same by upstream's SLI histogram (apiserver_request_sli_duration_seconds: without the fair queue's wait), p99 <= ${mutatingSloSec} s`,
      `worst ${worst.key}: ${bound(worst.p99UpperSec)} (${f0(worst.count)} calls, ${f0(worst.overSec)} over 1 s); POST pods/binding ${r.mutatingSli.filter((q) => q.key === 'POST pods/binding').map((q) => `${bound(q.p99UpperSec)}, ${f0(q.overSec)} over 1 s, mean ${(q.meanSec * 1000).toFixed(0)} ms`).join('')}`,
      r.mutatingSli.every((q) => q.p99UpperSec <= mutatingSloSec) ? 'holds' : '**misses**']);
  }
  const binding = r.mutating.find((q) => q.key === 'POST pods/binding');
  if (binding) rows.push([r.storage, 'POST pods/binding by apiserver_request_duration_seconds: mean', `${(binding.meanSec * 1000).toFixed(0)} ms`, '(measured)']);
  if (r.stages) rows.push([r.storage, 'where the server time went, mean ms a call by stage (calls whose stage alone took over 1 s)', r.stages, '(measured)']);
  if (r.seatWait) rows.push([r.storage, "the fair queue's wait (apiserver_flowcontrol_request_wait_duration_seconds) by priority level / flow schema", r.seatWait, '(measured)']);
  return rows;
}

async function deploymentsReady(clients: Clientset): Promise<number> {
  return ((await clients.resource('deployments').list('default')).items as Deployment[]).reduce((s, d) => s + (d.status?.readyReplicas ?? 0), 0);
}

function report(runs: Run[], command: string, o: { renewMs: number; deployments: number; listEveryMs: number }): string {
  const verdict = (ok: boolean) => (ok ? 'holds' : '**misses**');
  const rows = runs.flatMap((run) => {
    // Rows name the build too when a baseline ran beside this one.
    const r = runs.some((x) => x.build !== 'this build') ? { ...run, storage: `${run.build}, ${run.storage}` } : run;
    const worstMut = r.mutating.reduce((w, q) => (q.p99UpperSec > w.p99UpperSec ? q : w), r.mutating[0] ?? { key: 'none', count: 0, p99UpperSec: 0, overSec: 0 });
    const worstList = r.lists.reduce((w, q) => (q.p99UpperSec > w.p99UpperSec ? q : w), r.lists[0] ?? { key: 'none', count: 0, p99UpperSec: 0, overSec: 0 });
    const pageP99 = p99(r.podPages) / 1000;
    return [
      [r.storage, `mutating single-object calls, p99 per (verb, resource) <= ${mutatingSloSec} s`, `worst ${worstMut.key}: ${bound(worstMut.p99UpperSec)} (${f0(worstMut.count)} calls, ${f0(worstMut.overSec)} over 1 s); all: ${r.mutating.map((q) => `${q.key} ${bound(q.p99UpperSec)}`).join(', ')}`, verdict(r.mutating.every((q) => q.p99UpperSec <= mutatingSloSec))],
      ...sliRows(r),
      [r.storage, `non-streaming lists, p99 <= ${listSloSec} s (server histogram)`, `worst ${worstList.key}: ${bound(worstList.p99UpperSec)} (${f0(worstList.count)} calls)`, verdict(r.lists.every((q) => q.p99UpperSec <= listSloSec))],
      [r.storage, '`kubectl get pods -A` (pages of 500), timed by the client', `page p99 ${(pageP99 * 1000).toFixed(0)} ms over ${f0(r.podPages.length)} pages; whole list ${r.podListTotals.map((t) => (t / 1000).toFixed(1)).join(', ')} s`, verdict(pageP99 <= listSloSec)],
      [r.storage, '`kubectl get nodes`, timed by the client', `p99 ${f0(p99(r.nodeLists))} ms over ${r.nodeLists.length} lists`, verdict(p99(r.nodeLists) / 1000 <= listSloSec)],
      [r.storage, `${f0(r.pods)} pods through ${o.deployments} Deployments, create to all ready`, Number.isNaN(r.podsReadySec) ? `${f0(r.podsReady)} ready at the cutoff by the Deployments' status, ${f0(r.podsReadyListed)} Ready in the last list` : `${f1(r.podsReadySec)} s (${f0(r.pods / r.podsReadySec)} pods/s)`, verdict(!Number.isNaN(r.podsReadySec))],
      [r.storage, `DaemonSet on ${f0(r.nodes)} nodes, create to all Ready`, Number.isNaN(r.dsReadySec) ? `${f0(r.dsReady)} Ready at the cutoff` : `${f1(r.dsReadySec)} s`, verdict(!Number.isNaN(r.dsReadySec))],
      [r.storage, 'every node Ready at the end', `${f0(r.nodesReadyAtEnd)} of ${f0(r.nodes)}`, verdict(r.nodesReadyAtEnd === r.nodes)],
      [r.storage, `server peak RSS (VmHWM)${run.storage === 'sqlite' ? ` < ${rssLimitMB} MB` : ''}`, `${f0(r.serverPeakMB)} MB`, run.storage === 'sqlite' ? verdict(r.serverPeakMB < rssLimitMB) : '(no target)'],
      ...(r.etcd ? [[r.storage, 'etcd process: peak RSS (VmHWM); CPU from the creates to the end; backend file at the end', `${f0(r.etcd.peakMB)} MB; ${f1(r.etcd.cpuSec)} s${r.etcd.db ? `; ${f0(r.etcd.db.totalBytes / 2 ** 20)} MB (${f0(r.etcd.db.inUseBytes / 2 ** 20)} MB in use)` : ''}`, '(measured)']] : []),
      ...heapRows(r),
      ...lagRows(r),
    ];
  });
  return [
    '## Scale: 5,000 nodes and 150,000 pods with upstream\'s SLOs (bench/scale.ts)',
    '',
    `- Command: \`${command}\``,
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${machineLine()}`,
    `- Revision: ${revisionLine(repoRoot)}`,
    `- Setup: per storage a fresh \`k8ts server --controllers all${process.env.K8TS_BENCH_SERVER_ARGS ? ` ${process.env.K8TS_BENCH_SERVER_ARGS}` : ''}\` (child process; on etcd a fresh private etcd 3.4), a NodeSimulator in the benchmark process (Leases renewed every ${o.renewMs / 1000} s, no kubelet Events), ${o.deployments} Deployments (pause, requests 10m/16Mi) created at once; their pods made by the ReplicaSet controller, bound by the scheduler and started by the simulated kubelets; then the seed's DaemonSet. Meanwhile, every ${o.listEveryMs / 1000} s, the benchmark lists pods as \`kubectl get pods -A\` does and lists nodes.`,
    '- SLO figures from the server\'s apiserver_request_duration_seconds histogram over the window from the Deployments\' create to the end: the upper bound of the bucket holding the 99th percentile (buckets 1 ms ... 1, 2.5, 5, 10 s).',
    '',
    table(['Storage', 'SLO / criterion', 'Measured', 'Verdict'], rows),
    '',
    ...runs.map((r) => `- ${r.storage}: load average ${f1(r.load[0])} → ${f1(r.load[1])}; registration of ${f0(r.nodes)} nodes ${f1(r.registerSec)} s; server CPU from the creates to the end ${f1(r.serverCpuSec)} s; writes: ${r.counts}.`),
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = benchArgs("Upstream's scale limits on one machine (5,000 nodes, 150,000 pods) with upstream's SLOs measured.", {
    options: {
      nodes: { type: 'string', default: '5000' }, pods: { type: 'string', default: '150000' }, deployments: { type: 'string', default: '150' },
      storage: { type: 'string', default: 'sqlite,etcd' }, 'renew-ms': { type: 'string', default: '10000' }, 'cutoff-s': { type: 'string', default: '3600' },
      'list-every-s': { type: 'string', default: '30' }, 'no-write': { type: 'boolean', default: false },
      'heap-snapshots': { type: 'string' }, 'skip-daemonset': { type: 'boolean', default: false },
      baseline: { type: 'string' }, runs: { type: 'string', default: '1' }, 'settle-s': { type: 'string', default: '0' },
    },
  });
  const o = {
    nodes: Number(values.nodes), pods: Number(values.pods), deployments: Number(values.deployments), renewMs: Number(values['renew-ms']),
    cutoffMs: Number(values['cutoff-s']) * 1000, listEveryMs: Number(values['list-every-s']) * 1000,
    snapshotDir: values['heap-snapshots'], skipDaemonSet: values['skip-daemonset']!, settleMs: Number(values['settle-s']) * 1000,
  };
  const builds = [{ name: 'this build', cliPath }];
  if (values.baseline) builds.unshift({ name: 'baseline', cliPath: join(values.baseline, 'dist', 'src', 'cli', 'main.js') });
  const command = `node ${relative(repoRoot, process.argv[1]!)} ${process.argv.slice(2).join(' ')}`.trim();
  const work = mkdtempSync(join(tmpdir(), 'k8ts-bench-scale-'));
  try {
    const runs: Run[] = [];
    for (let i = 0; i < Number(values.runs); i++) {
      for (const b of builds) {
        for (const s of values.storage!.split(',')) runs.push(await runOnce(join(work, `${i}-${b.name.replace(/\W+/g, '-')}`, s), s === 'etcd' ? 'etcd' : 'sqlite', b, o));
      }
    }
    const md = report(runs, command, o);
    console.log(`\n${md}`);
    if (!values['no-write']) writeSection(resultsFile, 'scale', md);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// A connection the server closed under the client (an 'error' event nobody listens to: the first
// 150,000-pod run ended on a 'socket hang up' with no frame of ours) must not end an hour-long run.
let uncaught = 0;
process.on('uncaughtException', (e) => { uncaught++; log(`uncaught (${uncaught}): ${e?.stack ?? e}`); });
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
