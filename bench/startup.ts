/**
 * Start-up: time from spawning `k8ts up` (and `k8ts server`) to the first
 * `/readyz` 200, in a fresh data directory (PKI and database created) and in
 * an existing one (the same directory again); the CPU the process spent until
 * then; its RSS after 10 s idle (worker thread included: one process); and
 * the wall time of `k8ts --help` and `k8ts server --help` (module loading).
 * Target: `k8ts up` spawn → /readyz 200 under 0.5 s, idle RSS under 100 MB.
 *
 * Options: `--runs N` (default 5; the median is reported), `--baseline PATH`
 * (another build's main.js — e.g. dist/src/cli/main.js, the unbundled tree —
 * measured first, to compare). Results go to
 * bench/RESULTS.md, section "startup".
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { request } from 'node:https';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sectionHead, table, writeSection } from './lib/results.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const arg = (name: string) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : undefined; };
const runs = Number(arg('--runs') ?? 5);
/** What `k8ts` and `npm start` run: the bundle (scripts/bundle.mjs). */
const thisBuild = join(repoRoot, 'dist', 'bundle', 'main.js');
/** Builds measured: this one, and with `--baseline PATH` another build's main.js (before/after in one run). */
const clis = [...(arg('--baseline') ? [resolve(arg('--baseline')!)] : []), thisBuild];
const clockTicks = 100; // USER_HZ on Linux

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]!; };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function freePort(): Promise<number> {
  return new Promise((done) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => done(p)); });
  });
}

/** One GET /readyz; /readyz is public (system:public-info-viewer), so no credentials. */
function readyz(port: number): Promise<number> {
  return new Promise((done) => {
    const req = request({ host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false, agent: false, timeout: 1000 }, (res) => {
      res.resume();
      done(res.statusCode ?? 0);
    });
    req.on('error', () => done(0));
    req.on('timeout', () => { req.destroy(); done(0); });
    req.end();
  });
}

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
}

function rssMB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

interface Sample { readyMs: number; cpuMs: number; rssMB?: number }

async function startOnce(cli: string, command: 'up' | 'server', dataDir: string, measureIdle: boolean): Promise<Sample> {
  const port = await freePort();
  const args = command === 'up' ? ['up', '--data-dir', dataDir, '--port', String(port)] : ['server', '--data-dir', dataDir, '--port', String(port)];
  const started = performance.now();
  const proc: ChildProcess = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  try {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`k8ts ${command} exited ${proc.exitCode}: ${stderr.slice(-2000)}`);
      if (await readyz(port) === 200) break;
      if (performance.now() - started > 60_000) throw new Error(`k8ts ${command} not ready in 60 s: ${stderr.slice(-2000)}`);
      await sleep(5);
    }
    const sample: Sample = { readyMs: performance.now() - started, cpuMs: cpuMs(proc.pid!) };
    if (measureIdle) { await sleep(10_000); sample.rssMB = rssMB(proc.pid!); }
    return sample;
  } finally {
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await Promise.race([exited, sleep(10_000)]);
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  }
}

async function timeHelp(cli: string, args: string[]): Promise<number> {
  const started = performance.now();
  await new Promise((r) => execFile(process.execPath, [cli, ...args], r));
  return performance.now() - started;
}

interface Row { what: string; samples: Sample[] }

async function measure(cli: string, command: 'up' | 'server', fresh: boolean): Promise<Row> {
  const samples: Sample[] = [];
  const shared = fresh ? undefined : mkdtempSync(join(tmpdir(), 'k8ts-bench-startup-'));
  if (shared) await startOnce(cli, command, shared, false); // creates the PKI and the database
  for (let i = 0; i < runs; i++) {
    const dir = shared ?? mkdtempSync(join(tmpdir(), 'k8ts-bench-startup-'));
    samples.push(await startOnce(cli, command, dir, i === runs - 1));
    if (!shared) rmSync(dir, { recursive: true, force: true });
  }
  if (shared) rmSync(shared, { recursive: true, force: true });
  const row = { what: `${buildName(cli)}: \`k8ts ${command}\`, ${fresh ? 'fresh' : 'existing'} data dir`, samples };
  console.log(row.what, samples.map((s) => `${s.readyMs.toFixed(0)} ms`).join(', '), `idle RSS ${samples.at(-1)!.rssMB?.toFixed(0)} MB`);
  return row;
}

const buildName = (cli: string) => (cli === thisBuild ? 'this build' : `baseline (${cli})`);

async function measureBuild(cli: string): Promise<{ rows: Row[]; help: string }> {
  const rows = [await measure(cli, 'up', true), await measure(cli, 'up', false), await measure(cli, 'server', true), await measure(cli, 'server', false)];
  const help: number[] = [];
  const serverHelp: number[] = [];
  for (let i = 0; i < runs; i++) { help.push(await timeHelp(cli, ['--help'])); serverHelp.push(await timeHelp(cli, ['server', '--help'])); }
  return { rows, help: `${buildName(cli)}: \`k8ts --help\` median ${ms(median(help))} (min ${ms(Math.min(...help))}); \`k8ts server --help\` (loads the server's modules) median ${ms(median(serverHelp))} (min ${ms(Math.min(...serverHelp))}).` };
}

const ms = (x: number) => `${Math.round(x)} ms`;

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!;
  const results = [];
  for (const cli of clis) results.push(await measureBuild(cli));
  const rows = results.flatMap((r) => r.rows);
  const body = [
    ...sectionHead(repoRoot, '## Start-up: spawn to /readyz 200, idle RSS (bench/startup.ts)'),
    `- Load average (1 min) before: ${loadBefore.toFixed(1)}`,
    `- Setup: ${runs} runs per row; each spawns \`node main.js up|server --data-dir D --port P\` (controllers: all) and polls GET /readyz every 5 ms; a fresh row uses a new empty data dir per run (PKI keys generated, database created), an existing row the same dir again after one start that created it. CPU = user + system of the process (all its threads) at the first 200. Idle RSS = VmRSS of the process 10 s after ready, in the last run. Target: \`k8ts up\` under 0.5 s, idle RSS under 100 MB. Wall times move with the load average on this shared 2-core machine; CPU time much less.`,
    '',
    table(['Build: start', 'Median to /readyz 200', 'Min', 'Max', 'Median CPU to ready', 'Idle RSS after 10 s'], rows.map((r) => {
      const t = r.samples.map((s) => s.readyMs);
      return [r.what, `**${ms(median(t))}**`, ms(Math.min(...t)), ms(Math.max(...t)), ms(median(r.samples.map((s) => s.cpuMs))), `${r.samples.at(-1)!.rssMB?.toFixed(0)} MB`];
    })),
    '',
    ...results.map((r) => `- ${r.help}`),
    '',
    `Load average (1 min) at end: ${loadavg()[0]!.toFixed(1)}.`,
  ].join('\n');
  if (!process.argv.includes('--no-write')) writeSection(resultsFile, 'startup', body);
  console.log(body);
}

main().catch((e) => { console.error(e); process.exit(1); });
