/**
 * Start-up: time from spawning `k8ts up` (and `k8ts server`) to the first
 * `/readyz` 200, in a fresh data directory (PKI and database created) and in
 * an existing one (the same directory again); the CPU the process spent until
 * then; its idle RSS (worker thread included: one process), once 10 s have
 * passed since ready and since its controller manager and scheduler lead
 * (the median of 20 readings over 5 s); and
 * the wall time of `k8ts --help` and `k8ts server --help` (module loading).
 * One more row, `k8ts up`'s first start ever: a fresh data directory and no
 * V8 code cache beside the bundle (src/cli/launcher.ts; removed before each
 * run, and written again by it), as after an install on another node version.
 * Target: `k8ts up` spawn → /readyz 200 under 0.5 s, idle RSS under 100 MB.
 *
 * Options: `--runs N` (default 5; the median is reported), `--idle-runs N`
 * (default 1: how many of a row's last runs measure idle RSS), `--baseline PATH`
 * (another build's main.js — e.g. dist/src/cli/main.js, the unbundled tree —
 * to compare; repeatable, to bisect several builds in one run; each row's runs
 * alternate between the builds, baselines first), `--rows LIST` (some of the
 * rows only, e.g. `up-existing` while bisecting a restart). Results go to
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
import { benchArgs } from './lib/args.js';

/** The rows, in the order they run: `k8ts up`'s first start ever, then fresh and existing data dirs of `up` and `server`, then `--help`. */
const allRows = ['up-first', 'up-fresh', 'up-existing', 'server-fresh', 'server-existing', 'help'] as const;
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const { values: opts } = benchArgs('Start-up time, CPU and idle RSS of `k8ts up` and `k8ts server`.', {
  options: {
    runs: { type: 'string', help: 'runs per row (default 5)' },
    'idle-runs': { type: 'string', help: "how many of a row's last runs also measure idle RSS, 10 s each (default 1)" },
    baseline: { type: 'string', multiple: true, help: "another build's PATH/main.js, measured in interleaved runs" },
    rows: { type: 'string', help: `comma-separated rows to measure, of ${allRows.join(', ')} (default all)` },
    'no-write': { type: 'boolean', help: 'print only; leave bench/RESULTS.md alone' },
  },
});
const runs = Number(opts.runs ?? 5);
/** How many of a row's last runs also measure idle RSS (10 s each); the median is reported. */
const idleRuns = Math.min(runs, Number(opts['idle-runs'] ?? 1));
/** What `k8ts` and `npm start` run: the bundle (scripts/bundle.mjs). */
const thisBuild = join(repoRoot, 'dist', 'bundle', 'main.js');
/** Builds measured: this one, and with `--baseline PATH` another build's main.js (before/after in one run). */
const clis = [...(opts.baseline ?? []).map((p) => resolve(p)), thisBuild];
const rowsWanted = new Set(opts.rows ? opts.rows.split(',') : allRows);
for (const r of rowsWanted) {
  if (!(allRows as readonly string[]).includes(r)) { console.error(`--rows: unknown row ${r} (one of ${allRows.join(', ')})`); process.exit(2); }
}
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
    if (measureIdle) {
      await sleep(10_000);
      // Idle with its control loops running: on an existing data directory they wait for the last
      // start's Leases to expire (15 s), and a reading before that left out their informers and connections.
      await leading(() => stderr, proc, command);
      sample.rssMB = await idleRssMB(proc.pid!);
    }
    return sample;
  } finally {
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await Promise.race([exited, sleep(10_000)]);
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  }
}

/**
 * The median of 20 VmRSS readings 250 ms apart: an idle server's RSS moves by a few MB within
 * seconds (V8's new space grown for a burst of allocation, then shrunk), so one reading said as
 * much about that moment as about the build.
 */
async function idleRssMB(pid: number): Promise<number> {
  const readings: number[] = [];
  for (let i = 0; i < 20; i++) { readings.push(rssMB(pid)); await sleep(250); }
  return median(readings);
}

/** The controller manager and the scheduler each logged that it leads (JSON log lines on stderr), then 10 s more if they were late. */
async function leading(stderr: () => string, proc: ChildProcess, command: string): Promise<void> {
  const leaders = () => (stderr().match(/"msg":"became leader"/g) ?? []).length;
  if (leaders() >= 2) return;
  const started = performance.now();
  while (leaders() < 2) {
    if (proc.exitCode !== null) throw new Error(`k8ts ${command} exited ${proc.exitCode}: ${stderr().slice(-2000)}`);
    if (performance.now() - started > 60_000) throw new Error(`k8ts ${command}: its control loops did not lead in 60 s: ${stderr().slice(-2000)}`);
    await sleep(100);
  }
  await sleep(10_000);
}

async function timeHelp(cli: string, args: string[]): Promise<number> {
  const started = performance.now();
  await new Promise((r) => execFile(process.execPath, [cli, ...args], r));
  return performance.now() - started;
}

interface Row { what: string; samples: Sample[] }

/** One row per build for this start, the builds' runs interleaved (base, this, base, this...): the load moves between runs. */
async function measure(builds: string[], command: 'up' | 'server', fresh: boolean, noCodeCache = false): Promise<Row[]> {
  const samples = new Map(builds.map((cli) => [cli, [] as Sample[]]));
  const shared = new Map(builds.map((cli) => [cli, fresh ? undefined : mkdtempSync(join(tmpdir(), 'k8ts-bench-startup-'))]));
  for (const cli of builds) { const dir = shared.get(cli); if (dir) await startOnce(cli, command, dir, false); } // creates the PKI and the database
  for (let i = 0; i < runs; i++) {
    for (const cli of builds) {
      const dir = shared.get(cli) ?? mkdtempSync(join(tmpdir(), 'k8ts-bench-startup-'));
      // Where the launcher keeps the code cache when the installation is writable (a build without one has none).
      if (noCodeCache) rmSync(join(dirname(cli), 'code-cache'), { recursive: true, force: true });
      samples.get(cli)!.push(await startOnce(cli, command, dir, i >= runs - idleRuns));
      if (!shared.get(cli)) rmSync(dir, { recursive: true, force: true });
    }
  }
  for (const dir of shared.values()) if (dir) rmSync(dir, { recursive: true, force: true });
  return builds.map((cli) => {
    const row = { what: `${buildName(cli)}: \`k8ts ${command}\`, ${noCodeCache ? 'first start ever (no code cache), ' : ''}${fresh ? 'fresh' : 'existing'} data dir`, samples: samples.get(cli)! };
    console.log(row.what, row.samples.map((s) => `${s.readyMs.toFixed(0)} ms (CPU ${s.cpuMs.toFixed(0)})`).join(', '), `idle RSS ${idleText(row.samples)}`);
    return row;
  });
}

const buildName = (cli: string) => (cli === thisBuild ? 'this build' : `baseline (${cli})`);

async function measureHelp(builds: string[]): Promise<string[]> {
  const help = new Map(builds.map((cli) => [cli, [] as number[]]));
  const serverHelp = new Map(builds.map((cli) => [cli, [] as number[]]));
  for (let i = 0; i < runs; i++) {
    for (const cli of builds) { help.get(cli)!.push(await timeHelp(cli, ['--help'])); serverHelp.get(cli)!.push(await timeHelp(cli, ['server', '--help'])); }
  }
  return builds.map((cli) => {
    const h = help.get(cli)!; const sh = serverHelp.get(cli)!;
    return `${buildName(cli)}: \`k8ts --help\` median ${ms(median(h))} (min ${ms(Math.min(...h))}); \`k8ts server --help\` (loads the server's modules) median ${ms(median(sh))} (min ${ms(Math.min(...sh))}).`;
  });
}

const ms = (x: number) => `${Math.round(x)} ms`;

/** The median idle RSS of the runs that measured it, and their range when more than one did. */
function idleText(samples: Sample[]): string {
  const mb = samples.flatMap((s) => (s.rssMB === undefined ? [] : [s.rssMB]));
  if (mb.length === 0) return 'not measured'; // --idle-runs 0
  return mb.length > 1 ? `${median(mb).toFixed(0)} MB (${Math.min(...mb).toFixed(0)}-${Math.max(...mb).toFixed(0)})` : `${mb[0]!.toFixed(0)} MB`;
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!;
  const want = (row: typeof allRows[number]) => rowsWanted.has(row);
  const rows = [
    ...want('up-first') ? await measure(clis, 'up', true, true) : [],
    ...want('up-fresh') ? await measure(clis, 'up', true) : [],
    ...want('up-existing') ? await measure(clis, 'up', false) : [],
    ...want('server-fresh') ? await measure(clis, 'server', true) : [],
    ...want('server-existing') ? await measure(clis, 'server', false) : [],
  ];
  const help = want('help') ? await measureHelp(clis) : [];
  const body = [
    ...sectionHead(repoRoot, '## Start-up: spawn to /readyz 200, idle RSS (bench/startup.ts)'),
    `- Load average (1 min) before: ${loadBefore.toFixed(1)}`,
    `- Setup: ${runs} runs per row${clis.length > 1 ? ' (the builds\' runs interleaved, baselines first)' : ''}${opts.rows ? ` (rows: ${opts.rows})` : ''}; each spawns \`node main.js up|server --data-dir D --port P\` (controllers: all) and polls GET /readyz every 5 ms; a fresh row uses a new empty data dir per run (PKI keys generated, database created), a first-start-ever row also removes the build's V8 code cache (dist/bundle/code-cache) before each run, an existing row the same dir again after one start that created it. CPU = user + system of the process (all its threads) at the first 200. Idle RSS = the median of 20 VmRSS readings of the process over 5 s, from 10 s after ready and after the controller manager and the scheduler both lead (an existing data dir: 10 s after they took over the last start's Leases), in the last ${idleRuns === 1 ? 'run' : `${idleRuns} runs (median, range)`}. Target: \`k8ts up\` under 0.5 s, idle RSS under 100 MB. Wall times move with the load average on this shared 2-core machine; CPU time much less.`,
    '',
    table(['Build: start', 'Median to /readyz 200', 'Min', 'Max', 'Median CPU to ready', 'Idle RSS after 10 s'], rows.map((r) => {
      const t = r.samples.map((s) => s.readyMs);
      return [r.what, `**${ms(median(t))}**`, ms(Math.min(...t)), ms(Math.max(...t)), ms(median(r.samples.map((s) => s.cpuMs))), idleText(r.samples)];
    })),
    '',
    ...help.map((h) => `- ${h}`),
    '',
    `Load average (1 min) at end: ${loadavg()[0]!.toFixed(1)}.`,
  ].join('\n');
  if (!opts['no-write']) writeSection(resultsFile, 'startup', body);
  console.log(body);
}

main().catch((e) => { console.error(e); process.exit(1); });
