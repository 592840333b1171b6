/**
 * Scheduler benchmark, after upstream's scheduler_perf SchedulingBasic
 * (5,000 nodes, 10,000 pods; CI minimum 680 pods/s; k8ts target 3,400, issue #20):
 * for each node count, a fresh `k8ts server --controllers none` (a child
 * process) gets N Nodes (4 cpu, 32Gi, 110 pods, Ready; created concurrently)
 * and 10,000 pending pods (pause, requests 100m / 500Mi, as
 * scheduler_perf's pod-default), then the Scheduler starts in this process,
 * against the server over HTTPS like any client, and binds them all.
 *
 * Measured: throughput from the first to the last successful binding, the
 * wall time from Scheduler.run() (informer list of nodes and pods included)
 * to the last binding, the server's peak RSS (VmHWM) and this process's.
 * Results go to bench/RESULTS.md, section "scheduler" (other sections are
 * left alone).
 *
 *   node dist/bench/scheduler.js [--nodes 1000,5000] [--pods 10000] [--runs 3] [--no-write] [--keep] [--no-events] [--max-in-flight N]
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

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const anchorPodsPerSec = 680;
const targetPodsPerSec = 3400;
const createConcurrency = 64;

const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);

interface RunResult {
  run: number;
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

/** scheduler_perf's node-default, with a Ready condition. */
function benchNode(i: number): string {
  const resources = { cpu: '4', memory: '32Gi', pods: '110' };
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Node',
    metadata: { name: `node-${String(i).padStart(5, '0')}`, labels: { 'kubernetes.io/hostname': `node-${i}`, 'kubernetes.io/os': 'linux' } },
    status: { capacity: resources, allocatable: resources, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: now, lastTransitionTime: now }] },
  });
}

/** scheduler_perf's pod-default. */
function benchPod(i: number, prefix = 'pod'): string {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: `${prefix}-${String(i).padStart(6, '0')}`, namespace: 'default' },
    spec: { containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10', ports: [{ containerPort: 80 }],
      resources: { requests: { cpu: '100m', memory: '500Mi' }, limits: { cpu: '100m', memory: '500Mi' } } }] },
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

/**
 * --warmup-pods: a first Scheduler, in this process and with informers of its own, binds `count`
 * pods (warm-NNNNNN) and is stopped before the measured one starts, so the measured window runs
 * code V8 has already optimized, in this process and on the server's binding path. Without it
 * (the default) both processes compile while they schedule: TurboFan's background threads are
 * part of each one's CPU per pod (bench/RESULTS.md, sched9's section).
 */
async function warmUp(api: ApiClient, kubeconfig: string, count: number, events: boolean): Promise<void> {
  await create(api, '/api/v1/namespaces/default/pods', count, (i) => benchPod(i, 'warm'));
  const clients = new Clientset(loadKubeconfig(kubeconfig), { qps: 0, userAgent: 'k8ts-scheduler-warmup' });
  const logger = createLogger('bench', 'warn');
  const informers = controlLoopInformers(clients, logger).scope();
  const recorder = events ? new EventRecorder(clients, 'default-scheduler', logger) : ({ event() {} } as unknown as EventRecorder);
  const scheduler = new Scheduler({ clients, informers, recorder, logger, clock: realClock });
  informers.start();
  scheduler.run();
  const deadline = Date.now() + 10 * 60_000;
  while (scheduler.stats.bound < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  scheduler.stop();
  informers.stop();
  clients.close();
  if (scheduler.stats.bound < count) throw new Error(`warm-up bound ${scheduler.stats.bound} of ${count} pods`);
}

async function runOnce(work: string, nodes: number, pods: number, events: boolean, run: number, maxInFlightBinds?: number, warmupPods = 0): Promise<RunResult> {
  const dataDir = join(work, `n${nodes}-${run}`);
  const server = await startServer(dataDir);
  const pid = server.proc.pid!;
  const kubeconfig = join(dataDir, 'admin.conf');
  const api = new ApiClient(readAdminCredentials(kubeconfig), createConcurrency);
  try {
    log(`${nodes} nodes: creating nodes`);
    const nodeCreateSec = await create(api, '/api/v1/nodes', nodes, benchNode);
    log(`${nodes} nodes: created in ${nodeCreateSec.toFixed(1)} s; creating ${pods} pods`);
    if (warmupPods > 0) {
      log(`${nodes} nodes: warm-up: a first scheduler binds ${warmupPods} pods`);
      await warmUp(api, kubeconfig, warmupPods, events);
    }
    const podCreateSec = await create(api, '/api/v1/namespaces/default/pods', pods, benchPod);
    log(`${nodes} nodes: ${pods} pods created in ${podCreateSec.toFixed(1)} s; scheduling`);

    const loadBefore = loadavg()[0];
    const clients = new Clientset(loadKubeconfig(kubeconfig), { qps: 0, userAgent: 'k8ts-scheduler' });
    const logger = createLogger('bench', 'warn');
    // Wired as k8ts runs the scheduler: a scope of the control loops' shared informers (cli/control-loops.ts), which
    // drop managedFields (their watch events parsed without them), pool strings and share pods' common subtrees.
    // Called, not copied: a copy here had kept string pooling alone after the product moved on to shared subtrees.
    const informers = controlLoopInformers(clients, logger).scope();
    const recorder = events ? new EventRecorder(clients, 'default-scheduler', logger) : ({ event() {} } as unknown as EventRecorder);
    const scheduler = new Scheduler({ clients, informers, recorder, logger, clock: realClock }, { maxInFlightBinds });
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
    const selfCpu0 = process.cpuUsage();
    const selfMain0 = mainThreadCpuMs(process.pid);
    const gc = watchGc();
    informers.start();
    scheduler.run();
    await Promise.all([informers.informer('nodes').waitForSync(), informers.informer('pods').waitForSync()]);
    const syncSec = (performance.now() - t0) / 1000;
    const syncCpu = process.cpuUsage(selfCpu0);
    const deadline = Date.now() + 30 * 60_000;
    let lastReport = Date.now();
    while (scheduler.stats.bound < pods && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      if (Date.now() - lastReport > 5000) {
        lastReport = Date.now();
        log(`  bound ${scheduler.stats.bound}/${pods}, pending ${JSON.stringify(scheduler.pending)}`);
      }
    }
    const { firstBindAt = 0, lastBindAt = 0, bindErrors, bound } = scheduler.stats;
    const eventsDropped = scheduler.pending.eventsDropped;
    const serverCpuMs = processCpuMs(pid) - serverCpu0;
    const serverMainMs = mainThreadCpuMs(pid) - serverMain0;
    const selfCpu = process.cpuUsage(selfCpu0);
    const selfMainMs = mainThreadCpuMs(process.pid) - selfMain0;
    const serverSplit = processCpuSplitMs(pid);
    const perPod = (ms: number) => (ms / Math.max(1, bound)).toFixed(3);
    log(`${nodes} nodes: CPU ms/pod, user + system: server ${perPod(serverSplit.user - serverSplit0.user)} + ${perPod(serverSplit.system - serverSplit0.system)}, `
      + `scheduler ${perPod(selfCpu.user / 1000)} + ${perPod(selfCpu.system / 1000)}; main threads: server ${perPod(serverMainMs)}, scheduler ${perPod(selfMainMs)} `
      + '(the rest: V8\'s collector helpers, libuv\'s pool, workers)');
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
    const list = await clients.pods.list('default');
    const perNode = new Map<string, number>();
    let unbound = 0;
    for (const p of list.items) {
      if (!p.spec.nodeName) { unbound++; continue; }
      perNode.set(p.spec.nodeName, (perNode.get(p.spec.nodeName) ?? 0) + 1);
    }
    clients.close();
    const result: RunResult = {
      run, nodes, pods, nodeCreateSec, podCreateSec, syncSec, bindSpanSec, wallSec,
      throughput: bound > 1 ? (bound - 1) / bindSpanSec : 0,
      serverPeakMB: Math.max(serverSetupPeakKB, readMemory(pid).hwmKB) / 1024, serverPeakSchedulingMB: serverPeakSchedulingKB / 1024, schedulerPeakMB: schedulerPeakKB / 1024,
      eventsDropped, bindingCodes, bindingMeanMs, loadBefore, loadAfter: loadavg()[0],
      bindErrors, serverCpuMsPerPod: serverCpuMs / Math.max(1, bound), serverMainCpuMsPerPod: serverMainMs / Math.max(1, bound), schedulerCpuMsPerPod: selfCpuMs / Math.max(1, bound),
      schedulerSyncCpuMsPerPod: (syncCpu.user + syncCpu.system) / 1000 / Math.max(1, bound), maxPodsOnANode: Math.max(0, ...perNode.values()), unbound,
    };
    log(`${nodes} nodes: ${bound} bound, ${result.throughput.toFixed(0)} pods/s over ${bindSpanSec.toFixed(1)} s (wall ${wallSec.toFixed(1)} s), `
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
function summary(results: RunResult[]): string {
  const counts = [...new Set(results.map((r) => r.nodes))];
  return counts.map((n) => {
    const tp = results.filter((r) => r.nodes === n).map((r) => r.throughput).sort((a, b) => a - b);
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
  const verdict = (r: RunResult) => `${(r.throughput / anchorPodsPerSec).toFixed(2)}× / ${r.throughput >= targetPodsPerSec ? 'meets' : 'misses'}`;
  const f2 = (n: number) => n.toFixed(2);
  const rows = results.map((r) => [
    f0(r.nodes), f0(r.pods), String(r.run), `**${f0(r.throughput)}**`, f1(r.bindSpanSec), f1(r.wallSec), f1(r.syncSec),
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
    '- Setup (scheduler_perf SchedulingBasic shape): a fresh `k8ts server --controllers none` per row (separate process, SQLite, HTTPS); N Nodes with 4 cpu / 32Gi / 110 pods, Ready; '
      + '10,000 pending pods (pause, requests 100m / 500Mi) created before the scheduler starts; the Scheduler runs in the benchmark process as an ordinary HTTPS client '
      + '(qps unlimited, default profile, adaptive percentageOfNodesToScore: 42% of 1,000 nodes, 10% of 5,000; its informers a scope of the shared informers of k8ts\' control loops (controlLoopInformers): managedFields dropped, strings pooled, common pod subtrees shared). '
      + 'Events go through the scheduler\'s upstream-style sink (kube-scheduler\'s default client rate 50/s, burst 100, at most 1,000 queued, the rest dropped, as client-go\'s broadcaster does): '
      + `between ${f0(Math.min(...results.map((r) => r.eventsDropped)))} and ${f0(Math.max(...results.map((r) => r.eventsDropped)))} of the `
      + `${f0(results[0]?.pods ?? 0)} \`Scheduled\` events of a run were dropped.`,
    '- CPU ms/pod: CPU time (user + system) of each process from Scheduler.run() to the last binding, divided by the pods bound (in brackets: for the server, its main thread, which every request passes through; for the scheduler, its '
      + 'CPU until its informers had listed every node and pod, a cost per cluster object paid once); the two processes share the machine\'s 2 cores with whatever else runs on it, so throughput moves with the load average shown.',
    `- Throughput: pods bound per second from the first to the last successful binding. Anchor: upstream scheduler_perf CI minimum ${anchorPodsPerSec} pods/s `
      + `(5,000 nodes / 10,000 pods, in-process, no HTTP); target ${f0(targetPodsPerSec)} pods/s.`,
    '',
    table(['Nodes', 'Pods', 'Run', 'Pods/s', 'Bind span (s)', 'Wall from run() (s)', 'Informer sync (s)', 'Server CPU ms/pod (of it, main thread)', 'Scheduler CPU ms/pod (of it, informer sync)',
      'Server peak RSS, VmHWM (MB)', 'Server peak RSS while scheduling (MB)', 'Scheduler process peak RSS (MB)', 'Unbound / bind errors',
      'Binding 429s / mean binding latency at the server (ms)', 'Load avg (1 min) before → after', 'vs anchor / target'], rows),
    '',
    `Median pods/s over the runs: ${summary(results)}.`,
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
      'warmup-pods': { type: 'string', default: '0', help: 'pods a first scheduler binds, unmeasured, before the measured one starts (0: none, a cold start)' },
    },
  });
  const nodeCounts = values.nodes!.split(',').map((s) => Number(s.trim())).filter((n) => n > 0);
  const pods = Number(values.pods);
  const maxInFlightBinds = values['max-in-flight'] === undefined ? undefined : Number(values['max-in-flight']);
  const work = mkdtempSync(join(tmpdir(), 'k8ts-bench-scheduler-'));
  log(`data under ${work}`);
  const command = `node ${relative(repoRoot, process.argv[1])} ${process.argv.slice(2).join(' ')}`.trim();
  try {
    const results: RunResult[] = [];
    for (const n of nodeCounts) {
      for (let run = 1; run <= Number(values.runs); run++) results.push(await runOnce(work, n, pods, !values['no-events'], run, maxInFlightBinds, Number(values['warmup-pods'])));
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

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
