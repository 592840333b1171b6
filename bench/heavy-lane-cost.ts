/**
 * What the heavy lane costs per job and at its start, a child process (K8TS_HEAVY_LANE=process)
 * against a worker thread (the default), in rounds that alternate the two (docs/threads.md, "The
 * heavy lane in a process"). Each round starts a fresh pool of one worker, times its first job (the
 * start on first use included), then `--jobs` jobs of a `--kib` KiB JSON ConfigMap one after the
 * other: their latency (run() to answer), the serving thread's CPU per job (its schedstat: posting
 * the body, receiving and decoding the answer), and the RSS the lane adds (this process plus its
 * children, before the pool and after its jobs).
 *
 *   node dist/bench/heavy-lane-cost.js [--rounds=5] [--jobs=40] [--kib=128]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { HeavyPool } from '../src/apiserver/heavy/pool.js';
import type { ObjectBodyJob } from '../src/apiserver/heavy/object-body.js';
import type { LaneKind } from '../src/apiserver/heavy/lane-hosts.js';
import { benchArgs } from './lib/args.js';
import { fmtMs, median, percentile } from './lib/stats.js';
import { childPids } from './lib/bystander-rows.js';

const { values } = benchArgs('Heavy lane per-job latency, serving-thread CPU per job and RSS: a child process against a worker thread, alternating rounds.', {
  options: {
    rounds: { type: 'string', default: '5', help: 'rounds, each starting a fresh pool of each kind' },
    jobs: { type: 'string', default: '40', help: 'jobs per round after the first' },
    kib: { type: 'string', default: '128', help: 'the JSON ConfigMap body size, KiB' },
  },
});

const job = (bytes: number): ObjectBodyJob => {
  const data: Record<string, string> = {};
  for (let i = 0; i * 24 < bytes; i++) data[`key-${i}`] = 'value-0123456789';
  return {
    body: Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data })), type: 'application/json',
    into: { apiVersion: 'v1', kind: 'ConfigMap' }, endpoint: { group: '', version: 'v1', kind: 'ConfigMap' }, endpointApiVersion: 'v1', fieldValidation: 'Strict', builtIn: true,
  };
};

/** The serving (main) thread's time on a CPU, ms. */
const loopCpuMs = (): number => Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
const rssMiB = (pid: number): number => { try { return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024; } catch { return 0; } };
const treeRssMiB = (): number => rssMiB(process.pid) + childPids(process.pid).reduce((n, c) => n + rssMiB(c), 0);

interface Round { firstMs: number; p50Ms: number; p99Ms: number; loopCpuUs: number; rssAddedMiB: number }

async function round(kind: LaneKind, jobs: number, bytes: number): Promise<Round> {
  const keep = setInterval(() => {}, 60_000); // the lane is unref'd
  const rssBefore = treeRssMiB();
  const pool = new HeavyPool({ size: 1, kind });
  let t = performance.now();
  await pool.run(job(bytes));
  const firstMs = performance.now() - t;
  const lat: number[] = [];
  const cpu0 = loopCpuMs();
  for (let i = 0; i < jobs; i++) {
    const j = job(bytes); // built before the clock: the body is the client's, not the lane's cost
    t = performance.now();
    await pool.run(j);
    lat.push(performance.now() - t);
  }
  const cpuMs = loopCpuMs() - cpu0;
  const rssAddedMiB = treeRssMiB() - rssBefore;
  await pool.close();
  clearInterval(keep);
  // Building the bodies is on this thread too: measured alone below and taken off.
  const c1 = loopCpuMs();
  for (let i = 0; i < jobs; i++) job(bytes);
  const buildMs = loopCpuMs() - c1;
  return { firstMs, p50Ms: percentile(lat, 50), p99Ms: percentile(lat, 99), loopCpuUs: ((cpuMs - buildMs) / jobs) * 1000, rssAddedMiB };
}

const rounds = Number(values.rounds);
const jobs = Number(values.jobs);
const bytes = Number(values.kib) * 1024;
console.log(`load ${loadavg().map((l) => l.toFixed(1)).join(' ')}; body ${job(bytes).body.byteLength} bytes; ${rounds} rounds of ${jobs} jobs`);
const byKind: Record<LaneKind, Round[]> = { process: [], thread: [] };
for (let r = 0; r < rounds; r++) {
  for (const kind of (r % 2 ? ['thread', 'process'] : ['process', 'thread']) as LaneKind[]) {
    const res = await round(kind, jobs, bytes);
    byKind[kind].push(res);
    console.log(`round ${r + 1} ${kind}: first job ${fmtMs(res.firstMs)}, p50 ${fmtMs(res.p50Ms)}, p99 ${fmtMs(res.p99Ms)}, serving thread ${res.loopCpuUs.toFixed(0)} µs per job, RSS +${res.rssAddedMiB.toFixed(0)} MiB`);
  }
}
console.log('\n| lane | first job (start included) | per job p50 | per job p99 | serving thread CPU per job | RSS added |\n| --- | --- | --- | --- | --- | --- |');
for (const kind of ['process', 'thread'] as LaneKind[]) {
  const rs = byKind[kind];
  const m = (f: (r: Round) => number) => median(rs.map(f));
  console.log(`| ${kind} | ${fmtMs(m((r) => r.firstMs))} | ${fmtMs(m((r) => r.p50Ms))} | ${fmtMs(m((r) => r.p99Ms))} | ${m((r) => r.loopCpuUs).toFixed(0)} µs | ${m((r) => r.rssAddedMiB).toFixed(0)} MiB |`);
}
console.log(`(medians over ${rounds} rounds; load at end ${loadavg().map((l) => l.toFixed(1)).join(' ')})`);
