/**
 * API server benchmark: starts a fresh `k8ts server` in a temp data dir and
 * measures, over HTTPS with the admin client certificate,
 *   1. spawn to /readyz 200 (first-ever start with PKI creation, and restarts),
 *   2. pod creates/s and p50/p99 latency at 1, 16 and 64 concurrent clients,
 *   3. list latency at 10,000 and 100,000 pods (JSON, Table, limit=500 pages),
 *   4. watch fan-out: events/s to 100 watchers and the delay to the last one,
 *   5. the server's RSS, idle and loaded.
 * Results go to bench/RESULTS.md with the command that produced them.
 *
 * The server runs with --controllers none unless --server-args says otherwise: the targets are
 * the API server's, and in-process controllers (the scheduler above all) would act on every
 * benchmark pod. Idle RSS is also read from a default `k8ts server`, controllers and all.
 *
 *   node dist/bench/apiserver.js [--quick] [--no-write] [--keep] [--creates-only]
 *     [--server-node-args="--cpu-prof --cpu-prof-dir=DIR"] [--server-args="--controllers none"]
 *
 * --creates-only runs step 2 alone (warm-up and the rounds of creates on one fresh server) and
 * prints its table without writing RESULTS.md: a before/after comparison of the create path
 * in a few minutes, e.g. on a busy machine where the full run takes too long.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient } from './lib/client.js';
import { combineRounds, createPods, listSpecs, timeList, timePaginatedWalk, type CreateRun, type ListTiming } from './lib/load.js';
import { readCpuMs, readMemory, RssSampler, startServer, type ServerProcess, type StartOptions } from './lib/server.js';
import { median } from './lib/stats.js';
import { watchFanOut, type FanOutResult } from './lib/watch.js';
import { report, type Results } from './lib/report.js';
import { machineLine, revisionLine, writeSection } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const namespace = 'bench';

export interface Sizes {
  firstStarts: number;
  restarts: number;
  /** Creates right after start, reported but not the measurement: V8 is still optimizing the request path. */
  warmUp: { concurrency: number; count: number };
  /** Rounds of `creates`, interleaved so that a burst of load from elsewhere on the machine hits every shape alike. */
  createRounds: number;
  creates: Array<{ concurrency: number; count: number }>;
  large: number;
  listRunsSmall: number;
  listRunsLarge: number;
  walkRuns: number;
  watchers: number;
  watchEvents: number;
  watchWriteConcurrency: number;
}

const fullSizes: Sizes = {
  firstStarts: 3, restarts: 5,
  // 10,000 pods in all, so the first list measurements run at exactly 10,000.
  warmUp: { concurrency: 16, count: 1_600 },
  createRounds: 3,
  creates: [{ concurrency: 1, count: 300 }, { concurrency: 16, count: 1_500 }, { concurrency: 64, count: 1_000 }],
  large: 100_000, listRunsSmall: 5, listRunsLarge: 3, walkRuns: 1,
  watchers: 100, watchEvents: 2_000, watchWriteConcurrency: 16,
};

const quickSizes: Sizes = {
  firstStarts: 1, restarts: 2,
  warmUp: { concurrency: 16, count: 100 }, createRounds: 2,
  creates: [{ concurrency: 1, count: 50 }, { concurrency: 16, count: 100 }, { concurrency: 64, count: 50 }],
  large: 2_000, listRunsSmall: 2, listRunsLarge: 2, walkRuns: 1,
  watchers: 20, watchEvents: 200, watchWriteConcurrency: 16,
};

const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);

async function main(): Promise<void> {
  const { values } = benchArgs('API server: start-up to /readyz, pod creates/s, lists at 10,000 and 100,000 pods, watch fan-out and RSS of a fresh `k8ts server`.', {
    options: {
      quick: { type: 'boolean', default: false, help: 'smaller sizes' },
      'no-write': { type: 'boolean', default: false, help: 'print only; leave bench/RESULTS.md alone' },
      keep: { type: 'boolean', default: false, help: "keep the server's temp data dir" },
      'server-node-args': { type: 'string', default: '', help: "node flags for the server's process, space-separated" },
      'server-args': { type: 'string', default: '--controllers none', help: '`k8ts server` flags, space-separated' },
      'creates-only': { type: 'boolean', default: false, help: 'the create rounds alone, printed, not written' },
    },
  });
  const sizes = values.quick ? quickSizes : fullSizes;
  const flags: ServerFlags = {
    nodeArgs: values['server-node-args']!.split(' ').filter(Boolean),
    serverArgs: values['server-args']!.split(' ').filter(Boolean),
  };
  const work = mkdtempSync(join(tmpdir(), 'k8ts-bench-'));
  log(`data under ${work}`);
  if (values['creates-only']) {
    try { console.log(`\n${await createsOnly(work, sizes, flags)}`); } finally { if (!values.keep) rmSync(work, { recursive: true, force: true }); }
    return;
  }
  try {
    const loadBefore = loadavg()[0]!;
    const results = await run(work, sizes, flags);
    const md = report(results, {
      date: new Date().toISOString(), command: commandLine(), machine: machineLine(), revision: revisionLine(repoRoot), sizes,
      server: ['k8ts server --data-dir DIR --port 0 --bind 127.0.0.1', ...flags.serverArgs!].join(' '),
      loadAverage: [loadBefore, loadavg()[0]!],
    });
    console.log(`\n${md}`);
    if (!values['no-write'] && !values.quick) {
      writeSection(resultsFile, 'apiserver', md);
      log(`wrote ${relative(process.cwd(), resultsFile)}`);
    }
  } finally {
    if (!values.keep) rmSync(work, { recursive: true, force: true });
  }
}

function commandLine(): string {
  const args = process.argv.slice(2).map((a) => (/\s/.test(a) ? JSON.stringify(a) : a));
  const direct = ['node', relative(repoRoot, process.argv[1]!), ...args].join(' ');
  return process.env.npm_lifecycle_event === 'bench' ? `npm run bench${args.length ? ` -- ${args.join(' ')}` : ''}  (= ${direct})` : direct;
}

type ServerFlags = Pick<StartOptions, 'nodeArgs' | 'serverArgs'>;

async function run(work: string, sizes: Sizes, flags: ServerFlags): Promise<Results> {
  const starts = await measureStarts(work, sizes, flags);
  const dataDir = join(work, 'main');
  const server = await startServer({ cliPath, dataDir, ...flags });
  try {
    await new Promise((r) => setTimeout(r, 1000));
    const idleKB = readMemory(server.pid).rssKB;
    log(`idle RSS ${(idleKB / 1024).toFixed(0)} MB`);
    const load = await measureLoad(server, sizes);
    return { ...starts, idleKB, ...load, hwmKB: readMemory(server.pid).hwmKB, restartLargeMs: await restartLarge(server, dataDir, flags), defaultIdleKB: await defaultServerIdle(work, flags) };
  } finally {
    await server.stop();
  }
}

/** First-ever starts (new data dir: PKI, database, admin.conf) and restarts of an existing one, of a default `k8ts server`. */
async function measureStarts(work: string, sizes: Sizes, flags: ServerFlags) {
  const first: number[] = [];
  const firstReported: number[] = [];
  for (let i = 0; i < sizes.firstStarts; i++) {
    const s = await startServer({ cliPath, dataDir: join(work, `first-${i}`), nodeArgs: flags.nodeArgs });
    first.push(s.readyMs);
    firstReported.push(s.reportedStartupMs);
    await s.stop();
  }
  const again: number[] = [];
  const againReported: number[] = [];
  for (let i = 0; i < sizes.restarts; i++) {
    const s = await startServer({ cliPath, dataDir: join(work, 'first-0'), nodeArgs: flags.nodeArgs });
    again.push(s.readyMs);
    againReported.push(s.reportedStartupMs);
    await s.stop();
  }
  log(`first start ${first[0]!.toFixed(0)} ms; restarts ${again.map((t) => t.toFixed(0)).join(', ')} ms`);
  return {
    firstStartMs: first[0]!, firstStartMedianMs: median(first), firstStartReportedMs: firstReported[0]!, firstStarts: first.length,
    restartMedianMs: median(again), restartReportedMedianMs: median(againReported), restarts: again,
  };
}

/** Step 2 alone: the creates table of a fresh server, with the command and load average. */
async function createsOnly(work: string, sizes: Sizes, flags: ServerFlags): Promise<string> {
  const loadBefore = loadavg()[0]!;
  const server = await startServer({ cliPath, dataDir: join(work, 'main'), ...flags });
  try {
    const { warmUp, creates } = await measureCreates(server, sizes);
    const row = (r: CreateRun, clients: string) =>
      `| ${clients} | ${r.count.toLocaleString('en-US')} | ${r.perSec.toFixed(0)}/s | ${r.p50.toFixed(1)} ms | ${r.p99.toFixed(1)} ms | ${r.cpuUsPerOp.toFixed(0)} µs |`;
    return [
      `- Command: \`${commandLine()}\`; ${revisionLine(repoRoot)}; load average (1 min) ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after`,
      '', '| Clients | Creates | Throughput (median round) | p50 | p99 | Server CPU per create (median round) |', '| --- | --- | --- | --- | --- | --- |',
      row(warmUp, `${sizes.warmUp.concurrency} (warm-up)`),
      ...creates.map((r, i) => row(r, String(sizes.creates[i]!.concurrency))),
    ].join('\n');
  } finally {
    await server.stop();
  }
}

async function measureCreates(server: ServerProcess, sizes: Sizes) {
  const cpu = () => readCpuMs(server.pid);
  const admin = new ApiClient(server.creds, 1);
  await admin.expect(201, 'POST', '/api/v1/namespaces', { body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }) });
  admin.close();
  let made = 0;
  const createSampler = new RssSampler(server.pid).start();
  const create = async (concurrency: number, count: number, what: string) => {
    const client = new ApiClient(server.creds, concurrency);
    const r = await createPods(client, cpu, { namespace, prefix: 'pod', from: made, count, concurrency });
    client.close();
    made += count;
    log(`${count} creates at ${concurrency} clients${what}: ${r.perSec.toFixed(0)}/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, server CPU ${r.cpuUsPerOp.toFixed(0)} µs/create`);
    return r;
  };
  const warmUp = await create(sizes.warmUp.concurrency, sizes.warmUp.count, ' (warm-up)');
  const runs: CreateRun[][] = sizes.creates.map(() => []);
  for (let round = 0; round < sizes.createRounds; round++) {
    for (const [i, { concurrency, count }] of sizes.creates.entries()) runs[i]!.push(await create(concurrency, count, `, round ${round + 1}`));
  }
  return { warmUp, creates: runs.map(combineRounds), createPeakKB: createSampler.stop(), made };
}

async function measureLoad(server: ServerProcess, sizes: Sizes) {
  const cpu = () => readCpuMs(server.pid);
  const { warmUp, creates, createPeakKB, made } = await measureCreates(server, sizes);
  const small = await measureLists(server, made, sizes.listRunsSmall, sizes.walkRuns);
  const fillClient = new ApiClient(server.creds, 64);
  const fill = await createPods(fillClient, cpu, { namespace, prefix: 'pod', from: made, count: sizes.large - made, concurrency: 64 });
  fillClient.close();
  log(`filled to ${sizes.large} pods in ${(fill.wallMs / 1000).toFixed(1)} s (${fill.perSec.toFixed(0)}/s, p99 ${fill.p99.toFixed(1)} ms)`);
  const large = await measureLists(server, sizes.large, sizes.listRunsLarge, sizes.walkRuns);
  const watch = await measureWatch(server, sizes);
  return { warmUp, creates, createPeakKB, small, fill, large, watch };
}

export interface ListPhase { pods: number; timings: ListTiming[]; peakKB: number }

async function measureLists(server: ServerProcess, pods: number, runs: number, walkRuns: number): Promise<ListPhase> {
  const client = new ApiClient(server.creds, 1);
  const cpu = () => readCpuMs(server.pid);
  const sampler = new RssSampler(server.pid).start();
  const timings: ListTiming[] = [];
  for (const spec of listSpecs) {
    const t = await timeList(client, cpu, namespace, spec, runs);
    if (t.items !== Math.min(pods, spec.query ? 500 : pods)) throw new Error(`${spec.what}: ${t.items} items, want ${pods}`);
    timings.push(t);
    log(`${pods} pods, ${t.what}: median ${t.medianMs.toFixed(0)} ms (${(t.bytes / 2 ** 20).toFixed(1)} MiB)`);
  }
  const walk = await timePaginatedWalk(client, cpu, namespace, walkRuns);
  if (walk.items !== pods) throw new Error(`paginated walk saw ${walk.items} items, want ${pods}`);
  timings.push(walk);
  log(`${pods} pods, ${walk.what}: ${walk.medianMs.toFixed(0)} ms`);
  client.close();
  return { pods, timings, peakKB: sampler.stop() };
}

async function measureWatch(server: ServerProcess, sizes: Sizes): Promise<FanOutResult & { peakKB: number }> {
  const watchClient = new ApiClient(server.creds, sizes.watchers);
  const writeClient = new ApiClient(server.creds, sizes.watchWriteConcurrency);
  const sampler = new RssSampler(server.pid).start();
  try {
    const r = await watchFanOut(watchClient, writeClient, () => readCpuMs(server.pid), {
      namespace, watchers: sizes.watchers, events: sizes.watchEvents, concurrency: sizes.watchWriteConcurrency, prefix: 'watched',
    });
    log(`watch fan-out: ${r.deliveredPerSec.toFixed(0)} events/s delivered, last watcher ${r.lastDelayMs.toFixed(0)} ms after the last write`);
    return { ...r, peakKB: sampler.stop() };
  } finally {
    sampler.stop();
    watchClient.close();
    writeClient.close();
  }
}

/** Idle RSS of `k8ts server` as users run it (in-process controllers on), 2 s after ready. */
async function defaultServerIdle(work: string, flags: ServerFlags): Promise<number> {
  const s = await startServer({ cliPath, dataDir: join(work, 'first-0'), nodeArgs: flags.nodeArgs });
  try {
    await new Promise((r) => setTimeout(r, 2000));
    const kB = readMemory(s.pid).rssKB;
    log(`idle RSS of a default server: ${(kB / 1024).toFixed(0)} MB`);
    return kB;
  } finally {
    await s.stop();
  }
}

/** Stops the loaded server and starts it again on the same data dir: readiness with 100k pods stored. */
async function restartLarge(server: ServerProcess, dataDir: string, flags: ServerFlags): Promise<number> {
  await server.stop();
  const again = await startServer({ cliPath, dataDir, ...flags });
  await again.stop();
  log(`restart with the large data dir: ${again.readyMs.toFixed(0)} ms`);
  return again.readyMs;
}

main().catch((e) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exitCode = 1;
});
