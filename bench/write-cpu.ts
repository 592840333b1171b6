/**
 * Server CPU per pod create as a server warms up: the serving thread against the rest of the
 * process (issue #20).
 *
 *   node dist/bench/write-cpu.js [--rounds 2] [--phases 2000,2000,4000,8000,8000] [--concurrency 16] [--no-write]
 *
 * Per round a fresh `k8ts server --controllers none` (SQLite, HTTPS, this checkout); pod creates
 * (the side-by-side bench's pod) with C keep-alive clients, in consecutive phases of the given
 * sizes on the same server. For each phase: server CPU per create (user + system, /proc), the
 * main thread's share (/proc/<pid>/task/<pid>/stat: the serving loop) and the rest (V8's worker
 * threads, which run TurboFan's optimizing compiles and the concurrent parts of garbage
 * collection, libuv's pool with the WAL's fdatasync, the checkpoint worker).
 *
 * Why: the side-by-side bench measures 2,000 creates after 2,000 of warm-up; a CPU profile of
 * V8's worker threads there (perf, --perf-basic-prof) showed them compiling. A phase's "rest" that
 * falls as the server ages is that one-off work, not a cost per write.
 */
import https from 'node:https';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCpuMs, readThreadCpuMs, startServer } from './lib/server.js';
import { median } from './lib/stats.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);

interface PhaseSample { from: number; to: number; cpuUs: number; mainUs: number; perSec: number }

function post(agent: https.Agent, url: URL, path: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request({
      host: url.hostname, port: url.port, path, method: 'POST', agent,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': Buffer.byteLength(body) },
    }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode ?? 0)); });
    req.on('error', reject);
    req.end(body);
  });
}

async function drive(from: number, count: number, concurrency: number, task: (i: number) => Promise<boolean>): Promise<void> {
  let next = from;
  const end = from + count;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < end) if (!(await task(next++))) throw new Error('a create failed');
  }));
}

/** The CPU of every thread but the main one, in ms (threads that ended are not counted: none end here). */
function otherThreadsCpuMs(pid: number): number {
  let ms = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) if (Number(tid) !== pid) ms += readThreadCpuMs(pid, Number(tid));
  return ms;
}

async function round(phases: number[], concurrency: number): Promise<PhaseSample[]> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-wcpu-'));
  const server = await startServer({ cliPath: join(repoRoot, 'dist', 'src', 'cli', 'main.js'), dataDir: join(dir, 'data'), serverArgs: ['--controllers', 'none'] });
  try {
    const url = new URL(server.creds.server);
    const agent = new https.Agent({ keepAlive: true, maxSockets: concurrency + 2, ca: server.creds.ca, cert: server.creds.cert, key: server.creds.key });
    if (await post(agent, url, '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'load' } })) !== 201) throw new Error('namespace');
    const stamp = Date.now();
    const create = async (i: number) => (await post(agent, url, '/api/v1/namespaces/load/pods', JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${stamp}-${i}`, labels: { load: 'yes' } },
      spec: { containers: [{ name: 'c', image: 'busybox' }], schedulerName: 'no-such-scheduler' },
    }))) === 201;
    const samples: PhaseSample[] = [];
    let at = 0;
    for (const n of phases) {
      const cpu0 = readCpuMs(server.pid);
      const main0 = readThreadCpuMs(server.pid);
      const t0 = process.hrtime.bigint();
      await drive(at, n, concurrency, create);
      const secs = Number(process.hrtime.bigint() - t0) / 1e9;
      samples.push({ from: at, to: at + n, cpuUs: ((readCpuMs(server.pid) - cpu0) * 1000) / n, mainUs: ((readThreadCpuMs(server.pid) - main0) * 1000) / n, perSec: n / secs });
      at += n;
      const s = samples[samples.length - 1]!;
      log(`creates ${s.from}-${s.to}: server ${Math.round(s.cpuUs)} µs/create, main ${Math.round(s.mainUs)}, rest ${Math.round(s.cpuUs - s.mainUs)} (other threads now ${Math.round(otherThreadsCpuMs(server.pid))} ms), ${Math.round(s.perSec)}/s, load ${loadavg()[0]!.toFixed(1)}`);
    }
    agent.destroy();
    return samples;
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = benchArgs('Server CPU per pod create as a server warms up: serving thread against the rest.', { options: {
    rounds: { type: 'string', default: '2' }, phases: { type: 'string', default: '2000,2000,4000,8000,8000' },
    concurrency: { type: 'string', default: '16' }, 'no-write': { type: 'boolean', default: false },
  } });
  const phases = values.phases!.split(',').map(Number);
  const concurrency = Number(values.concurrency);
  const load0 = loadavg()[0]!;
  const rounds: PhaseSample[][] = [];
  for (let r = 1; r <= Number(values.rounds); r++) {
    log(`round ${r}`);
    rounds.push(await round(phases, concurrency));
  }
  const load1 = loadavg()[0]!;
  const rows = phases.map((_, i) => {
    const s = rounds.map((r) => r[i]!);
    const cpu = median(s.map((x) => x.cpuUs));
    const main = median(s.map((x) => x.mainUs));
    return [`${s[0]!.from.toLocaleString('en-US')}–${s[0]!.to.toLocaleString('en-US')}`, `**${Math.round(cpu)}**`, s.map((x) => Math.round(x.cpuUs)).join(', '),
      String(Math.round(main)), s.map((x) => Math.round(x.mainUs)).join(', '), String(Math.round(cpu - main)), String(Math.round(median(s.map((x) => x.perSec))))];
  });
  const body = [
    ...sectionHead(repoRoot, '## Server CPU per pod create as the server warms up: main thread and the rest (bench/write-cpu.ts, issue #20)'),
    `- Setup (phases ${values.phases}, ${concurrency} clients): per round a fresh \`k8ts server --controllers none\` (SQLite, HTTPS); pod creates (side-by-side's pod) with ${concurrency} keep-alive clients in consecutive phases on one server; CPU from /proc: the whole process, its main thread (the serving loop), and the rest (V8's worker threads: TurboFan compiles, concurrent GC; libuv's pool: the WAL fsync). Medians over ${rounds.length} rounds. Load average ${load0.toFixed(1)} at start, ${load1.toFixed(1)} at end.`,
    '',
    table(['Creates (phase)', 'Server CPU µs per create (median)', 'Rounds', 'Main thread µs', 'Rounds (main)', 'Rest µs', 'Creates/s'], rows),
  ].join('\n');
  console.log(body);
  if (!values['no-write']) writeSection(resultsFile, 'write-cpu', body);
}

main().catch((e) => { console.error(e); process.exit(1); });
