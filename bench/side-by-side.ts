/**
 * k8ts beside the storage under it, in one run: pod creates through HTTPS
 * with C keep-alive clients (one socket each, `--client`) against a fresh `k8ts server --controllers none`
 * on SQLite and on a private etcd, and the same number of same-size
 * create-if-absent transactions sent straight to a fresh private etcd through
 * its JSON gateway (`/v3/kv/txn`, as kube-apiserver writes a new object), in
 * interleaved rounds. `--baseline DIR` adds the same k8ts rows for another
 * built checkout (before/after a change in one run); `--watchers W` adds a
 * SQLite row with W watchers of the pods attached, for the fan-out's cost.
 * Medians over the rounds; ratios against raw etcd at the same concurrency.
 *
 *   node dist/bench/side-by-side.js [--rounds 2] [--pods 2000] [--concurrency 16,64]
 *     [--watchers 100] [--baseline /path/to/other/checkout] [--baseline-args default-watch-cache-size=0]
 *     [--no-etcd] [--no-write] [--only raw,sqlite,watchers,etcd] [--section side-by-side]
 *     [--cpu-prof DIR] [--server-node-args="--heap-prof --heap-prof-dir=DIR"] [--warmup 2000] [--pod minimal|daemonset]
 *     [--alloc-profile FILE] [--client lean|node]
 *
 * The default `--client node` drives the creates through node:http(s) and a keep-alive Agent, as the
 * reference load (the steering's api-load.mjs and etcd-load.mjs, outside this repository) and every run before loop64 did, so
 * figures stay comparable with the issue's; `--client lean` writes each request on its client's own
 * socket and parses only the status and body (bench/lib/lean-http.ts), at about half the bench's CPU
 * per create. The bench shares the 2 cores with the server, and one thread turns around a group
 * commit's answers one by one, so its cost shows in both rows (raw etcd's more than k8ts's:
 * bench/RESULTS.md `loop64-2026-12-06`).
 *
 * `--pod daemonset` creates what a DaemonSet controller creates (bench/lib/pods.ts: owner reference,
 * node affinity, tolerations, resources, a volume; about 1.3 KB sent, a 4.1 KB answer) instead of
 * the default minimal pod (one container; about 0.2 KB sent, a 1.9 KB answer).
 *
 * `--baseline-args` adds server flags, written without their dashes (NAME=VALUE,...), to the baseline rows (alone: the baseline is this checkout
 * with those flags, e.g. the watch cache off); with a baseline and watchers the baseline gets a
 * watchers row too.
 *
 * `--warmup N` measures a warm server: on a fresh one about half the CPU of the first 2,000 creates
 * is V8 compiling the create path (its compiler threads, and the main thread in unoptimized code),
 * which a long-running server has paid once; without it the server is cold, as in every earlier run.
 *
 * `--alloc-profile FILE` samples the server's allocations over the measured creates (bench/lib/alloc-sampling.ts,
 * read with bench/alloc-summary.ts); each k8ts cell writes the file again, so run one cell.
 *
 * Needs /usr/bin/etcd (Debian's etcd-server); everything binds to 127.0.0.1.
 */
import http from 'node:http';
import https from 'node:https';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCpuMs, readThreadCpuMs, startServer, threadNamed, type ServerProcess } from './lib/server.js';
import { etcdClientThreadName } from '../src/storage/etcd/thread-protocol.js';
import { daemonSetPod } from './lib/pods.js';
import { batchingBetween, readEtcdBatching, startEtcd } from './lib/etcd.js';
import { median, percentile } from './lib/stats.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { allocSamplingNodeArgs } from './lib/alloc-sampling.js';
import { benchArgs } from './lib/args.js';
import { LeanConnection, type LeanTarget } from './lib/lean-http.js';
import { loopSchedstat } from './lib/bystander-rows.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');

/**
 * cpuUs: the k8ts server's CPU (user + system, all threads) per create, in µs; 0 for raw etcd.
 * benchUs: this process's CPU per create (its clients, and its watchers' reading and decrypting), on the same cores.
 * etcdUs: etcd's own CPU per create or transaction (raw etcd and k8ts on etcd): on 2 cores every process's CPU
 * per operation bounds the rate, etcd's included, so the ratio to raw etcd is read with all three.
 * mainUs: the server's main thread alone (the serving loop), without V8's compiler and GC threads and libuv's pool,
 * whose share of a fresh server's CPU is large and varies with the machine's load (bench/RESULTS.md, `write-cpu`).
 * loopBusy / loopQueued: the fractions of the measured wall time the serving thread ran on a CPU and waited on a run
 * queue (its schedstat); the rest it slept in the poll with creates in flight, i.e. waited for the disk or the clients.
 * benchQueued: the same run-queue fraction for this process's thread (its clients): a bench starved of a CPU is a convoy.
 * perFsync, fsyncMs: etcd's writes per WAL fsync and the fsync's mean (its /metrics): at the same concurrency,
 * fewer writes per fsync mean fewer arrived while the previous batch was being written, i.e. the clients'
 * round trips outside etcd are longer, and the rate follows the batch size more than anyone's CPU.
 */
interface Sample {
  perSec: number; p50: number; p99: number; errors: number; cpuUs: number; benchUs?: number; mainUs?: number; etcdUs?: number;
  /** The server's etcd client thread (k8ts-etcd) alone; undefined on SQLite and for a build that does not name it. */
  etcdThreadUs?: number;
  loopBusy?: number; loopQueued?: number; benchQueued?: number; perFsync?: number; fsyncMs?: number;
}
type Row = { name: string; concurrency: number; samples: Sample[] };

const pct = (f: number) => `${Math.round(f * 100)}%`;
const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);


/** Runs `count` tasks with `concurrency` workers; each answers whether it succeeded, and is timed. */
async function drive(count: number, concurrency: number, task: (i: number, worker: number) => Promise<boolean>): Promise<Sample> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, async (_, worker) => {
    while (next < count) {
      const i = next++;
      const s = process.hrtime.bigint();
      if (!(await task(i, worker))) errors++;
      latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
    }
  }));
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  return { perSec: count / secs, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors, cpuUs: 0 };
}

function post(agent: http.Agent | https.Agent, url: URL, path: string, body: string, extra: https.RequestOptions = {}): Promise<{ status: number; body: string }> {
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request({
      host: url.hostname, port: url.port, path, method: 'POST', agent, ...extra,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': Buffer.byteLength(body) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * How the clients send a create (`--client`): node:http(s) with a keep-alive Agent (`node`, every
 * run before loop64), or one lean socket per client (`lean`, bench/lib/lean-http.ts).
 */
type Poster = (worker: number, path: string, body: string) => Promise<{ status: number; body: string }>;

async function posters(kind: string, target: LeanTarget, agent: http.Agent, concurrency: number): Promise<{ post: Poster; close(): void }> {
  if (kind === 'node') return { post: (_w, path, body) => post(agent, target.url, path, body), close: () => undefined };
  const conns = await Promise.all(Array.from({ length: concurrency }, () => LeanConnection.open(target)));
  return {
    post: async (w, path, body) => { const r = await conns[w]!.post(target.url.host, path, body); return { status: r.status, body: r.body.toString() }; },
    close: () => { for (const c of conns) c.close(); },
  };
}

/** The storage ceiling: pod-sized create-if-absent transactions straight into etcd. */
async function rawEtcd(pods: number, concurrency: number): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-sbs-etcd-'));
  const etcd = await startEtcd(dir);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency + 2 });
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const filler = 'x'.repeat(1400);
  const stamp = Date.now();
  const clients = await posters(clientKind, { url: new URL(etcd.url) }, agent, concurrency);
  try {
    const etcd0 = readCpuMs(etcd.pid);
    const batching0 = await readEtcdBatching(etcd.url);
    const bench0 = process.cpuUsage();
    const benchSched0 = loopSchedstat(process.pid);
    const wall0 = performance.now();
    const sample = await drive(pods, concurrency, async (i, w) => {
      const key = b64(`/registry/pods/load/p-${stamp}-${i}`);
      const value = b64(JSON.stringify({ kind: 'Pod', metadata: { name: `p-${stamp}-${i}` }, pad: filler }));
      const r = await clients.post(w, '/v3/kv/txn', JSON.stringify({
        compare: [{ key, target: 'MOD', result: 'EQUAL', mod_revision: '0' }], success: [{ request_put: { key, value } }],
      }));
      return r.status === 200 && JSON.parse(r.body).succeeded === true;
    });
    sample.etcdUs = ((readCpuMs(etcd.pid) - etcd0) * 1000) / pods;
    sample.benchQueued = (loopSchedstat(process.pid).waitMs - benchSched0.waitMs) / (performance.now() - wall0);
    const bench = process.cpuUsage(bench0);
    sample.benchUs = (bench.user + bench.system) / pods;
    Object.assign(sample, batchingBetween(batching0, await readEtcdBatching(etcd.url)));
    return sample;
  } finally {
    clients.close();
    agent.destroy();
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Pod creates through a fresh k8ts server of the checkout at `checkout`, on SQLite or on a fresh etcd. */
async function k8ts(checkout: string, storage: 'sqlite' | 'etcd', pods: number, concurrency: number, watchers: number, extraArgs: string[] = [], nodeArgs: string[] = [], warmup = 0): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-sbs-'));
  const etcd = storage === 'etcd' ? await startEtcd(join(dir, 'etcd')) : undefined;
  let server: ServerProcess | undefined;
  const streams: http.ClientRequest[] = [];
  const closers: Array<() => void> = [];
  try {
    server = await startServer({
      cliPath: join(checkout, 'dist', 'src', 'cli', 'main.js'), dataDir: join(dir, 'data'), nodeArgs,
      serverArgs: ['--controllers', 'none', ...(etcd ? ['--etcd-servers', etcd.url] : []), ...extraArgs],
    });
    const url = new URL(server.creds.server);
    const agent = new https.Agent({ keepAlive: true, maxSockets: concurrency + watchers + 4, ca: server.creds.ca, cert: server.creds.cert, key: server.creds.key });
    const ns = await post(agent, url, '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'load' } }));
    if (ns.status !== 201) throw new Error(`namespace: ${ns.status} ${ns.body}`);
    for (let i = 0; i < watchers; i++) {
      const req = https.get({ host: url.hostname, port: url.port, path: '/api/v1/namespaces/load/pods?watch=1', agent }, (res) => res.resume());
      req.on('error', () => undefined);
      streams.push(req);
    }
    // Warm connections first, as kubectl and controllers hold theirs.
    await Promise.all(Array.from({ length: concurrency }, () => post(agent, url, '/api/v1/namespaces/load/configmaps', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'warm-' } }))));
    const stamp = Date.now();
    const clients = await posters(clientKind, { url, ca: server.creds.ca, cert: server.creds.cert, key: server.creds.key }, agent, concurrency);
    closers.push(() => clients.close());
    const create = async (name: string, w: number) => {
      return (await clients.post(w, '/api/v1/namespaces/load/pods', JSON.stringify(podBody(name)))).status === 201;
    };
    // --warmup N: N pod creates first, not measured (the server's JIT and caches warmed, as in a long-running server).
    if (warmup > 0) await drive(warmup, concurrency, (i, w) => create(`w-${stamp}-${i}`, w));
    const cpu0 = readCpuMs(server.pid);
    const etcd0 = etcd ? readCpuMs(etcd.pid) : 0;
    const batching0 = etcd ? await readEtcdBatching(etcd.url) : undefined;
    const main0 = readThreadCpuMs(server.pid);
    const etcdThread = etcd ? threadNamed(server.pid, etcdClientThreadName) : undefined;
    const etcdThread0 = etcdThread ? readThreadCpuMs(server.pid, etcdThread) : 0;
    const bench0 = process.cpuUsage();
    const loop0 = loopSchedstat(server.pid);
    const benchSched0 = loopSchedstat(process.pid);
    const wall0 = performance.now();
    const from = process.hrtime.bigint() / 1000n;
    const allocProfile = process.env.K8TS_BENCH_ALLOC_PROFILE;
    if (allocProfile) process.kill(server.pid, 'SIGUSR2');
    const sample = await drive(pods, concurrency, (i, w) => create(`p-${stamp}-${i}`, w));
    sample.cpuUs = ((readCpuMs(server.pid) - cpu0) * 1000) / pods;
    sample.mainUs = ((readThreadCpuMs(server.pid) - main0) * 1000) / pods;
    if (etcdThread) sample.etcdThreadUs = ((readThreadCpuMs(server.pid, etcdThread) - etcdThread0) * 1000) / pods;
    const wallMs = performance.now() - wall0;
    const loop1 = loopSchedstat(server.pid);
    sample.loopBusy = (loop1.runMs - loop0.runMs) / wallMs;
    sample.loopQueued = (loop1.waitMs - loop0.waitMs) / wallMs;
    sample.benchQueued = (loopSchedstat(process.pid).waitMs - benchSched0.waitMs) / wallMs;
    if (etcd) sample.etcdUs = ((readCpuMs(etcd.pid) - etcd0) * 1000) / pods;
    const bench = process.cpuUsage(bench0);
    sample.benchUs = (bench.user + bench.system) / pods;
    if (etcd && batching0) Object.assign(sample, batchingBetween(batching0, await readEtcdBatching(etcd.url)));
    if (allocProfile) await stopAllocSampling(server.pid, allocProfile);
    // The measured phase on the monotonic clock, for its server's profile alone (bench/lib/cpuprofile.ts --from-us/--to-us).
    log(`server ${server.pid}: measured creates from-us ${from} to-us ${process.hrtime.bigint() / 1000n}`);
    for (const s of streams) s.destroy();
    agent.destroy();
    return sample;
  } finally {
    for (const s of streams) s.destroy();
    for (const close of closers) close();
    await server?.stop();
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Stops the server's allocation sampling and waits (up to 10 s) for it to write its profile. */
async function stopAllocSampling(pid: number, file: string): Promise<void> {
  rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 100 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 100));
}

/** --client: lean or node (see posters). */
let clientKind = 'node';

/** The pod each create sends (--pod). */
let podBody = minimalPod;

function minimalPod(name: string): object {
  return {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { load: 'yes' } },
    spec: { containers: [{ name: 'c', image: 'busybox' }], schedulerName: 'no-such-scheduler' },
  };
}

async function main(): Promise<void> {
  const { values } = benchArgs('k8ts pod creates beside raw etcd transactions, on SQLite and etcd, in interleaved rounds.', {
    options: {
      rounds: { type: 'string', default: '2' }, pods: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '16,64' },
      watchers: { type: 'string', default: '100' }, baseline: { type: 'string' }, 'baseline-args': { type: 'string' }, 'no-etcd': { type: 'boolean', default: false },
      'no-write': { type: 'boolean', default: false }, 'cpu-prof': { type: 'string' }, only: { type: 'string' },
      // --warmup N: N pod creates per k8ts cell before the measured ones (default 0: a cold server, as every earlier run).
      warmup: { type: 'string', default: '0' },
      // As bench/bystander.ts: node flags for this checkout's servers (a heap profile, a V8 option).
      'server-node-args': { type: 'string', default: '' },
      'alloc-profile': { type: 'string' },
      // --section NAME: the bench/RESULTS.md section written (default side-by-side), e.g. etcd-path for the etcd cells alone.
      section: { type: 'string', default: 'side-by-side' },
      pod: { type: 'string', default: 'minimal' },
      // --client node|lean: node:http(s) with a keep-alive Agent, as the reference load, or a lean socket per
      // client (bench/lib/lean-http.ts, loop64: about half the bench's CPU per create, on the server's cores).
      client: { type: 'string', default: 'node' },
    },
  });
  if (values.pod !== 'minimal' && values.pod !== 'daemonset') throw new Error(`--pod: minimal or daemonset, not ${values.pod}`);
  if (values.client !== 'node' && values.client !== 'lean') throw new Error(`--client: node or lean, not ${values.client}`);
  clientKind = values.client;
  if (values.pod === 'daemonset') podBody = (name) => daemonSetPod('load', name, 'node-1');
  const rounds = Number(values.rounds);
  const pods = Number(values.pods);
  const watchers = Number(values.watchers);
  const warmup = Number(values.warmup);
  const levels = values.concurrency!.split(',').map(Number);
  // Without dashes, so that node's parseArgs does not take the value for an option of its own.
  const baselineArgs = values['baseline-args']?.split(',').filter(Boolean).map((f) => `--${f}`) ?? [];
  const baseline = values.baseline ?? (baselineArgs.length ? repoRoot : undefined);
  // --cpu-prof DIR: every k8ts server of this checkout writes a V8 CPU profile there (node --cpu-prof), for reading the hot path.
  const nodeArgs = [...(values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : []), ...values['server-node-args']!.split(' ').filter(Boolean)];
  // The servers inherit this process's environment: the preload writes where K8TS_BENCH_ALLOC_PROFILE says.
  if (values['alloc-profile']) { process.env.K8TS_BENCH_ALLOC_PROFILE = values['alloc-profile']; nodeArgs.push(...allocSamplingNodeArgs()); }
  // --only raw,sqlite,watchers,etcd: run these cells alone (quick A/B while changing one path).
  const only = new Set(values.only?.split(',') ?? ['raw', 'sqlite', 'watchers', 'etcd']);
  const rows = new Map<string, Row>();
  const record = (name: string, concurrency: number, s: Sample) => {
    const key = `${name}@${concurrency}`;
    if (!rows.has(key)) rows.set(key, { name, concurrency, samples: [] });
    rows.get(key)!.samples.push(s);
    log(`${name} c=${concurrency}: ${Math.round(s.perSec)}/s p50 ${s.p50.toFixed(1)} ms p99 ${s.p99.toFixed(1)} ms errors ${s.errors}${s.cpuUs ? ` server CPU ${Math.round(s.cpuUs)} µs/create (main thread ${Math.round(s.mainUs ?? 0)}${s.etcdThreadUs !== undefined ? `, etcd client thread ${Math.round(s.etcdThreadUs)}` : ''})` : ''}${s.benchUs ? ` bench CPU ${Math.round(s.benchUs)} µs/create` : ''}${s.etcdUs ? ` etcd CPU ${Math.round(s.etcdUs)} µs/create` : ''}${s.perFsync ? ` etcd ${s.perFsync.toFixed(1)} writes/fsync (${s.fsyncMs!.toFixed(2)} ms)` : ''}${s.loopBusy !== undefined ? ` loop busy ${pct(s.loopBusy)} run queue ${pct(s.loopQueued!)} bench run queue ${pct(s.benchQueued!)}` : ''}`);
  };
  const load0 = loadavg()[0]!;
  for (let r = 1; r <= rounds; r++) {
    for (const c of levels) {
      log(`round ${r}, ${c} clients`);
      if (!values['no-etcd'] && only.has('raw')) record('raw etcd txn', c, await rawEtcd(pods, c));
      // This checkout and the baseline take turns at going first: the cell run first read 5-10% more
      // server CPU per create than the one after it in both orders (2026-12-05, load 12; `creates-2026-12-05`).
      const pair = async (mine: () => Promise<void>, theirs?: () => Promise<void>) => {
        if (theirs && r % 2 === 0) { await theirs(); await mine(); } else { await mine(); await theirs?.(); }
      };
      if (only.has('sqlite')) {
        await pair(async () => record('k8ts on SQLite', c, await k8ts(repoRoot, 'sqlite', pods, c, 0, [], nodeArgs, warmup)),
          baseline ? async () => record('baseline on SQLite', c, await k8ts(baseline, 'sqlite', pods, c, 0, baselineArgs, [], warmup)) : undefined);
      }
      if (watchers > 0 && only.has('watchers')) {
        await pair(async () => record(`k8ts on SQLite, ${watchers} watchers`, c, await k8ts(repoRoot, 'sqlite', pods, c, watchers, [], nodeArgs, warmup)),
          baseline ? async () => record(`baseline on SQLite, ${watchers} watchers`, c, await k8ts(baseline, 'sqlite', pods, c, watchers, baselineArgs, [], warmup)) : undefined);
      }
      if (!values['no-etcd'] && only.has('etcd')) {
        await pair(async () => record('k8ts on etcd', c, await k8ts(repoRoot, 'etcd', pods, c, 0, [], nodeArgs, warmup)),
          baseline ? async () => record('baseline on etcd', c, await k8ts(baseline, 'etcd', pods, c, 0, baselineArgs, [], warmup)) : undefined);
      }
    }
  }
  const raw = (c: number) => rows.get(`raw etcd txn@${c}`);
  const tableRows = [...rows.values()].map((row) => {
    const perSec = median(row.samples.map((s) => s.perSec));
    const ref = raw(row.concurrency);
    const ratio = ref && row.name !== 'raw etcd txn' ? `${(perSec / median(ref.samples.map((s) => s.perSec))).toFixed(2)}×` : '';
    return [row.name, String(row.concurrency), `**${Math.round(perSec).toLocaleString('en-US')}**`, row.samples.map((s) => Math.round(s.perSec)).join(', '),
      `${median(row.samples.map((s) => s.p50)).toFixed(1)} ms`, `${median(row.samples.map((s) => s.p99)).toFixed(1)} ms`,
      String(row.samples.reduce((a, s) => a + s.errors, 0)), ratio,
      row.name === 'raw etcd txn' ? '' : `${Math.round(median(row.samples.map((s) => s.cpuUs)))} µs`,
      row.name === 'raw etcd txn' ? '' : `${Math.round(median(row.samples.map((s) => s.mainUs ?? 0)))} µs`,
      row.samples.every((s) => s.etcdThreadUs !== undefined) ? `${Math.round(median(row.samples.map((s) => s.etcdThreadUs!)))} µs` : '',
      `${Math.round(median(row.samples.map((s) => s.benchUs ?? 0)))} µs`,
      row.samples[0]?.etcdUs ? `${Math.round(median(row.samples.map((s) => s.etcdUs ?? 0)))} µs` : '',
      row.name === 'raw etcd txn' ? '' : `${pct(median(row.samples.map((s) => s.loopBusy ?? 0)))} / ${pct(median(row.samples.map((s) => s.loopQueued ?? 0)))}`,
      pct(median(row.samples.map((s) => s.benchQueued ?? 0))),
      row.samples[0]?.perFsync ? `${median(row.samples.map((s) => s.perFsync ?? 0)).toFixed(1)} (${median(row.samples.map((s) => s.fsyncMs ?? 0)).toFixed(2)} ms)` : ''];
  });
  const body = [
    ...sectionHead(repoRoot, `## Side by side: k8ts and raw etcd${values.section === 'side-by-side' ? '' : ` (${values.section})`}`),
    `- Setup: ${pods} ${values.pod === 'daemonset' ? 'DaemonSet-shaped ' : ''}pod creates (HTTPS, keep-alive, admin client certificate; ${clientKind === 'lean' ? 'one lean socket per client, bench/lib/lean-http.ts' : 'node:https with a keep-alive Agent'}) per cell against a fresh \`k8ts server --controllers none\`${warmup ? ` after ${warmup} unmeasured pod creates (warm-up)` : ''}; raw etcd: the same number of create-if-absent \`/v3/kv/txn\` puts of a 1.4 KB value to a fresh private etcd (Debian's 3.4) through its JSON gateway; ${rounds} interleaved rounds, medians.${baseline ? ` Baseline: ${values.baseline ? `the checkout at \`${values.baseline}\` (built)` : 'this checkout'}${baselineArgs.length ? ` with \`${baselineArgs.join(' ')}\`` : ''}, same cells.` : ''} Load average at start: ${load0.toFixed(1)}.`,
    '',
    table(['Target', 'Clients', 'Creates/s (median)', 'Rounds', 'p50', 'p99', 'Errors', 'vs raw etcd', 'Server CPU per create', 'Main thread', 'etcd client thread', 'Bench CPU per create', 'etcd CPU per create', 'Main thread on CPU / on run queue', 'Bench on run queue', 'etcd writes per fsync (fsync)'], tableRows),
  ].join('\n');
  console.log(body);
  if (!values['no-write']) writeSection(resultsFile, values.section!, body);
}

main().catch((e) => { console.error(e); process.exit(1); });
