/**
 * Scheduler benchmark, after upstream's scheduler_perf SchedulingBasic, case 5000Nodes_10000Pods
 * (kubernetes/kubernetes test/integration/scheduler_perf/misc/performance-config.yaml: initNodes 5000,
 * initPods 1000, measurePods 10000; CI threshold 680 pods/s; k8ts target 3,400, issue #20). For each node
 * count, a fresh `k8ts server --controllers none` (a child process) gets N Nodes (4 cpu, 32Gi, 110 pods,
 * Ready; created concurrently); the Scheduler runs in this process, against the server over HTTPS like
 * any client. Shapes (--shape; runOnce says more):
 *  - upstream (default): the scheduler starts, binds 1,000 init pods (namespace-1), and then the 10,000
 *    measured pods (namespace-2), which a child process creates while it runs; only those are measured;
 *  - cold: the 10,000 pods are created first, then a fresh scheduler starts and binds them all.
 *
 * Measured: scheduler_perf's SchedulingThroughput Average (the mean of 1-second samples of pods scheduled),
 * the rate from the first to the last successful binding, CPU per pod of both processes over the window,
 * the server's peak RSS (VmHWM) and this process's. Results go to bench/RESULTS.md, section "scheduler"
 * (other sections are left alone).
 *
 *   node dist/bench/scheduler.js [--nodes 1000,5000] [--pods 10000] [--init-pods 1000] [--shape upstream|cold] [--runs 3] [--no-write] [--keep] [--no-events] [--max-in-flight N] [--baseline DIR]
 *   (--baseline DIR: another built checkout; --runs rounds, each running this build's and DIR's own benchmark
 *   once, the order flipped each round, then the pairs' CPU per pod of both processes; writes nothing)
 *   (K8TS_BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" passes node flags to the server process;
 *   each row logs its scheduling window on the monotonic clock, for bench/lib/cpuprofile.ts --from-us/--to-us)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { ApiClient, readAdminCredentials } from './lib/client.js';
import { runConcurrent } from './lib/load.js';
import { readMemory, resetPeakRss } from './lib/server.js';
import { machineLine, revisionLine, table, writeSection } from './lib/results.js';
import { Clientset, EventRecorder, loadKubeconfig } from '../src/client/index.js';
import { controlLoopInformers } from '../src/cli/controller-manager.js';
import { Scheduler } from '../src/scheduler/scheduler.js';
import { createLogger } from '../src/util/log.js';
import { realClock } from '../src/util/clock.js';
import { benchArgs } from './lib/args.js';
import { renderSchedulerInterleaved, runSchedulerInterleaved } from './lib/scheduler-ab.js';
import type { Build } from './lib/ab-child.js';
import { benchNode, benchPod } from './lib/scheduler-perf-objects.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const anchorPodsPerSec = 680;
const targetPodsPerSec = 3400;
const createConcurrency = 64;

const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);

type Shape = 'upstream' | 'cold';

interface RunResult {
  run: number;
  shape: Shape;
  /** Pods the same scheduler bound before the measured ones (upstream's initPods; 0 in the cold shape). */
  initPods: number;
  /** scheduler_perf's SchedulingThroughput Average: the mean of the 1-second samples of measured pods scheduled. */
  samplesAverage: number;
  samples: number[];
  nodes: number;
  pods: number;
  nodeCreateSec: number;
  podCreateSec: number;
  syncSec: number;
  throughput: number;
  bindSpanSec: number;
  wallSec: number;
  serverPeakMB: number;
  serverPeakSchedulingMB: number;
  schedulerPeakMB: number;
  bindErrors: number;
  /** CPU time per bound pod while scheduling: the server process and this (scheduler) process. */
  serverCpuMsPerPod: number;
  /** Of it, the server's main thread (its event loop, which every request passes through). */
  serverMainCpuMsPerPod: number;
  schedulerCpuMsPerPod: number;
  /** Of it, the informers' initial list of nodes and pods (a cost per object in the cluster, paid once). */
  schedulerSyncCpuMsPerPod: number;
  maxPodsOnANode: number;
  unbound: number;
  eventsDropped: number;
  /** The server's answers to pods/binding by HTTP code (apiserver_request_total), and their mean latency in ms (queueing for a seat included). */
  bindingCodes: Record<string, number>;
  bindingMeanMs: number;
  /** 1-minute load average before and after the row (the machine is shared). */
  loadBefore: number;
  loadAfter: number;
}

/** `k8ts server --controllers none` on a free port; resolves once it logs "API server ready". */
function startServer(dataDir: string): Promise<{ proc: ChildProcess; stop(): Promise<void> }> {
  const proc = spawn(process.execPath, [...(process.env.K8TS_BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), cliPath, 'server', '--data-dir', dataDir, '--port', '0', '--bind', '127.0.0.1', '--controllers', 'none'], {
    stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, K8TS_LOG_LEVEL: 'info' },
  });
  const stop = () => new Promise<void>((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) { resolve(); return; }
    const t = setTimeout(() => proc.kill('SIGKILL'), 30_000);
    proc.once('exit', () => { clearTimeout(t); resolve(); });
    proc.kill('SIGTERM');
  });
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`server not ready: ${buf}`)), 30_000);
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited (${code}): ${buf}`)); });
    proc.stderr!.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.includes('"level":"error"')) process.stderr.write(`server: ${line}\n`);
        if (line.includes('"msg":"API server ready"')) { clearTimeout(timer); resolve({ proc, stop }); }
      }
    });
  });
}

/** utime + stime of a process, in ms (clock ticks of 10 ms). */
function processCpuMs(pid: number): number {
  const { user, system } = processCpuSplitMs(pid);
  return user + system;
}

/** utime + stime of a process's main thread (the one running its event loop), in ms. */
function mainThreadCpuMs(pid: number): number {
  const { user, system } = processCpuSplitMs(pid, `/proc/${pid}/task/${pid}/stat`);
  return user + system;
}

/** User and system CPU milliseconds of a process (utime, stime of /proc/PID/stat; 10 ms ticks), or of one of its threads. */
function processCpuSplitMs(pid: number, statFile = `/proc/${pid}/stat`): { user: number; system: number } {
  const fields = readFileSync(statFile, 'utf8').split(') ')[1].split(' ');
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

/** Write and read syscalls of a process so far (syscw, syscr of /proc/PID/io): the server's answers and watch events are writes. */
function processSyscalls(pid: number): { writes: number; reads: number } {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1] ?? NaN);
  return { writes: field('syscw'), reads: field('syscr') };
}

/** This process's collections while it schedules (young: scavenges; old: mark-compacts), counted and their pause time summed. */
function watchGc(): { stop(): string } {
  const young = { n: 0, ms: 0 };
  const old = { n: 0, ms: 0 };
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      const c = kind === perfConstants.NODE_PERFORMANCE_GC_MINOR ? young : kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR ? old : undefined;
      if (c) { c.n++; c.ms += e.duration; }
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  return {
    stop() {
      obs.disconnect();
      return `${young.n} scavenges (${young.ms.toFixed(0)} ms on the main thread), ${old.n} mark-compacts (${old.ms.toFixed(0)} ms)`;
    },
  };
}

async function create(client: ApiClient, path: string, count: number, body: (i: number) => string): Promise<number> {
  const { wallMs } = await runConcurrent(0, count, createConcurrency, async (i) => (await client.expect(201, 'POST', path, { body: body(i) })).ms);
  return wallMs / 1000;
}

/** The Scheduler as k8ts wires it, in this process, on its own HTTPS clients. */
function startScheduler(kubeconfig: string, events: boolean, maxInFlightBinds?: number) {
  const clients = new Clientset(loadKubeconfig(kubeconfig), { qps: 0, userAgent: 'k8ts-scheduler' });
  const logger = createLogger('bench', 'warn');
  // Wired as k8ts runs the scheduler: a scope of the control loops' shared informers (cli/control-loops.ts), which
  // drop managedFields (their watch events parsed without them), pool strings and share pods' common subtrees.
  // Called, not copied: a copy here had kept string pooling alone after the product moved on to shared subtrees.
  const informers = controlLoopInformers(clients, logger).scope();
  const recorder = events ? new EventRecorder(clients, 'default-scheduler', logger) : ({ event() {} } as unknown as EventRecorder);
  const scheduler = new Scheduler({ clients, informers, recorder, logger, clock: realClock }, { maxInFlightBinds });
  return { clients, informers, scheduler };
}

async function waitForBound(scheduler: Scheduler, want: number): Promise<void> {
  const deadline = Date.now() + 30 * 60_000;
  let lastReport = Date.now();
  while (scheduler.stats.bound < want && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    if (Date.now() - lastReport > 5000) {
      lastReport = Date.now();
      log(`  bound ${scheduler.stats.bound}/${want}, pending ${JSON.stringify(scheduler.pending)}`);
    }
  }
}

/**
 * scheduler_perf's throughputCollector: every second, the pods of the measured namespace scheduled since the
 * last sample (samples start at the first second with a pod scheduled; the last, partial second is not
 * sampled); its SchedulingThroughput Average, the mean of the samples, is what CI compares with the threshold.
 * Counted here from the scheduler's successful bindings, which are the measured pods alone.
 */
function sampleThroughput(bound: () => number): { stop(): number[] } {
  const samples: number[] = [];
  let last = bound();
  const timer = setInterval(() => {
    const now = bound();
    if (now > 0) samples.push(now - last);
    last = now;
  }, 1000);
  return { stop() { clearInterval(timer); return samples; } };
}

/** The measured pods, created by a child process while the scheduler runs (bench/lib/create-pods-child.ts). */
function createInChild(kubeconfig: string, namespace: string, count: number): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [join(dirname(fileURLToPath(import.meta.url)), 'lib', 'create-pods-child.js'), kubeconfig, namespace, 'pod', String(count), String(createConcurrency)],
    { stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve((performance.now() - t0) / 1000) : reject(new Error(`pod creator exited with ${code}`))));
  });
}

/**
 * One row. Shapes:
 * - `upstream` (default): scheduler_perf's SchedulingBasic workload, kubernetes/kubernetes
 *   test/integration/scheduler_perf/misc/performance-config.yaml, case 5000Nodes_10000Pods (threshold 680):
 *   createNodes initNodes 5000; createPods initPods 1000 (namespace-1); createPods measurePods 10000
 *   (namespace-2) with collectMetrics. One scheduler runs throughout (scheduler_perf.go's runWorkload):
 *   it schedules the init pods, which the op waits for, and then the measured pods, which are created
 *   while it runs; only the last op is measured. The window here: from the measured pods' first create
 *   to their last binding. The server's CPU in it includes the 10,000 creates, as upstream's window does.
 * - `cold`: this bench's earlier shape: every pod created before a fresh scheduler starts, measured from
 *   Scheduler.run() (its informers' list included): V8 compiles the scheduling path inside the window.
 */
async function runOnce(work: string, nodes: number, pods: number, events: boolean, run: number, shape: Shape, initPods: number, maxInFlightBinds?: number): Promise<RunResult> {
  const dataDir = join(work, `n${nodes}-${run}`);
  const server = await startServer(dataDir);
  const pid = server.proc.pid!;
  const kubeconfig = join(dataDir, 'admin.conf');
  const api = new ApiClient(readAdminCredentials(kubeconfig), createConcurrency);
  const upstream = shape === 'upstream';
  const namespaces = upstream ? ['namespace-1', 'namespace-2'] : ['default'];
  try {
    log(`${nodes} nodes: creating nodes`);
    const nodeCreateSec = await create(api, '/api/v1/nodes', nodes, benchNode);
    log(`${nodes} nodes: created in ${nodeCreateSec.toFixed(1)} s`);
    let podCreateSec = 0;
    if (!upstream) {
      podCreateSec = await create(api, '/api/v1/namespaces/default/pods', pods, (i) => benchPod(i));
      log(`${nodes} nodes: ${pods} pods created in ${podCreateSec.toFixed(1)} s; scheduling`);
    } else {
      for (const ns of namespaces) await api.expect(201, 'POST', '/api/v1/namespaces', { body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }) });
    }
    const { clients, informers, scheduler } = startScheduler(kubeconfig, events, maxInFlightBinds);
    let syncSec = 0;
    if (upstream) {
      const t = performance.now();
      informers.start();
      scheduler.run();
      await Promise.all([informers.informer('nodes').waitForSync(), informers.informer('pods').waitForSync()]);
      syncSec = (performance.now() - t) / 1000;
      log(`${nodes} nodes: scheduler synced in ${syncSec.toFixed(1)} s; ${initPods} init pods (namespace-1)`);
      await create(api, '/api/v1/namespaces/namespace-1/pods', initPods, (i) => benchPod(i, 'pod', 'namespace-1'));
      await waitForBound(scheduler, initPods);
      log(`${nodes} nodes: init pods bound; ${pods} measured pods (namespace-2), created while the scheduler runs`);
    }
    const boundBefore = scheduler.stats.bound;
    const bindErrorsBefore = scheduler.stats.bindErrors;
    // The window's first binding, not the init pods' (the stats are the scheduler's since it started).
    scheduler.stats.firstBindAt = undefined;
    const loadBefore = loadavg()[0];
    // Peaks while scheduling: each process's VmHWM reset here and read at the end, no sampling timer (two 100 ms
    // timers in this process, one reading the server's /proc status, were counted in the scheduler's CPU).
    const serverSetupPeakKB = readMemory(pid).hwmKB;
    resetPeakRss(pid);
    resetPeakRss();
    const t0 = performance.now();
    // The scheduling window on the monotonic clock, for reading CPU profiles of this phase alone (bench/lib/cpuprofile.ts --from-us/--to-us).
    const windowFromUs = process.hrtime.bigint() / 1000n;
    const serverCpu0 = processCpuMs(pid);
    const serverMain0 = mainThreadCpuMs(pid);
    const serverSplit0 = processCpuSplitMs(pid);
    const serverSyscalls0 = processSyscalls(pid);
    const selfSyscalls0 = processSyscalls(process.pid);
    const selfCpu0 = process.cpuUsage();
    const selfMain0 = mainThreadCpuMs(process.pid);
    const gc = watchGc();
    const sampler = sampleThroughput(() => scheduler.stats.bound - boundBefore);
    let syncCpu = { user: 0, system: 0 };
    if (upstream) {
      const creating = createInChild(kubeconfig, 'namespace-2', pods);
      await waitForBound(scheduler, boundBefore + pods);
      podCreateSec = await creating;
    } else {
      informers.start();
      scheduler.run();
      await Promise.all([informers.informer('nodes').waitForSync(), informers.informer('pods').waitForSync()]);
      syncSec = (performance.now() - t0) / 1000;
      syncCpu = process.cpuUsage(selfCpu0);
      await waitForBound(scheduler, pods);
    }
    const samples = sampler.stop();
    const { firstBindAt = 0, lastBindAt = 0 } = scheduler.stats;
    const bound = scheduler.stats.bound - boundBefore;
    const bindErrors = scheduler.stats.bindErrors - bindErrorsBefore;
    const eventsDropped = scheduler.pending.eventsDropped;
    const serverCpuMs = processCpuMs(pid) - serverCpu0;
    const serverMainMs = mainThreadCpuMs(pid) - serverMain0;
    const selfCpu = process.cpuUsage(selfCpu0);
    const selfMainMs = mainThreadCpuMs(process.pid) - selfMain0;
    const serverSplit = processCpuSplitMs(pid);
    const serverSyscalls = processSyscalls(pid);
    const selfSyscalls = processSyscalls(process.pid);
    const perPod = (ms: number) => (ms / Math.max(1, bound)).toFixed(3);
    log(`${nodes} nodes: CPU ms/pod, user + system: server ${perPod(serverSplit.user - serverSplit0.user)} + ${perPod(serverSplit.system - serverSplit0.system)}, `
      + `scheduler ${perPod(selfCpu.user / 1000)} + ${perPod(selfCpu.system / 1000)}; main threads: server ${perPod(serverMainMs)}, scheduler ${perPod(selfMainMs)} `
      + '(the rest: V8\'s collector helpers, libuv\'s pool, workers)');
    log(`${nodes} nodes: server syscalls per pod in the window: ${perPod(serverSyscalls.writes - serverSyscalls0.writes)} writes, ${perPod(serverSyscalls.reads - serverSyscalls0.reads)} reads; `
      + `scheduler process ${perPod(selfSyscalls.writes - selfSyscalls0.writes)} writes, ${perPod(selfSyscalls.reads - selfSyscalls0.reads)} reads`);
    log(`${nodes} nodes: scheduler process GC in the window: ${gc.stop()}`);
    log(`${nodes} nodes: scheduling window --from-us ${windowFromUs} --to-us ${process.hrtime.bigint() / 1000n}`);
    const selfCpuMs = (selfCpu.user + selfCpu.system) / 1000;
    const wallSec = (lastBindAt - t0) / 1000;
    const bindSpanSec = (lastBindAt - firstBindAt) / 1000;
    const serverPeakSchedulingKB = readMemory(pid).hwmKB;
    const schedulerPeakKB = readMemory(process.pid).hwmKB;
    scheduler.stop();
    informers.stop();
    // Let the Scheduled events drain before checking placement.
    await new Promise((r) => setTimeout(r, 2000));
    const { codes: bindingCodes, meanMs: bindingMeanMs } = bindingAnswers((await api.expect(200, 'GET', '/metrics')).body.toString());
    log(`${nodes} nodes: pods/binding answers by code ${JSON.stringify(bindingCodes)}, mean latency ${bindingMeanMs.toFixed(1)} ms`);
    const perNode = new Map<string, number>();
    let unbound = 0;
    for (const ns of namespaces) {
      for (const p of (await clients.pods.list(ns)).items) {
        if (!p.spec.nodeName) { unbound++; continue; }
        perNode.set(p.spec.nodeName, (perNode.get(p.spec.nodeName) ?? 0) + 1);
      }
    }
    clients.close();
    const result: RunResult = {
      run, nodes, pods, nodeCreateSec, podCreateSec, syncSec, bindSpanSec, wallSec,
      throughput: bound > 1 ? (bound - 1) / bindSpanSec : 0, shape, initPods: upstream ? initPods : 0,
      samplesAverage: samples.length ? samples.reduce((a, b) => a + b, 0) / samples.length : 0, samples,
      serverPeakMB: Math.max(serverSetupPeakKB, readMemory(pid).hwmKB) / 1024, serverPeakSchedulingMB: serverPeakSchedulingKB / 1024, schedulerPeakMB: schedulerPeakKB / 1024,
      eventsDropped, bindingCodes, bindingMeanMs, loadBefore, loadAfter: loadavg()[0],
      bindErrors, serverCpuMsPerPod: serverCpuMs / Math.max(1, bound), serverMainCpuMsPerPod: serverMainMs / Math.max(1, bound), schedulerCpuMsPerPod: selfCpuMs / Math.max(1, bound),
      schedulerSyncCpuMsPerPod: (syncCpu.user + syncCpu.system) / 1000 / Math.max(1, bound), maxPodsOnANode: Math.max(0, ...perNode.values()), unbound,
    };
    log(`${nodes} nodes: ${bound} bound, SchedulingThroughput Average ${result.samplesAverage.toFixed(0)} (1-s samples ${samples.join(', ')}), ${result.throughput.toFixed(0)} pods/s over ${bindSpanSec.toFixed(1)} s (wall ${wallSec.toFixed(1)} s), `
      + `CPU/pod server ${result.serverCpuMsPerPod.toFixed(2)} ms (main thread ${result.serverMainCpuMsPerPod.toFixed(2)}), scheduler ${result.schedulerCpuMsPerPod.toFixed(2)} ms (informer sync ${result.schedulerSyncCpuMsPerPod.toFixed(2)}), `
      + `server peak ${result.serverPeakMB.toFixed(0)} MB, scheduler process peak ${result.schedulerPeakMB.toFixed(0)} MB, unbound ${unbound}, max/node ${result.maxPodsOnANode}`);
    return result;
  } finally {
    api.close();
    await server.stop();
  }
}

/**
 * The server's pods/binding answers by code and their mean latency, from its /metrics (apiserver_request_total and
 * apiserver_request_duration_seconds): a 429 there is a binding API Priority and Fairness turned away (the client
 * sends it again after Retry-After), and the latency includes the time a binding waited for a seat.
 */
function bindingAnswers(metrics: string): { codes: Record<string, number>; meanMs: number } {
  const codes: Record<string, number> = {};
  let sum = 0;
  let count = 0;
  for (const line of metrics.split('\n')) {
    if (!line.includes('resource="pods"') || !line.includes('subresource="binding"')) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.startsWith('apiserver_request_total{')) {
      const code = /code="(\d+)"/.exec(line)?.[1] ?? '?';
      codes[code] = (codes[code] ?? 0) + value;
    } else if (line.startsWith('apiserver_request_duration_seconds_sum{')) sum += value;
    else if (line.startsWith('apiserver_request_duration_seconds_count{')) count += value;
  }
  return { codes, meanMs: count ? (1000 * sum) / count : 0 };
}

/** Per node count: the median throughput and the runs, with the verdict. */
/** The row's pods/s against the anchor and target: upstream's SchedulingThroughput Average in its shape, the binding span's rate in the cold one. */
const headline = (r: RunResult) => (r.shape === 'upstream' ? r.samplesAverage : r.throughput);

function summary(results: RunResult[]): string {
  const counts = [...new Set(results.map((r) => r.nodes))];
  return counts.map((n) => {
    const tp = results.filter((r) => r.nodes === n).map(headline).sort((a, b) => a - b);
    const med = tp[Math.floor((tp.length - 1) / 2)];
    const runs = tp.map((t) => t.toFixed(0)).join(', ');
    const rows = results.filter((r) => r.nodes === n);
    const cpu = rows.reduce((a, r) => a + r.serverCpuMsPerPod + r.schedulerCpuMsPerPod, 0) / rows.length;
    return `${n.toLocaleString('en-US')} nodes **${med.toFixed(0)}** (runs ${runs}; ${(med / anchorPodsPerSec).toFixed(2)}× the ${anchorPodsPerSec} anchor, `
      + `${med >= targetPodsPerSec ? 'meets' : 'misses'} the ${targetPodsPerSec.toLocaleString('en-US')} target; `
      + `${cpu.toFixed(2)} ms of CPU per pod in both processes together, a ceiling of about ${(2000 / cpu).toFixed(0)} pods/s with both cores free)`;
  }).join('; ');
}

function report(results: RunResult[], command: string): string {
  const f0 = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
  const f1 = (n: number) => n.toFixed(1);
  const verdict = (r: RunResult) => `${(headline(r) / anchorPodsPerSec).toFixed(2)}× / ${headline(r) >= targetPodsPerSec ? 'meets' : 'misses'}`;
  const f2 = (n: number) => n.toFixed(2);
  const rows = results.map((r) => [
    f0(r.nodes), f0(r.pods), String(r.run), r.shape, `**${f0(r.samplesAverage)}** (${r.samples.length})`, f0(r.throughput), f1(r.bindSpanSec), f1(r.wallSec), f1(r.syncSec),
    `${f2(r.serverCpuMsPerPod)} (${f2(r.serverMainCpuMsPerPod)})`, `${f2(r.schedulerCpuMsPerPod)} (${f2(r.schedulerSyncCpuMsPerPod)})`, f0(r.serverPeakMB), f0(r.serverPeakSchedulingMB), f0(r.schedulerPeakMB),
    `${r.unbound} / ${r.bindErrors}`, `${f0(r.bindingCodes['429'] ?? 0)} / ${f1(r.bindingMeanMs)}`, `${f1(r.loadBefore)} → ${f1(r.loadAfter)}`, verdict(r),
  ]);
  return [
    '## Scheduler',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${machineLine()}`,
    `- Revision: ${revisionLine(repoRoot)}`,
    `- Command: \`${command}\``,
    '- Setup (scheduler_perf SchedulingBasic, misc/performance-config.yaml): a fresh `k8ts server --controllers none` per row (separate process, SQLite, HTTPS); N Nodes with 4 cpu / 32Gi / 110 pods, Ready; '
      + 'pods are pause with requests 100m / 500Mi; shape `upstream`: the scheduler binds the init pods (namespace-1), then the measured pods (namespace-2), which a child process creates while it runs '
      + `(${createConcurrency} concurrent creates), as upstream's 5000Nodes_10000Pods (1,000 init, 10,000 measured); shape \`cold\`: every pod created before a fresh scheduler starts. The Scheduler runs in the benchmark process as an ordinary HTTPS client `
      + '(qps unlimited, default profile, adaptive percentageOfNodesToScore: 42% of 1,000 nodes, 10% of 5,000; its informers a scope of the shared informers of k8ts\' control loops (controlLoopInformers): managedFields dropped, strings pooled, common pod subtrees shared). '
      + 'Events go through the scheduler\'s upstream-style sink (kube-scheduler\'s default client rate 50/s, burst 100, at most 1,000 queued, the rest dropped, as client-go\'s broadcaster does): '
      + `between ${f0(Math.min(...results.map((r) => r.eventsDropped)))} and ${f0(Math.max(...results.map((r) => r.eventsDropped)))} of the `
      + `${f0(results[0]?.pods ?? 0)} \`Scheduled\` events of a run were dropped.`,
    '- CPU ms/pod: CPU time (user + system) of each process over the window (upstream: from the measured pods\' first create to their last binding, so the server\'s includes their creates; cold: from Scheduler.run()), divided by the pods bound (in brackets: for the server, its main thread, which every request passes through; for the scheduler, its '
      + 'CPU until its informers had listed every node and pod, a cost per cluster object paid once); the two processes share the machine\'s 2 cores with whatever else runs on it, so throughput moves with the load average shown.',
    `- Throughput: SchedulingThroughput Average as scheduler_perf computes it (the mean of 1-second samples of measured pods scheduled; in brackets the samples), and pods bound per second from the first to the last successful binding. Anchor: upstream scheduler_perf CI minimum ${anchorPodsPerSec} pods/s `
      + `(5,000 nodes / 10,000 pods, in-process, no HTTP); target ${f0(targetPodsPerSec)} pods/s.`,
    '',
    table(['Nodes', 'Pods', 'Run', 'Shape', 'SchedulingThroughput Average (samples)', 'Pods/s, first to last binding', 'Bind span (s)', 'Wall from the window\'s start (s)', 'Informer sync (s)', 'Server CPU ms/pod (of it, main thread)', 'Scheduler CPU ms/pod (of it, informer sync)',
      'Server peak RSS, VmHWM (MB)', 'Server peak RSS while scheduling (MB)', 'Scheduler process peak RSS (MB)', 'Unbound / bind errors',
      'Binding 429s / mean binding latency at the server (ms)', 'Load avg (1 min) before → after', 'vs anchor / target'], rows),
    '',
    `Median pods/s over the runs (SchedulingThroughput Average in the upstream shape): ${summary(results)}.`,
    '',
    `Setup cost (not part of the throughput): ${results.map((r) => `${f0(r.nodes)} nodes created in ${f1(r.nodeCreateSec)} s and ${f0(r.pods)} pods in ${f1(r.podCreateSec)} s`).join('; ')} `
      + `(${createConcurrency} concurrent creates). Most pods on one node: ${results.map((r) => `${r.maxPodsOnANode} (${f0(r.nodes)} nodes)`).join(', ')}.`,
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = benchArgs('Scheduler pods/s after scheduler_perf SchedulingBasic (N nodes, 10,000 pods).', {
    options: {
      nodes: { type: 'string', default: '1000,5000' },
      pods: { type: 'string', default: '10000' },
      'no-write': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      /** Diagnostics: drop the Scheduled/FailedScheduling events (not upstream behaviour). */
      'no-events': { type: 'boolean', default: false },
      /** Runs per node count (each on a fresh server): the machine is shared, so one run is one sample. */
      runs: { type: 'string', default: '3' },
      'max-in-flight': { type: 'string', help: 'bindings in flight at most (SchedulerOptions.maxInFlightBinds; default: the scheduler\'s own)' },
      shape: { type: 'string', default: 'upstream', help: 'upstream: scheduler_perf SchedulingBasic (init pods bound by the same scheduler, then the measured pods created while it runs); cold: every pod created before a fresh scheduler starts' },
      'init-pods': { type: 'string', default: '1000', help: 'upstream shape: the init pods (scheduler_perf\'s initPods for 5000Nodes_10000Pods)' },
      baseline: { type: 'string', help: 'another built checkout, run in turn with this one (--runs rounds, each flag but --runs passed to both); prints the pairs, writes nothing' },
    },
  });
  if (values.baseline) return interleaved(values.baseline, values);
  const nodeCounts = values.nodes!.split(',').map((s) => Number(s.trim())).filter((n) => n > 0);
  const pods = Number(values.pods);
  const shape = values.shape as Shape;
  if (shape !== 'upstream' && shape !== 'cold') throw new Error(`--shape: upstream or cold, not ${shape}`);
  const maxInFlightBinds = values['max-in-flight'] === undefined ? undefined : Number(values['max-in-flight']);
  const work = mkdtempSync(join(tmpdir(), 'k8ts-bench-scheduler-'));
  log(`data under ${work}`);
  const command = `node ${relative(repoRoot, process.argv[1])} ${process.argv.slice(2).join(' ')}`.trim();
  try {
    const results: RunResult[] = [];
    for (const n of nodeCounts) {
      for (let run = 1; run <= Number(values.runs); run++) results.push(await runOnce(work, n, pods, !values['no-events'], run, shape, Number(values['init-pods']), maxInFlightBinds));
    }
    const md = report(results, command);
    console.log(`\n${md}`);
    if (!values['no-write']) {
      writeSection(resultsFile, 'scheduler', md);
      log(`wrote ${relative(process.cwd(), resultsFile)}`);
    }
  } finally {
    if (!values.keep) rmSync(work, { recursive: true, force: true });
  }
}

/** --baseline: this build and `baseline` in turn, one child run of each per round and node count (bench/lib/scheduler-ab.ts). */
async function interleaved(baseline: string, values: Record<string, string | boolean | undefined>): Promise<void> {
  const builds: Build[] = [{ label: 'this', root: repoRoot }, { label: 'baseline', root: baseline }];
  const rounds = Math.max(1, Math.min(20, Number(values.runs)));
  const passed = ['pods', 'shape', 'init-pods', 'max-in-flight'].flatMap((k) => (values[k] === undefined ? [] : [`--${k}`, String(values[k])]));
  if (values['no-events']) passed.push('--no-events');
  for (const n of String(values.nodes).split(',').map((s) => Number(s.trim())).filter((x) => x > 0)) {
    const rows = await runSchedulerInterleaved(builds, rounds, ['--nodes', String(n), '--runs', '1', '--no-write', ...passed], log);
    console.log(`\n${n} nodes, ${rounds} rounds, builds interleaved (this = ${repoRoot}, baseline = ${baseline}):\n\n${renderSchedulerInterleaved(rows, builds)}`);
  }
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
