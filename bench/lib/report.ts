/** The RESULTS.md section of the API server benchmark. */
import type { CreateRounds, CreateRun, ListTiming } from './load.js';
import type { FanOutResult } from './watch.js';
import { fmtMB, fmtMs, fmtRate } from './stats.js';
import { table } from './results.js';

export interface Results {
  firstStartMs: number;
  firstStartMedianMs: number;
  firstStartReportedMs: number;
  firstStarts: number;
  restartMedianMs: number;
  restartReportedMedianMs: number;
  restarts: number[];
  idleKB: number;
  warmUp: CreateRun;
  creates: CreateRounds[];
  createPeakKB: number;
  small: { pods: number; timings: ListTiming[]; peakKB: number };
  fill: CreateRun;
  large: { pods: number; timings: ListTiming[]; peakKB: number };
  watch: FanOutResult & { peakKB: number };
  hwmKB: number;
  restartLargeMs: number;
  /** Idle RSS of a default `k8ts server` (in-process controllers on). */
  defaultIdleKB: number;
}

export interface RunInfo {
  date: string;
  command: string;
  machine: string;
  revision: string;
  /** The server command line. */
  server: string;
  /** 1-minute load average before and after the run. */
  loadAverage: [number, number];
  sizes: { restarts: number; firstStarts: number; listRunsSmall: number; listRunsLarge: number };
}

const met = (ok: boolean) => (ok ? 'yes' : '**no**');

export function report(r: Results, info: RunInfo): string {
  const c16 = r.creates.find((c) => c.concurrency === 16);
  const lines = [
    '## API server (bench/apiserver.ts)',
    '',
    `- Date: ${info.date}`,
    `- Machine: ${info.machine}`,
    `- Code: ${info.revision}`,
    `- Command: \`${info.command}\``,
    `- Server: \`${info.server}\`, a fresh data dir; load average (1 min) ${info.loadAverage[0].toFixed(1)} before, ${info.loadAverage[1].toFixed(1)} after`,
    '',
    '### Against the targets',
    '',
    table(['Measurement', 'Result', 'Target', 'Met'], [
      ['Start to ready (spawn to /readyz 200), existing data dir', `${fmtMs(r.restartMedianMs)} (median of ${r.restarts.length})`, '< 1 s', met(r.restartMedianMs < 1000)],
      ['Start to ready, first-ever start (creates PKI)', `${fmtMs(r.firstStartMs)}`, '< 1 s', met(r.firstStartMs < 1000)],
      ['Pod creates, 16 clients (median of rounds)', c16 ? `${fmtRate(c16.perSec)}/s, p99 ${fmtMs(c16.p99)}` : 'n/a', '>= 1,000/s, p99 < 100 ms', met(!!c16 && c16.perSec >= 1000 && c16.p99 < 100)],
      ['Server RSS, idle after start', fmtMB(r.idleKB), '< 150 MB', met(r.idleKB < 150 * 1024)],
      ['Server RSS, idle, default `k8ts server` (in-process controllers on)', fmtMB(r.defaultIdleKB), '< 150 MB', met(r.defaultIdleKB < 150 * 1024)],
    ]),
    '',
    ...startSection(r, info),
    ...createSection(r),
    ...listSection(r.small, info.sizes.listRunsSmall),
    ...listSection(r.large, info.sizes.listRunsLarge),
    ...watchSection(r.watch),
    ...memorySection(r),
    ...notes(),
  ];
  return lines.join('\n');
}

function startSection(r: Results, info: RunInfo): string[] {
  return [
    '### Start to ready',
    '',
    'A default `k8ts server` (in-process controllers start after ready, so they are not in these times).',
    '',
    table(['Start', 'Spawn to /readyz 200', 'Server-reported startupMs'], [
      [`First-ever (new data dir: CA, certificates, database)`, `${fmtMs(r.firstStartMs)}${r.firstStarts > 1 ? ` (median of ${r.firstStarts} new dirs: ${fmtMs(r.firstStartMedianMs)})` : ''}`, fmtMs(r.firstStartReportedMs)],
      [`Restart, existing data dir (median of ${info.sizes.restarts})`, `${fmtMs(r.restartMedianMs)} (runs: ${r.restarts.map((t) => t.toFixed(0)).join(', ')} ms)`, fmtMs(r.restartReportedMedianMs)],
      [`Restart with ${r.large.pods.toLocaleString('en-US')} pods stored (one run)`, fmtMs(r.restartLargeMs), ''],
    ]),
    '',
  ];
}

function createSection(r: Results): string[] {
  const row = (c: CreateRun, clients: string, rate: string) => [
    clients, c.count.toLocaleString('en-US'), rate, fmtMs(c.p50), fmtMs(c.p99), `${(c.wallMs / 1000).toFixed(1)} s`, `${c.cpuUsPerOp.toFixed(0)} µs`,
  ];
  const rounds = r.creates[0]?.rounds ?? 0;
  return [
    '### Pod creates (~1.3 KB DaemonSet-style pod bodies, one namespace)',
    '',
    `After a warm-up, ${rounds} rounds of 1, 16 and 64 clients in turn; throughput and CPU are the median round (range in brackets), latency percentiles are over every request of the rounds.`,
    '',
    table(['Clients', 'Creates', 'Throughput', 'p50', 'p99', 'Wall time', 'Server CPU per create'], [
      row(r.warmUp, `${r.warmUp.concurrency} (warm-up: the first creates after start)`, `${fmtRate(r.warmUp.perSec)}/s`),
      ...r.creates.map((c) => row(c, String(c.concurrency), `${fmtRate(c.perSec)}/s (${fmtRate(c.minPerSec)}–${fmtRate(c.maxPerSec)})`)),
      row(r.fill, `${r.fill.concurrency} (fill from ${(r.large.pods - r.fill.count).toLocaleString('en-US')} to ${r.large.pods.toLocaleString('en-US')} pods)`, `${fmtRate(r.fill.perSec)}/s`),
    ]),
    '',
  ];
}

function listSection(p: { pods: number; timings: ListTiming[] }, runs: number): string[] {
  return [
    `### Lists at ${p.pods.toLocaleString('en-US')} pods (median of ${runs} runs unless noted)`,
    '',
    table(['List', 'Median', 'Min / max', 'Server CPU', 'Response size', 'Items/rows'], p.timings.map((t) => [
      t.runs === 1 ? `${t.what} (one run)` : t.what, fmtMs(t.medianMs), `${fmtMs(t.minMs)} / ${fmtMs(t.maxMs)}`, fmtMs(t.cpuMs),
      `${(t.bytes / 2 ** 20).toFixed(1)} MiB`, t.items.toLocaleString('en-US'),
    ])),
    '',
  ];
}

function watchSection(w: FanOutResult): string[] {
  return [
    '### Watch fan-out',
    '',
    `${w.watchers} watchers on the pods of the namespace from one resourceVersion, then ${w.events.toLocaleString('en-US')} pod creates at ${w.writes.concurrency} clients.`,
    '',
    table(['Measurement', 'Result'], [
      ['Events delivered (all watchers together)', `${fmtRate(w.deliveredPerSec)}/s (${(w.watchers * w.events).toLocaleString('en-US')} events in ${(w.totalMs / 1000).toFixed(1)} s${w.complete ? '' : ', **incomplete: timed out**'})`],
      ['Creates during the fan-out', `${fmtRate(w.writes.perSec)}/s, p50 ${fmtMs(w.writes.p50)}, p99 ${fmtMs(w.writes.p99)}`],
      ['Last write acknowledged to last watcher has last event', fmtMs(w.lastDelayMs)],
      ['Server CPU per delivered event (creates included)', `${w.cpuUsPerEvent.toFixed(1)} µs`],
    ]),
    '',
  ];
}

function memorySection(r: Results): string[] {
  return [
    '### Server memory (VmRSS from /proc/<pid>/status, sampled every 100 ms)',
    '',
    'One server process through all phases, so a phase\'s peak includes heap kept from the phases before it (V8 seldom gives memory back).',
    '',
    table(['When', 'RSS'], [
      ['Idle, 1 s after ready', fmtMB(r.idleKB)],
      ['Idle, default `k8ts server` (in-process controllers on), 2 s after ready', fmtMB(r.defaultIdleKB)],
      ['Peak during the create runs', fmtMB(r.createPeakKB)],
      [`Peak during lists at ${r.small.pods.toLocaleString('en-US')} pods`, fmtMB(r.small.peakKB)],
      [`Peak during lists at ${r.large.pods.toLocaleString('en-US')} pods`, fmtMB(r.large.peakKB)],
      ['Peak during the watch fan-out', fmtMB(r.watch.peakKB)],
      ['VmHWM (peak over the whole run)', fmtMB(r.hwmKB)],
    ]),
    '',
  ];
}

function notes(): string[] {
  return [
    '### Method',
    '',
    '- The server and the benchmark client share the machine\'s cores; client-side TLS and JSON work competes with the server, most visibly in the list and watch runs.',
    '- Latency is from request start to the last response byte, per request, over keep-alive connections (one https.Agent per phase, maxSockets = clients), opened before the timed run (TLS handshakes are not in the create numbers).',
    '- Server CPU is user + system time of the server process from /proc/<pid>/stat (10 ms ticks): on a shared machine it moves much less than wall time, so compare it between runs.',
    '- Every create is durable when acknowledged (SQLite WAL, synchronous=FULL); writes that arrive together share one commit and fsync (group commit).',
    '- Lists are of one namespace (`/api/v1/namespaces/bench/pods`); Table lists use kubectl\'s `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`.',
  ];
}
