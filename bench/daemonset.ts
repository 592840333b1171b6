/**
 * DaemonSet benchmark: the time from creating a DaemonSet to all its pods
 * Ready on N simulated nodes (issue #20's target: under 10 s at 5,000 nodes), with the
 * server's peak RSS.
 *
 * For each N: a fresh `k8ts server --controllers all` (a child process: the
 * DaemonSet controller, the scheduler and the other controllers run in it, on
 * their worker thread beside the serving thread, as `k8ts server` runs them
 * for a user's cluster; `k8ts up`, the quick start of three simulated nodes,
 * runs them on the serving thread instead, which this does not measure),
 * a fresh data dir, and a NodeSimulator in this process registering N nodes
 * (timed separately); once a node list shows N Ready nodes, a small
 * DaemonSet (the seed's http-go, with its control-plane toleration) is
 * created and its status is polled every 250 ms until desiredNumberScheduled
 * and numberReady are both N, or the cutoff (5 min) passes, in which case the
 * progress at the cutoff is reported. The times reported are the earlier of the
 * poll's and a watch's (of the DaemonSet, opened before the create), which sees
 * the status write that showed N as it is made, not up to 250 ms later; both
 * are logged.
 *
 * Each run also logs where the rollout's core-seconds went, thread by thread
 * (bench/lib/thread-split.ts: the server's serving thread, its control loops'
 * thread, V8's platform threads, the heavy lane and the rest; this process's
 * threads; the machine's idle time), with each group's run-queue wait, and the
 * Events the server stored during the rollout by component and reason (the
 * scheduler's Scheduled, the DaemonSet controller's SuccessfulCreate, ...).
 *
 * Results go to bench/RESULTS.md, section "daemonset" (other sections are
 * left alone).
 *
 *   node dist/bench/daemonset.js [--nodes 1000,5000] [--runs 1] [--cutoff-s 300] [--renew-ms 20000] [--no-write] [--keep] [--timeline] [--baseline DIR]
 *   (--baseline DIR: another built checkout; --runs rounds, each running this build's and DIR's own benchmark
 *   once per node count in child processes, the order alternating, and a table of both: bench/lib/daemonset-ab.ts)
 *   (--timeline: per 100 ms of the rollout, pods created / bound / Ready, the server's writes and 429s,
 *   and the CPU of the serving thread, the control loops' thread and this process: bench/lib/timeline.ts)
 *   (K8TS_BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" passes node flags to the server process)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, readMemory, readCpuMs, readThreadCpuMs } from './lib/server.js';
import { countOf, countsSince, describeCounts, requestCounts, writeCounts, type RequestCounts } from './lib/request-counts.js';
import { machineLine, revisionLine, table, writeSection } from './lib/results.js';
import { median, msSince } from './lib/stats.js';
import { Timeline, busiestOtherThread, renderTimeline, threadCpu } from './lib/timeline.js';
import { describeGroups, machineCpu, snapshotThreads, splitThreads } from './lib/thread-split.js';
import { Clientset, loadKubeconfig } from '../src/client/index.js';
import { NodeSimulator } from '../src/kubelet/index.js';
import { silentLogger } from '../src/util/log.js';
import type { Event as CoreEvent } from 'kubernetes-types/core/v1.js';
import type { DaemonSet, DaemonSetStatus } from 'kubernetes-types/apps/v1.js';
import { benchArgs } from './lib/args.js';
import { renderInterleaved, runInterleaved, type Build } from './lib/daemonset-ab.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const targetSec = 10;
const targetNodes = 5000;
const pollMs = 250;
const nodesReadyTimeoutMs = 5 * 60_000;

const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A watch of the benchmark's DaemonSet, open before its create: the times from `c0` at which its
 * status first showed desiredNumberScheduled == N, and both that and numberReady == N.
 */
async function watchRollout(clients: Clientset, nodes: number, c0: bigint) {
  const seen = { desiredSec: NaN, readySec: NaN, close: () => {} };
  const handle = await clients.daemonsets.watch('default', { fieldSelector: 'metadata.name=http-go' }, (e) => {
    const st: DaemonSetStatus | undefined = e.type === 'ADDED' || e.type === 'MODIFIED' ? (e.object as DaemonSet).status : undefined;
    if (st?.desiredNumberScheduled !== nodes) return;
    const elapsed = msSince(c0) / 1000;
    if (Number.isNaN(seen.desiredSec)) seen.desiredSec = elapsed;
    if (st.numberReady === nodes && Number.isNaN(seen.readySec)) seen.readySec = elapsed;
  });
  seen.close = () => handle.close();
  return seen;
}

interface RunResult {
  nodes: number;
  run: number;
  /** sim.start(): N nodes registered (Node created, first Lease). */
  registerSec: number;
  /** From sim.start() to a node list showing N Ready nodes. */
  nodesReadySec: number;
  /** DaemonSet create to desiredNumberScheduled == N. */
  desiredSec: number;
  /** DaemonSet create to numberReady == N (NaN when the cutoff passed). */
  readySec: number;
  finished: boolean;
  /** Status at the end (or the cutoff). */
  desired: number;
  scheduled: number;
  ready: number;
  serverPeakMB: number;
  serverCpuSec: number;
  /** The server's main thread (the serving loop) alone, same window. */
  serverMainCpuSec: number;
  /** Steady state before the create, one renew interval: server CPU per mutating request (nearly all Lease PUTs). */
  steadyWrites: number;
  steadyLeasePuts: number;
  steadyCpuMsPerWrite: number;
  steadyMainCpuMsPerWrite: number;
  /** This process (the simulated nodes) in the same interval: CPU per Lease renewal (its only steady work). */
  steadyBenchCpuMsPerRenewal: number;
  steadyCounts: string;
  /** Create to end: the writes, and server CPU per pod with the Lease renewals of the window taken out at the steady-state cost. */
  rolloutCounts: string;
  rolloutWritesPerPod: number;
  /** Create to end, every verb (reads too), without Leases and the benchmark's own requests: per pod scheduled, by verb and resource. */
  rolloutRequestsPerPod: number;
  perPod: string;
  cpuMsPerPod: number;
  mainCpuMsPerPod: number;
  /** This process's CPU (the simulated kubelets, plus the benchmark's polls) from create to end, net of Lease renewals at the steady cost, per pod. */
  benchCpuMsPerPod: number;
  benchCpuSec: number;
  benchPeakMB: number;
  loadBefore: number;
  loadAfter: number;
  /** Create to end, by thread group (bench/lib/thread-split.ts): the server's, this process's, and the machine's idle core-seconds. */
  serverThreads: string;
  benchThreads: string;
  machineBusySec: number;
  machineIdleSec: number;
}

function httpGo(): object {
  return {
    apiVersion: 'apps/v1', kind: 'DaemonSet',
    metadata: { name: 'http-go', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'http-go' } },
      template: {
        metadata: { labels: { app: 'http-go' } },
        spec: {
          tolerations: [
            { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
            { key: 'node-role.kubernetes.io/master', operator: 'Exists', effect: 'NoSchedule' },
          ],
          containers: [{ name: 'http-go', image: 'gasbugs/http-go' }],
        },
      },
    },
  };
}

/**
 * The rollout's requests per daemon pod, every verb: the Lease renewals (background heartbeats),
 * the benchmark's own polls (GET daemonsets) and its /metrics reads (no resource) left out.
 */
function requestsPerDaemonPod(all: RequestCounts, pods: number): { total: number; perPod: string } {
  const mine = (k: string) => k.endsWith(' leases') || k === 'GET daemonsets' || k === 'GET ';
  const kept = new Map([...all].filter(([k]) => !mine(k)));
  const perPod = [...kept].sort((x, y) => y[1] - x[1]).map(([k, v]) => `${k} ${(v / pods).toFixed(v / pods >= 0.1 ? 2 : 3)}`).join(', ');
  return { total: countOf(kept, () => true) / pods, perPod };
}

/** Counts keyed "VERB resource CODE" summed over codes, keyed "VERB resource" (requestCounts' default). */
function sumOverCodes(byCode: RequestCounts): RequestCounts {
  const out: RequestCounts = new Map();
  for (const [k, v] of byCode) { const key = k.slice(0, k.lastIndexOf(' ')); out.set(key, (out.get(key) ?? 0) + v); }
  return out;
}

/** The entries of a by-code count whose code is not 2xx: a conflict's 409, APF's 429, ... */
const notSuccess = (byCode: RequestCounts): RequestCounts => new Map([...byCode].filter(([k]) => !/ 2\d\d$/.test(k)));

/**
 * The Events the server stored from the create to the end (creationTimestamp, whole seconds, from the
 * create's second on), counted by source component and reason: which of the rollout's POST events are
 * the scheduler's Scheduled, the DaemonSet controller's SuccessfulCreate, the node lifecycle
 * controller's RegisteredNode still draining from the nodes' registration, ... (one list after the
 * rollout, outside the CPU window).
 */
async function eventsWrittenSince(clients: Clientset, sinceMs: number): Promise<string> {
  const since = Math.floor(sinceMs / 1000) * 1000;
  const counts = new Map<string, number>();
  for (const e of (await clients.events.list()).items as CoreEvent[]) {
    if (Date.parse(e.metadata.creationTimestamp ?? '') < since) continue;
    const key = `${e.source?.component ?? e.reportingComponent ?? '?'} ${e.reason ?? '?'}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
}

/** User + system CPU of this process, ms. */
const selfCpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

const isReady = (n: any) => (n.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');

async function runOnce(work: string, nodes: number, run: number, cutoffMs: number, renewMs: number, withTimeline = false): Promise<RunResult> {
  const dataDir = join(work, `n${nodes}-${run}`);
  const server = await startServer({ cliPath, dataDir, serverArgs: ['--controllers', 'all'], nodeArgs: process.env.K8TS_BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) });
  const pid = server.pid;
  const kubeconfig = join(dataDir, 'admin.conf');
  const simClients = new Clientset(loadKubeconfig(kubeconfig), { qps: 0, userAgent: 'k8ts-node-simulator' });
  const clients = new Clientset(loadKubeconfig(kubeconfig), { qps: 0, userAgent: 'k8ts-bench' });
  const sim = new NodeSimulator(simClients, { count: nodes, namePrefix: 'node-', renewIntervalMs: renewMs, events: false, lightWrites: true, logger: silentLogger });
  // This run's peak RSS is the kernel's VmHWM read at the end, reset here (clear_refs 5, Linux 4.0+) so an
  // earlier run in this process does not count; no sampling timer (process.memoryUsage.rss() every
  // 100 ms cost this process about 1% of a core in a profile of a rollout at load 15).
  resetPeakRss();
  try {
    const loadBefore = loadavg()[0];
    log(`${nodes} nodes: server ready in ${server.readyMs.toFixed(0)} ms; registering nodes`);
    const t0 = process.hrtime.bigint();
    await sim.start();
    const registerSec = msSince(t0) / 1000;
    log(`${nodes} nodes: registered in ${registerSec.toFixed(1)} s; waiting for ${nodes} Ready`);
    let readyNodes = 0;
    const readyDeadline = Date.now() + nodesReadyTimeoutMs;
    while (Date.now() < readyDeadline) {
      readyNodes = (await clients.nodes.list()).items.filter(isReady).length;
      if (readyNodes >= nodes) break;
      await sleep(500);
    }
    if (readyNodes < nodes) throw new Error(`${nodes} nodes: only ${readyNodes} Ready after ${nodesReadyTimeoutMs / 1000} s`);
    const nodesReadySec = msSince(t0) / 1000;
    log(`${nodes} nodes: all Ready at ${nodesReadySec.toFixed(1)} s; measuring one renew interval of heartbeats`);

    // Steady state: one whole renew interval, so every node renews its Lease once.
    const s0 = { cpu: readCpuMs(pid), main: readThreadCpuMs(pid), self: selfCpuMs(), counts: await writeCounts(clients), threads: threadCpu(pid) };
    await sleep(renewMs);
    const steady = countsSince(s0.counts, await writeCounts(clients));
    const steadyWrites = countOf(steady, () => true);
    const steadyLeasePuts = countOf(steady, (k) => k === 'PUT leases');
    const steadyCpuMsPerWrite = (readCpuMs(pid) - s0.cpu) / Math.max(1, steadyWrites);
    const steadyMainCpuMsPerWrite = (readThreadCpuMs(pid) - s0.main) / Math.max(1, steadyWrites);
    const steadyBenchCpuMsPerRenewal = (selfCpuMs() - s0.self) / Math.max(1, steadyLeasePuts);
    log(`${nodes} nodes: steady state ${describeCounts(steady)}; server CPU ${steadyCpuMsPerWrite.toFixed(2)} ms per write (main thread ${steadyMainCpuMsPerWrite.toFixed(2)}); creating the DaemonSet`);

    // The control loops' thread is the busiest other than the serving one in the steady state (it decodes every Lease event).
    const loopsTid = withTimeline ? busiestOtherThread(pid, s0.threads) : undefined;
    const timeline = loopsTid === undefined ? undefined : new Timeline({ clients, pid, loopsTid, namespace: 'default', labelSelector: 'app=http-go' });
    const counts0 = await writeCounts(clients);
    const all0 = await requestCounts(clients, { byCode: true });
    const main0 = readThreadCpuMs(pid);
    const cpu0 = readCpuMs(pid);
    const self0 = selfCpuMs();
    const threads0 = { server: snapshotThreads(pid), bench: snapshotThreads(process.pid), machine: machineCpu() };
    const c0 = process.hrtime.bigint();
    const createdAtMs = Date.now();
    // The monotonic clock in µs, for bench/lib/cpuprofile.js --from-us/--to-us on a --cpu-prof of the server.
    log(`${nodes} nodes: DaemonSet create at monotonic ${c0 / 1000n} µs`);
    await timeline?.start(c0);
    const seen = await watchRollout(clients, nodes, c0);
    await clients.daemonsets.create('default', httpGo());
    let desiredSec = NaN;
    let readySec = NaN;
    let st: any = {};
    let lastLog = Date.now();
    const deadline = Date.now() + cutoffMs;
    while (Date.now() < deadline) {
      st = (await clients.daemonsets.get('default', 'http-go')).status ?? {};
      const elapsed = msSince(c0) / 1000;
      if (Number.isNaN(desiredSec) && st.desiredNumberScheduled === nodes) desiredSec = elapsed;
      if (st.desiredNumberScheduled === nodes && st.numberReady === nodes) { readySec = elapsed; break; }
      if (Date.now() - lastLog > 5000) {
        lastLog = Date.now();
        log(`  ${elapsed.toFixed(1)} s: desired ${st.desiredNumberScheduled ?? 0}, scheduled ${st.currentNumberScheduled ?? 0}, ready ${st.numberReady ?? 0}`);
      }
      await sleep(pollMs);
    }
    seen.close();
    // The watch sees the status the controller wrote as it is written; a GET every 250 ms sees it
    // up to 250 ms later. The earlier sighting is the result (`kubectl rollout status` watches too);
    // the polls still end the window, so the CPU figures cover what they covered before.
    if (!Number.isNaN(readySec)) log(`${nodes} nodes: Ready by the watch at ${seen.readySec.toFixed(2)} s (desired ${seen.desiredSec.toFixed(2)} s); by the ${pollMs} ms poll ${readySec.toFixed(2)} s (desired ${desiredSec.toFixed(2)} s)`);
    // A watch event can lag a GET on a loaded server: the earlier sighting of the same write counts.
    if (!Number.isNaN(seen.readySec)) readySec = Math.min(readySec, seen.readySec);
    if (!Number.isNaN(seen.desiredSec)) desiredSec = Number.isNaN(desiredSec) ? seen.desiredSec : Math.min(desiredSec, seen.desiredSec);
    log(`${nodes} nodes: rollout window ends at monotonic ${process.hrtime.bigint() / 1000n} µs`);
    const threads1 = { server: snapshotThreads(pid), bench: snapshotThreads(process.pid), machine: machineCpu() };
    if (timeline) {
      log(`${nodes} nodes: timeline (control loops' thread: tid ${loopsTid}), per 100 ms from the create:\n${renderTimeline(await timeline.stop())}`);
      log(`${nodes} nodes: answered 429 in the rollout: ${timeline.tooManyByRequest()}`);
    }
    const serverCpuSec = (readCpuMs(pid) - cpu0) / 1000;
    const benchCpuSec = (selfCpuMs() - self0) / 1000;
    const serverMainCpuSec = (readThreadCpuMs(pid) - main0) / 1000;
    const rollout = countsSince(counts0, await writeCounts(clients));
    const rolloutByCode = countsSince(all0, await requestCounts(clients, { byCode: true }));
    const rolloutAll = sumOverCodes(rolloutByCode);
    // The heartbeats go on during the rollout: take them out at the steady state's cost per write.
    const leaseWrites = countOf(rollout, (k) => k.endsWith(' leases'));
    const podsDone = Math.max(1, st.currentNumberScheduled ?? 0);
    const { total: requestsPerPod, perPod } = requestsPerDaemonPod(rolloutAll, podsDone);
    const cpuMsPerPod = (serverCpuSec * 1000 - leaseWrites * steadyCpuMsPerWrite) / podsDone;
    const mainCpuMsPerPod = (serverMainCpuSec * 1000 - leaseWrites * steadyMainCpuMsPerWrite) / podsDone;
    const benchCpuMsPerPod = (benchCpuSec * 1000 - leaseWrites * steadyBenchCpuMsPerRenewal) / podsDone;
    const finished = !Number.isNaN(readySec);
    const result: RunResult = {
      nodes, run, registerSec, nodesReadySec, desiredSec, readySec, finished,
      desired: st.desiredNumberScheduled ?? 0, scheduled: st.currentNumberScheduled ?? 0, ready: st.numberReady ?? 0,
      serverPeakMB: readMemory(pid).hwmKB / 1024, serverCpuSec, serverMainCpuSec,
      steadyWrites, steadyLeasePuts, steadyCpuMsPerWrite, steadyMainCpuMsPerWrite, steadyBenchCpuMsPerRenewal, steadyCounts: describeCounts(steady),
      rolloutCounts: describeCounts(rollout), rolloutWritesPerPod: (countOf(rollout, () => true) - leaseWrites) / podsDone, rolloutRequestsPerPod: requestsPerPod, perPod, cpuMsPerPod, mainCpuMsPerPod, benchCpuMsPerPod, benchCpuSec,
      benchPeakMB: readMemory(process.pid).hwmKB / 1024,
      loadBefore, loadAfter: loadavg()[0],
      serverThreads: describeGroups(splitThreads(threads0.server, threads1.server)),
      benchThreads: describeGroups(splitThreads(threads0.bench, threads1.bench)),
      machineBusySec: (threads1.machine.busyMs - threads0.machine.busyMs) / 1000,
      machineIdleSec: (threads1.machine.idleMs - threads0.machine.idleMs) / 1000,
    };
    // After every CPU, count and the peak RSS above: the list is the benchmark's, not the rollout's.
    const eventsWritten = await eventsWrittenSince(clients, createdAtMs);
    log(`${nodes} nodes: ${finished ? `all ${nodes} pods Ready in ${readySec.toFixed(1)} s` : `CUTOFF after ${cutoffMs / 1000} s: ${result.ready}/${nodes} Ready`}, `
      + `server CPU ${serverCpuSec.toFixed(1)} s (main thread ${serverMainCpuSec.toFixed(1)} s; per pod net of leases ${cpuMsPerPod.toFixed(2)} ms, main ${mainCpuMsPerPod.toFixed(2)} ms), bench CPU ${benchCpuSec.toFixed(1)} s (per pod net of leases ${benchCpuMsPerPod.toFixed(2)} ms), `
      + `writes ${describeCounts(rollout)}, requests per pod ${requestsPerPod.toFixed(2)} (${perPod}), server peak ${result.serverPeakMB.toFixed(0)} MB, bench peak ${result.benchPeakMB.toFixed(0)} MB`);
    log(`${nodes} nodes: answers other than 2xx from the create to the end (Leases and the benchmark's polls too): ${describeCounts(notSuccess(rolloutByCode)) || 'none'}`);
    log(`${nodes} nodes: Events written from the create to the end, by component and reason: ${eventsWritten}`);
    log(`${nodes} nodes: CPU by thread, create → end: server: ${result.serverThreads}; bench: ${result.benchThreads}; machine busy ${result.machineBusySec.toFixed(1)} s, idle ${result.machineIdleSec.toFixed(1)} s (all cores)`);
    return result;
  } finally {
    await sim.close().catch((e) => log(`sim.close: ${e}`));
    simClients.close();
    clients.close();
    await server.stop();
  }
}

function report(results: RunResult[], command: string, cutoffMs: number, renewMs: number): string {
  const f0 = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
  const f1 = (n: number) => (Number.isNaN(n) ? 'n/a' : n.toFixed(1));
  const f2 = (n: number) => (Number.isNaN(n) ? 'n/a' : n.toFixed(2));
  const verdict = (r: RunResult) => {
    if (!r.finished) return `not finished at ${cutoffMs / 1000} s cutoff`;
    const ratio = `${(r.readySec / targetSec).toFixed(2)}× the ${targetSec} s target`;
    return r.nodes === targetNodes ? `${ratio}: ${r.readySec <= targetSec ? 'meets' : 'misses'}` : `${ratio} (target is for 5,000)`;
  };
  const rows = results.map((r) => [
    f0(r.nodes), String(r.run), f1(r.registerSec), f1(r.nodesReadySec), f1(r.desiredSec),
    r.finished ? `**${f1(r.readySec)}**` : `> ${cutoffMs / 1000} (cutoff)`,
    `${f0(r.desired)} / ${f0(r.scheduled)} / ${f0(r.ready)}`, `${f1(r.serverCpuSec)} (${f1(r.serverMainCpuSec)})`,
    `${f2(r.steadyCpuMsPerWrite)} (${f2(r.steadyMainCpuMsPerWrite)})`, `${f2(r.cpuMsPerPod)} (${f2(r.mainCpuMsPerPod)})`, `${f1(r.benchCpuSec)} / ${f2(r.steadyBenchCpuMsPerRenewal)} / ${f2(r.benchCpuMsPerPod)}`, f1(r.rolloutWritesPerPod), f2(r.rolloutRequestsPerPod),
    f0(r.serverPeakMB), f0(r.benchPeakMB),
    `${f1(r.loadBefore)} → ${f1(r.loadAfter)}`, verdict(r),
  ]);
  const counts = [...new Set(results.map((r) => r.nodes))];
  const medians = counts.map((n) => {
    const rs = results.filter((r) => r.nodes === n);
    const done = rs.filter((r) => r.finished).map((r) => r.readySec);
    return `${f0(n)} nodes: ${done.length ? `median ${f1(median(done))} s over ${done.length} finished run(s)` : 'no run finished'} of ${rs.length}`;
  }).join('; ');
  const r1k = results.find((r) => r.nodes === 1000 && r.finished);
  const r5k = results.find((r) => r.nodes === 5000 && r.finished);
  const scaling = r1k && r5k ? ` 5,000 / 1,000 nodes time ratio (same run): ${(r5k.readySec / r1k.readySec).toFixed(2)}× for 5× the nodes.` : '';
  return [
    '## DaemonSet to Ready',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${machineLine()}`,
    `- Revision: ${revisionLine(repoRoot)}`,
    `- Command: \`${command}\` (after \`npx tsc -p tsconfig.json\`)`,
    '- Setup: per row a fresh `k8ts server --controllers all` (separate process, fresh data dir, SQLite, HTTPS; the DaemonSet controller, scheduler and other controllers in-process, on the control loops\' worker thread as `k8ts server` runs them, sharing one set of informers), '
      + `and a NodeSimulator in the benchmark process with N simulated nodes (\`namePrefix: 'node-'\`, \`renewIntervalMs: ${renewMs}\`, \`events: false\`, \`lightWrites: true\`, one Clientset, qps unlimited), no control-plane nodes. `
      + 'Once a node list shows N Ready nodes, the seed\'s http-go DaemonSet (image gasbugs/http-go, control-plane/master NoSchedule tolerations) is created; '
      + `its status is polled every ${pollMs} ms until desiredNumberScheduled == N and numberReady == N (cutoff ${cutoffMs / 1000} s); `
      + 'the times are the earlier of the poll\'s and a watch\'s of the DaemonSet, opened before the create (the poll sees the status up to 250 ms after it is written; the CPU window ends at the poll).',
    `- Lease renewals every ${renewMs / 1000} s (upstream's kubelet: 10 s), so N / ${renewMs / 1000} Lease PUTs per second go on in the background of the whole run.`,
    '- CPU per operation (comparable across machine load, unlike wall time): before the create, one renew interval of steady state measures server CPU per mutating request '
      + '(its writes, from the server\'s apiserver_request_total, are almost all Lease PUTs); CPU per pod = (server CPU from create to end - Lease writes in that window × the steady-state cost) / pods scheduled. '
      + 'In brackets: the server\'s main thread (the serving loop, /proc/<pid>/task/<pid>/stat) alone; the rest is the control loops\' thread (DaemonSet controller, scheduler) and the heavy lane.',
    '- Columns: registration = `sim.start()` (Nodes created, 64 in flight); nodes Ready = from `sim.start()` to a list showing N Ready; desired / to Ready = from the DaemonSet create; '
      + 'server CPU = user + system CPU seconds of the server process from the create to the end; server peak = VmHWM of the server process over its whole life (registration included); '
      + 'bench CPU = this process (the simulated kubelets and the polls), user + system, from the create to the end; per renewal from the steady interval; per pod net of its Lease renewals as for the server; '
      + 'bench peak = this process\'s peak RSS (the simulator\'s N nodes, informers and pod runtimes). Both processes share the 2 cores. '
      + 'Requests per pod: every request the server counted from the create to the end (apiserver_request_total, reads and watches too), without Lease renewals and the benchmark\'s own polls, / pods scheduled.',
    '',
    table(['Nodes', 'Run', 'Registration (s)', 'Nodes Ready (s)', 'Create → desired = N (s)', 'Create → all pods Ready (s)', 'Desired / scheduled / ready at end',
      'Server CPU create → end, s (main thread)', 'Steady state: server CPU ms per write (main)', 'Server CPU ms per pod, net of leases (main)', 'Bench CPU: create → end s / steady ms per renewal / ms per pod net of leases', 'Writes per pod (not leases)', 'Requests per pod, all verbs', 'Server peak RSS, VmHWM (MB)', 'Bench process peak RSS (MB)', 'Load avg (1 min) before → after', `vs target (${targetSec} s at 5,000)`], rows),
    '',
    `${medians}.${scaling}`,
    '',
    ...results.map((r) => `- ${f0(r.nodes)} nodes, run ${r.run}: steady-state writes over ${renewMs / 1000} s: ${r.steadyCounts}; rollout writes: ${r.rolloutCounts}; requests per pod, every verb (not Leases, not the benchmark's polls): ${r.perPod}; CPU by thread, create → end: server: ${r.serverThreads}; bench: ${r.benchThreads}; machine busy ${r.machineBusySec.toFixed(1)} s, idle ${r.machineIdleSec.toFixed(1)} s.`),
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = benchArgs('DaemonSet create to all pods Ready on N simulated nodes, with the server peak RSS and the CPU of each thread over the rollout.', {
    options: {
      nodes: { type: 'string', default: '1000,5000' },
      runs: { type: 'string', default: '1' },
      'cutoff-s': { type: 'string', default: '300' },
      'renew-ms': { type: 'string', default: '20000' },
      'no-write': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      timeline: { type: 'boolean', default: false },
      baseline: { type: 'string', help: 'another built checkout, run in turn with this one (--runs rounds); prints both, writes nothing' },
    },
  });
  if (values.baseline) return interleaved(values.baseline, values);
  const nodeCounts = values.nodes!.split(',').map((s) => Number(s.trim())).filter((n) => n > 0);
  const runs = Math.max(1, Math.min(10, Number(values.runs)));
  const cutoffMs = Number(values['cutoff-s']) * 1000;
  const renewMs = Number(values['renew-ms']);
  const work = mkdtempSync(join(tmpdir(), 'k8ts-bench-daemonset-'));
  log(`data under ${work}`);
  const command = `node ${relative(repoRoot, process.argv[1])} ${process.argv.slice(2).join(' ')}`.trim();
  try {
    const results: RunResult[] = [];
    for (const n of nodeCounts) {
      for (let run = 1; run <= runs; run++) results.push(await runOnce(work, n, run, cutoffMs, renewMs, values.timeline));
    }
    const md = report(results, command, cutoffMs, renewMs);
    console.log(`\n${md}`);
    if (!values['no-write']) {
      writeSection(resultsFile, 'daemonset', md);
      log(`wrote ${relative(process.cwd(), resultsFile)}`);
    }
  } finally {
    if (!values.keep) rmSync(work, { recursive: true, force: true });
  }
}

/** --baseline: this build and `baseline` in turn, one child run of each per round and node count (bench/lib/daemonset-ab.ts). */
async function interleaved(baseline: string, values: { nodes?: string; runs?: string; 'cutoff-s'?: string; 'renew-ms'?: string }): Promise<void> {
  const builds: Build[] = [{ label: 'this', root: repoRoot }, { label: 'baseline', root: baseline }];
  const rounds = Math.max(1, Math.min(20, Number(values.runs)));
  for (const n of values.nodes!.split(',').map((s) => Number(s.trim())).filter((x) => x > 0)) {
    const childArgs = ['--nodes', String(n), '--runs', '1', '--no-write', '--cutoff-s', values['cutoff-s']!, '--renew-ms', values['renew-ms']!];
    const rows = await runInterleaved(builds, rounds, childArgs, log);
    console.log(`\n${n} nodes, ${rounds} rounds, builds interleaved (this = ${repoRoot}, baseline = ${baseline}):\n\n${renderInterleaved(rows, builds)}`);
  }
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });

/** Resets this process's VmHWM to its current RSS (clear_refs 5), so VmHWM is this run's peak. */
function resetPeakRss(): void {
  writeFileSync('/proc/self/clear_refs', '5');
}
