/**
 * A `k8ts server` child process for the benchmark: spawned on a free loopback
 * port, timed from spawn to the first /readyz 200, its memory read from
 * /proc/<pid>/status.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import { closeSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readAdminCredentials, type Credentials } from './client.js';

export interface ServerProcess {
  proc: ChildProcess;
  pid: number;
  creds: Credentials;
  /** Spawn to the first /readyz 200, measured by this process. */
  readyMs: number;
  /** startupMs from the server's own "API server ready" log line. */
  reportedStartupMs: number;
  stop(): Promise<void>;
}

export interface StartOptions {
  cliPath: string;
  dataDir: string;
  /** Extra node flags for the server (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** Extra `k8ts server` flags. */
  serverArgs?: string[];
  /** Extra environment variables for the server. */
  env?: Record<string, string>;
  /** A file for the server's stdout (e.g. V8's --trace-gc-nvp lines); ignored when absent. */
  stdoutFile?: string;
}

// A server starting on an etcd that holds 20,000 pods took over 30 s on the shared 2-core host at load 28.
const readyTimeoutMs = 120_000;
const stopTimeoutMs = 30_000;

export async function startServer(opts: StartOptions): Promise<ServerProcess> {
  const started = process.hrtime.bigint();
  const out = opts.stdoutFile ? openSync(opts.stdoutFile, 'w') : undefined;
  const proc = spawn(process.execPath, [...(opts.nodeArgs ?? []), opts.cliPath, 'server', '--data-dir', opts.dataDir, '--port', '0', '--bind', '127.0.0.1', ...(opts.serverArgs ?? [])], {
    stdio: ['ignore', out ?? 'ignore', 'pipe'], env: { ...process.env, K8TS_LOG_LEVEL: 'info', ...opts.env },
  });
  if (out !== undefined) closeSync(out);
  try {
    const ready = await readyLine(proc);
    const creds = readAdminCredentials(join(opts.dataDir, 'admin.conf'));
    await pollReadyz(ready.url, creds.ca);
    const readyMs = Number(process.hrtime.bigint() - started) / 1e6;
    return { proc, pid: proc.pid!, creds, readyMs, reportedStartupMs: ready.startupMs, stop: () => stopProcess(proc) };
  } catch (e) {
    await stopProcess(proc);
    throw e;
  }
}

/** Waits for the "API server ready" JSON log line on stderr; keeps draining stderr afterwards. */
function readyLine(proc: ChildProcess): Promise<{ url: string; startupMs: number }> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`server not ready in ${readyTimeoutMs} ms: ${buf}`)), readyTimeoutMs);
    const onExit = (code: number | null) => { clearTimeout(timer); reject(new Error(`server exited (${code}) before ready: ${buf}`)); };
    proc.once('exit', onExit);
    proc.stderr!.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const rec = parseLogLine(line);
        if (rec?.level === 'error') process.stderr.write(`server: ${line}\n`);
        // Whether the server's adaptive heap growing factor fired, and when (src/cli/heap-headroom.ts).
        if (rec?.msg === 'heap growing factor') process.stdout.write(`server: ${line}\n`);
        if (rec?.msg === 'API server ready') {
          clearTimeout(timer);
          proc.off('exit', onExit);
          resolve({ url: rec.url, startupMs: rec.startupMs });
        }
      }
    });
  });
}

function parseLogLine(line: string): any {
  if (!line.startsWith('{')) return undefined;
  try { return JSON.parse(line); } catch { return undefined; }
}

/** GET /readyz (anonymous) until 200, at most readyTimeoutMs. */
async function pollReadyz(url: string, ca: string): Promise<void> {
  const deadline = Date.now() + readyTimeoutMs;
  while (Date.now() < deadline) {
    if (await readyzStatus(url, ca) === 200) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`/readyz not 200 within ${readyTimeoutMs} ms`);
}

function readyzStatus(url: string, ca: string): Promise<number> {
  return new Promise((resolve) => {
    const req = https.get(`${url}/readyz`, { ca, agent: false }, (res) => { res.resume(); resolve(res.statusCode ?? 0); });
    req.on('error', () => resolve(0));
  });
}

function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), stopTimeoutMs);
    proc.once('exit', () => { clearTimeout(timer); resolve(); });
    proc.kill('SIGTERM');
  });
}

export interface Memory { rssKB: number; hwmKB: number }

/** VmRSS and VmHWM (peak RSS) of a process, in kB. */
export function readMemory(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssKB: field('VmRSS'), hwmKB: field('VmHWM') };
}

/**
 * The process's resident memory by kind, kB (/proc/<pid>/smaps_rollup): anonymous (V8's heaps,
 * malloc's arenas, SQLite's page cache) against file-backed (the binary, libraries, mapped files).
 */
export function readSmapsRollup(pid: number): { anonKB: number; fileKB: number } {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { anonKB: field('Anonymous'), fileKB: field('Rss') - field('Anonymous') };
}

/**
 * CPU time (user + system) the process has used, in ms, from /proc/<pid>/stat. On a shared
 * machine this varies far less than wall time: it is what an operation costs the server.
 */
export function readCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at field 3; utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicksPerSecond;
}

/** CPU time (user + system) of one thread of a process, in ms; the main thread's id is the pid. */
export function readThreadCpuMs(pid: number, tid: number = pid): number {
  const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicksPerSecond;
}

/** The id of the thread of `pid` named `name` (/proc/<pid>/task/<tid>/comm), if one is. */
export function threadNamed(pid: number, name: string): number | undefined {
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      if (readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() === name) return Number(tid);
    } catch { /* ended meanwhile */ }
  }
  return undefined;
}

/** USER_HZ: 100 on every Linux architecture node runs on. */
const clockTicksPerSecond = 100;

/**
 * Resets a process's VmHWM to its current RSS (clear_refs 5, Linux 4.0+), so that VmHWM read later
 * is the peak since: a phase's peak without a sampling timer in the measuring process.
 */
export function resetPeakRss(pid: number | 'self' = 'self'): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** Samples VmRSS every `everyMs` to find the peak within a phase (VmHWM only ever grows). */
export class RssSampler {
  private timer?: NodeJS.Timeout;
  peakKB = 0;

  constructor(private readonly pid: number, private readonly everyMs = 100) {}

  start(): this {
    this.peakKB = 0;
    this.sample();
    this.timer = setInterval(() => this.sample(), this.everyMs);
    return this;
  }

  stop(): number {
    clearInterval(this.timer);
    this.sample();
    return this.peakKB;
  }

  private sample(): void {
    try { this.peakKB = Math.max(this.peakKB, readMemory(this.pid).rssKB); } catch { /* exited */ }
  }
}
