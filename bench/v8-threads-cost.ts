/**
 * What lowering V8's platform threads costs the serving loop (issue 19, docs/threads.md
 * "Priorities"). Once the heavy lane has lowered them (src/apiserver/heavy/pool.ts), the loop's
 * own parallel scavenges, concurrent marking and background compiles run on threads at the
 * background nice too. This measures pod creates on two servers of one build, one with the
 * platform threads lowered and one without, each sent one large body first (the 250,000-key JSON
 * ConfigMap of attack 3b: the heavy lane starts, and with it the lowering) and warmed with
 * unmeasured creates; then interleaved rounds of pod creates at each concurrency, the servers
 * alternating which goes first. Per create: the server's CPU (all threads), the serving thread's,
 * the platform threads' and the rest; creates/s and latency.
 *
 *   node dist/bench/v8-threads-cost.js [--rounds=5] [--pods=2000] [--concurrency=16,64] [--warmup=2000]
 *     [--lowered-env="K8TS_HEAVY_LOWERS_V8_THREADS=1"] [--kept-env="K8TS_HEAVY_LOWERS_V8_THREADS=0"]
 *     [--write] [--section=v8-threads-cost]
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient } from './lib/client.js';
import { createPods, type CreateRun } from './lib/load.js';
import { readCpuMs, startServer, type ServerProcess } from './lib/server.js';
import { threadClasses } from './lib/bystander-rows.js';
import { fmtMs, fmtRate, median } from './lib/stats.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { jsonConfigMap } from '../test/e2e/large-bodies.js';
import { gcLogNodeArgs, readGcPauses } from './lib/gc-pauses.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);

interface Target { label: string; server: ServerProcess; client: ApiClient; gcLog: string }
interface Cell { label: string; concurrency: number; run: CreateRun; loopUs: number; platformUs: number; otherUs: number; loadavg: number;
  /** The serving thread's GC pauses in the cell: total per create (µs), the longest (ms), their count. */
  gcUs: number; gcMaxMs: number; gcs: number }

/** Nice values of the process's threads, the first five born after the main thread (V8's platform threads) first. */
function platformNices(pid: number): number[] {
  const tasks = readdirSync(`/proc/${pid}/task`).flatMap((t) => {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return [{ tid: Number(t), born: Number(f[19]), nice: Number(f[16]), comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) }];
    } catch { return []; }
  });
  return tasks.filter((t) => t.tid !== pid && !t.comm.startsWith('k8ts-heavy')).sort((a, b) => a.born - b.born || a.tid - b.tid).slice(0, 5).map((t) => t.nice);
}

async function cell(t: Target, concurrency: number, count: number, prefix: string): Promise<Cell> {
  const pid = t.server.pid;
  const before = threadClasses(pid);
  const from = Date.now();
  const run = await createPods(t.client, () => readCpuMs(pid), { namespace: 'default', prefix, from: 0, count, concurrency });
  const after = threadClasses(pid);
  await new Promise((r) => setTimeout(r, 300)); // the server's GC log is flushed every 250 ms
  const pauses = readGcPauses(t.gcLog, from, Date.now() - 300);
  const per = (k: 'loop' | 'platform' | 'heavy' | 'other') => ((after[k].runMs - before[k].runMs) * 1000) / count;
  const c = { label: t.label, concurrency, run, loopUs: per('loop'), platformUs: per('platform'), otherUs: per('other') + per('heavy'), loadavg: loadavg()[0]!,
    gcUs: (pauses.reduce((n, p) => n + p.ms, 0) * 1000) / count, gcMaxMs: Math.max(0, ...pauses.map((p) => p.ms)), gcs: pauses.length };
  log(`  ${t.label} ${concurrency} clients: ${fmtRate(run.perSec)}/s, ${Math.round(run.cpuUsPerOp)} µs/create (loop ${Math.round(c.loopUs)}, platform ${Math.round(c.platformUs)}, other ${Math.round(c.otherUs)}), GC ${c.gcs} pauses, ${Math.round(c.gcUs)} µs/create, longest ${fmtMs(c.gcMaxMs)}, p99 ${fmtMs(run.p99)}, load ${c.loadavg.toFixed(1)}`);
  return c;
}

async function main(): Promise<void> {
  const { values } = benchArgs("What lowering V8's platform threads costs the serving loop.", { options: {
    rounds: { type: 'string', default: '5' }, pods: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '16,64' }, warmup: { type: 'string', default: '2000' },
    'lowered-env': { type: 'string', default: 'K8TS_HEAVY_LOWERS_V8_THREADS=1' }, 'kept-env': { type: 'string', default: 'K8TS_HEAVY_LOWERS_V8_THREADS=0' },
    write: { type: 'boolean', default: false }, section: { type: 'string', default: 'v8-threads-cost' } } });
  const env = (vars: string) => Object.fromEntries(vars.split(' ').filter(Boolean).map((v) => [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)]));
  const rounds = Number(values.rounds);
  const pods = Number(values.pods);
  const concurrencies = values.concurrency.split(',').map(Number);
  const work = mkdtempSync(join(tmpdir(), 'k8ts-bench-v8cost-'));
  const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
  const load0 = loadavg().map((l) => l.toFixed(1)).join(' ');
  const builds = [{ label: 'lowered', env: env(values['lowered-env']) }, { label: 'kept', env: env(values['kept-env']) }];
  const gcLog = (label: string) => join(work, `${label}.gc`);
  const servers = await Promise.all(builds.map((b) => startServer({ cliPath, dataDir: join(work, b.label), serverArgs: ['--controllers', 'none'], nodeArgs: gcLogNodeArgs(),
    env: { ...b.env, K8TS_BENCH_GC_LOG: gcLog(b.label) } })));
  try {
    const targets: Target[] = servers.map((s, i) => ({ label: builds[i]!.label, server: s, client: new ApiClient(s.creds, 64), gcLog: gcLog(builds[i]!.label) }));
    const nices: string[] = [];
    for (const t of targets) {
      const big = jsonConfigMap();
      const r = await t.client.request('POST', big.path, { body: big.body, contentType: big.contentType });
      nices.push(`${t.label}: the large body answered ${r.status}; platform threads' nice ${platformNices(t.server.pid).join(',')}`);
      log(nices.at(-1)!);
      await createPods(t.client, () => readCpuMs(t.server.pid), { namespace: 'default', prefix: 'warm', from: 0, count: Number(values.warmup), concurrency: 64 });
    }
    const cells: Cell[] = [];
    for (let r = 0; r < rounds; r++) {
      for (const c of concurrencies) {
        for (const t of r % 2 === 0 ? targets : [...targets].reverse()) cells.push(await cell(t, c, pods, `r${r}c${c}`));
      }
    }
    const rows = concurrencies.flatMap((c) => targets.map((t) => {
      const mine = cells.filter((x) => x.label === t.label && x.concurrency === c);
      const m = (f: (x: Cell) => number) => median(mine.map(f));
      return [t.label, String(c), fmtRate(m((x) => x.run.perSec)), mine.map((x) => fmtRate(x.run.perSec)).join(', '),
        `${Math.round(m((x) => x.run.cpuUsPerOp))} µs`, mine.map((x) => Math.round(x.run.cpuUsPerOp)).join(', '),
        `${Math.round(m((x) => x.loopUs))} µs`, `${Math.round(m((x) => x.platformUs))} µs`, `${Math.round(m((x) => x.otherUs))} µs`,
        `${Math.round(m((x) => x.gcUs))} µs`, fmtMs(m((x) => x.gcMaxMs)),
        fmtMs(m((x) => x.run.p50)), fmtMs(m((x) => x.run.p99)), mine.map((x) => x.loadavg.toFixed(1)).join(', ')];
    }));
    const md = [
      ...sectionHead(repoRoot, '## The cost of lowering V8\'s platform threads to pod creates (bench/v8-threads-cost.ts)'),
      `- Setup: two servers of this build (\`--controllers none\`, SQLite), \`lowered\` with \`${values['lowered-env']}\`, \`kept\` with \`${values['kept-env']}\`; each sent one 250,000-key JSON ConfigMap (the heavy lane starts) and ${values.warmup} unmeasured pod creates; then ${rounds} rounds of ${pods} pod creates per concurrency, the servers alternating which goes first. Medians over the rounds; the per-thread CPU from /proc/<pid>/task/*/schedstat, the serving thread's GC pauses from a PerformanceObserver preloaded into the server (bench/lib/gc-pauses.ts). Load average at start: ${load0}.`,
      ...nices.map((n) => `- ${n}`),
      '',
      table(['server', 'clients', 'creates/s (median)', 'each round', 'server CPU per create (median)', 'each round', 'serving thread', 'V8 platform threads', 'other threads', 'serving thread GC pauses per create', 'longest GC pause', 'p50', 'p99', 'load (1 min) per round'], rows),
    ].join('\n');
    console.log(md);
    if (values.write) writeSection(join(repoRoot, 'bench', 'RESULTS.md'), values.section, md);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
