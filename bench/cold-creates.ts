/**
 * What a FRESH server's first pod creates cost it (issue 20's reference load: "against a fresh
 * `k8ts server --controllers none`", no warm-up). Each run starts a server as the reference does
 * (`node dist/src/cli/main.js server --data-dir D --port P --controllers none`, /readyz through
 * kubectl, `kubectl create ns load`), then one client process creates N pods with C keep-alive
 * clients and lists them, and the server is stopped. Measured: the server's CPU over the client's
 * run, all threads, its main thread (the serving loop) and the rest (V8's compiler and GC threads,
 * libuv's pool) from /proc/PID/stat and /proc/PID/task/PID/stat; and the client's creates/s.
 * Builds are interleaved run by run (the order alternating), medians over the runs per build.
 *
 * On two cores the rest is mostly TurboFan compiling the create path while the clients wait for the
 * same cores, so the all-threads figure is the one to cut; throughput is noisier (the client is a
 * fresh process with its own cold JIT).
 *
 *   node dist/bench/cold-creates.js [--runs 5] [--pods 2000] [--concurrency 16]
 *     [--baseline /path/to/other/built/checkout] [--client PATH.mjs] [--server-node-args "--cpu-prof ..."] [--baseline-node-args ...] [--write]
 *
 * `--client` (or K8TS_COLD_CLIENT): a load client called as `node PATH ADMIN.CONF --pods N
 * --concurrency C` that prints one JSON line with `createsPerSec`, such as the steering's reference
 * client; without it the in-repo equivalent (bench/lib/cold-client.ts) runs.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCpuMs, readThreadCpuMs } from './lib/server.js';
import { median } from './lib/stats.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);

const args = benchArgs('A fresh server\'s CPU (all threads, main thread, others) over its first pod creates, builds interleaved.', {
  options: {
    runs: { type: 'string', default: '5', help: 'fresh servers per build' },
    pods: { type: 'string', default: '2000', help: 'creates per run' },
    concurrency: { type: 'string', default: '16', help: 'concurrent clients' },
    baseline: { type: 'string', help: 'another built checkout, interleaved with this one' },
    client: { type: 'string', help: 'load client (.mjs/.js) called as `node PATH ADMIN.CONF --pods N --concurrency C`; default K8TS_COLD_CLIENT, else the in-repo one' },
    'server-node-args': { type: 'string', help: 'node flags for this build\'s servers (space-separated), e.g. "--cpu-prof --cpu-prof-dir=DIR"' },
    'baseline-node-args': { type: 'string', help: 'node flags for the baseline\'s servers (the baseline may be this checkout: one build, two sets of flags)' },
    write: { type: 'boolean', default: false, help: 'write the section cold-creates to bench/RESULTS.md' },
  },
});

interface Build { label: string; root: string; nodeArgs: string[] }
interface Sample { build: string; allMs: number; mainMs: number; perSec: number; p99: number; errors: number; load: number }

const freePort = (): Promise<number> => new Promise((resolve, reject) => {
  const s = createServer();
  s.once('error', reject);
  s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
});

const kubectl = (conf: string, ...rest: string[]) => execFileSync('kubectl', ['--kubeconfig', conf, ...rest], { stdio: ['ignore', 'pipe', 'ignore'] });

/** As the reference: poll until admin.conf exists and /readyz answers through kubectl, then create the namespace. */
async function waitReady(dir: string, proc: ChildProcess): Promise<void> {
  const conf = join(dir, 'admin.conf');
  for (let i = 0; i < 300; i++) {
    if (proc.exitCode !== null) throw new Error(`server exited (${proc.exitCode})`);
    try {
      if (existsSync(conf)) { kubectl(conf, 'get', '--raw', '/readyz'); kubectl(conf, 'create', 'ns', 'load'); return; }
    } catch { /* not ready yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server not ready in 30 s');
}

function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => { proc.once('exit', () => resolve()); proc.kill('SIGTERM'); });
}

function runClient(client: string, conf: string, pods: number, concurrency: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [client, conf, '--pods', String(pods), '--concurrency', String(concurrency)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    c.on('exit', (code) => (code === 0 ? resolve(out.trim().split('\n').pop() ?? '') : reject(new Error(`client exited ${code}`))));
  });
}

async function one(build: Build, client: string, pods: number, concurrency: number): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-cold-'));
  const port = await freePort();
  const proc = spawn(process.execPath, [...build.nodeArgs, join(build.root, 'dist/src/cli/main.js'), 'server', '--data-dir', dir, '--port', String(port), '--controllers', 'none'],
    { stdio: 'ignore' });
  try {
    await waitReady(dir, proc);
    const pid = proc.pid!;
    const all0 = readCpuMs(pid), main0 = readThreadCpuMs(pid);
    const line = JSON.parse(await runClient(client, join(dir, 'admin.conf'), pods, concurrency)) as { createsPerSec: number; p99ms: number; errors: number };
    const allMs = readCpuMs(pid) - all0, mainMs = readThreadCpuMs(pid) - main0;
    return { build: build.label, allMs, mainMs, perSec: line.createsPerSec, p99: line.p99ms, errors: line.errors, load: loadavg()[0]! };
  } finally {
    await stop(proc);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const runs = Number(args.values.runs), pods = Number(args.values.pods), concurrency = Number(args.values.concurrency);
  const client = args.values.client ?? process.env.K8TS_COLD_CLIENT ?? join(repoRoot, 'dist/bench/lib/cold-client.js');
  const flags = (s?: string) => s?.split(' ').filter(Boolean) ?? [];
  const builds: Build[] = [{ label: 'this', root: repoRoot, nodeArgs: flags(args.values['server-node-args']) }];
  if (args.values.baseline) builds.push({ label: 'baseline', root: args.values.baseline, nodeArgs: flags(args.values['baseline-node-args']) });
  const samples: Sample[] = [];
  for (let r = 0; r < runs; r++) {
    const order = r % 2 === 0 ? builds : [...builds].reverse();
    for (const b of order) {
      const s = await one(b, client, pods, concurrency);
      samples.push(s);
      log(`run ${r + 1} ${b.label}: server CPU ${s.allMs.toFixed(0)} ms (main ${s.mainMs.toFixed(0)}, others ${(s.allMs - s.mainMs).toFixed(0)}), ${s.perSec} creates/s, p99 ${s.p99} ms, errors ${s.errors}, load ${s.load.toFixed(1)}`);
    }
  }
  const rows = builds.map((b) => {
    const mine = samples.filter((s) => s.build === b.label);
    const col = (f: (s: Sample) => number, digits = 0) => `${median(mine.map(f)).toFixed(digits)} (${Math.min(...mine.map(f)).toFixed(digits)}-${Math.max(...mine.map(f)).toFixed(digits)})`;
    return [`${b.label} (${b.root}${b.nodeArgs.length ? ` ${b.nodeArgs.join(' ')}` : ''})`, col((s) => s.allMs), col((s) => s.mainMs), col((s) => s.allMs - s.mainMs), col((s) => s.perSec), col((s) => s.p99, 1), String(mine.reduce((n, s) => n + s.errors, 0))];
  });
  const text = table(['build', 'server CPU, all threads (ms)', 'main thread (ms)', 'other threads (ms)', 'creates/s', 'p99 (ms)', 'errors'], rows);
  console.log(text);
  if (args.values.write) {
    const head = sectionHead(repoRoot, `## A fresh server's first ${pods} creates at ${concurrency} clients (bench/cold-creates.ts)`);
    writeSection(join(repoRoot, 'bench', 'RESULTS.md'), 'cold-creates', [...head, '', `Medians (min-max) of ${runs} fresh servers per build, client \`${client.split('/').pop()}\`.`, '', text].join('\n'));
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
