/**
 * Small tools the end-to-end tests share: manifests in temp files, raw HTTPS
 * requests with or without the admin client certificate from admin.conf, and
 * reading a child process's output line by line until an expected line shows.
 */
import assert from 'node:assert/strict';
import https from 'node:https';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { eventually, minEventuallyMs, type Cluster } from './harness.js';

/**
 * Server flags for tests of the API server alone: no in-process controllers or
 * scheduler, so tables, statuses and taints are exactly what the tests wrote.
 */
export const apiServerOnly = { extraArgs: ['--controllers', 'none'] };

/**
 * For tests that count every storage call while they run: without the identity
 * Lease's renewal every 10 s (upstream's APIServerIdentity gate, off), an idle
 * server makes none, so a count is the request's alone.
 */
export const noIdentityLease = ['--feature-gates', 'APIServerIdentity=false'];

/** A temp dir for manifests; `write` returns the file's path, `close` removes them all. */
export function manifestDir(): { write(name: string, text: string): string; close(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-manifests-'));
  return {
    write: (name, text) => { const p = join(dir, name); writeFileSync(p, text); return p; },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface ApiResponse { status: number; headers: Record<string, unknown>; body: string; json(): any }

export interface ApiRequest {
  method?: string;
  body?: string | Buffer;
  /** Defaults to application/json; null sends no Content-Type header. */
  contentType?: string | null;
  /** Send no client certificate (and skip server verification, as `curl -k` does). */
  anonymous?: boolean;
  /** More request headers (an Authorization header, say). */
  headers?: Record<string, string>;
}

/** Credentials as kubectl reads them: the first cluster and user of admin.conf. */
export function adminCredentials(kubeconfig: string): { ca: string; cert: string; key: string } {
  const cfg = parse(readFileSync(kubeconfig, 'utf8'));
  const b64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
  return {
    ca: b64(cfg.clusters[0].cluster['certificate-authority-data']),
    cert: b64(cfg.users[0].user['client-certificate-data']),
    key: b64(cfg.users[0].user['client-key-data']),
  };
}

/** One HTTPS request to the cluster's API server. */
export function apiRequest(cluster: Cluster, path: string, opts: ApiRequest = {}): Promise<ApiResponse> {
  const tls = opts.anonymous ? { rejectUnauthorized: false } : { ...adminCredentials(cluster.kubeconfig) };
  const headers: Record<string, string | number> = { Accept: 'application/json', ...opts.headers };
  if (opts.body !== undefined) {
    if (opts.contentType !== null) headers['Content-Type'] = opts.contentType ?? 'application/json';
    headers['Content-Length'] = Buffer.byteLength(opts.body);
  }
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, cluster.url), { method: opts.method ?? 'GET', headers, ...tls, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/**
 * Collects a child's stdout as lines; `waitFor` resolves with the first line (from `from` on) that matches,
 * waiting at least minEventuallyMs as `eventually` does (a watch's row or a followed log line took over 10 s
 * at CI's load, behind the controller, the kubelet or kubectl that produces it).
 */
export function lineReader(child: ChildProcess): {
  lines: string[];
  waitFor(match: (line: string) => boolean, what: string, from?: number, timeoutMs?: number): Promise<number>;
} {
  const lines: string[] = [];
  let partial = '';
  const waiters = new Set<() => void>();
  child.stdout!.on('data', (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
    for (const w of waiters) w();
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => { stderr += d.toString(); });
  return {
    lines,
    waitFor: (match, what, from = 0, timeoutMs = minEventuallyMs) => new Promise((resolve, reject) => {
      const check = () => {
        const i = lines.findIndex((l, idx) => idx >= from && match(l));
        if (i < 0) return;
        done();
        resolve(i);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for ${what}; stdout so far:\n${lines.join('\n')}\nstderr: ${stderr}`));
      }, Math.max(timeoutMs, minEventuallyMs));
      const done = () => { clearTimeout(timer); waiters.delete(check); };
      waiters.add(check);
      check();
    }),
  };
}

/** A table line's cells: kubectl pads columns with at least three spaces; headers like `NOMINATED NODE` keep their one. */
export const cells = (line: string): string[] => line.trim().split(/ {2,}/);

/** Stops a child started by a test and waits until it is gone. */
export function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM'); });
}

export interface PortForward {
  child: ChildProcess;
  /** The local port kubectl printed (`Forwarding from 127.0.0.1:PORT`). */
  port: number;
  /** Everything kubectl printed so far, stdout and stderr. */
  out(): string;
}

/**
 * `kubectl port-forward ARGS` as a user runs it (ARGS ending in `:PORT` ask
 * for a free local port); resolves once kubectl prints the port it listens on.
 */
export async function kubectlPortForward(kubeconfig: string, args: string[], env: Record<string, string> = {}): Promise<PortForward> {
  const child = spawn('kubectl', ['--kubeconfig', kubeconfig, 'port-forward', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  try {
    const port = await eventually(async () => Number(/Forwarding from 127\.0\.0\.1:(\d+)/.exec(out)?.[1]) || (child.exitCode !== null ? -1 : undefined),
      60_000, 'kubectl port-forward listening', () => out);
    if (port < 0) throw new Error(`kubectl port-forward exited ${child.exitCode}: ${out}`);
    return { child, port, out: () => out };
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
}

export interface ApiStream {
  status: number;
  headers: Record<string, unknown>;
  /** The JSON lines received so far. */
  events: any[];
  /** Resolves with the index of the first event (from `from` on) that matches (waiting at least minEventuallyMs). */
  waitFor(match: (ev: any) => boolean, what: string, from?: number, timeoutMs?: number): Promise<number>;
  /** Resolves when the server ends the response. */
  ended: Promise<void>;
  close(): void;
}

/** A GET whose body is a stream of JSON lines (a watch), read as it arrives. */
export function apiStream(cluster: Cluster, path: string): Promise<ApiStream> {
  const tls = adminCredentials(cluster.kubeconfig);
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, cluster.url), { method: 'GET', headers: { Accept: 'application/json' }, ...tls, agent: false }, (res) => {
      const events: any[] = [];
      const waiters = new Set<() => void>();
      let partial = '';
      let endedFlag = false;
      const ended = new Promise<void>((done) => res.on('close', () => { endedFlag = true; done(); for (const w of waiters) w(); }));
      res.on('data', (d: Buffer) => {
        const parts = (partial + d.toString()).split('\n');
        partial = parts.pop()!;
        for (const p of parts) if (p.trim()) events.push(JSON.parse(p));
        for (const w of waiters) w();
      });
      res.on('error', () => { /* ended by close() */ });
      resolve({
        status: res.statusCode ?? 0, headers: res.headers, events, ended,
        close: () => req.destroy(),
        waitFor: (match, what, from = 0, timeoutMs = minEventuallyMs) => new Promise((ok, fail) => {
          const check = () => {
            const i = events.findIndex((e, idx) => idx >= from && match(e));
            if (i >= 0) { done(); ok(i); } else if (endedFlag) { done(); fail(new Error(`stream ended before ${what}: ${JSON.stringify(events)}`)); }
          };
          const timer = setTimeout(() => { done(); fail(new Error(`timed out waiting for ${what}: ${JSON.stringify(events)}`)); }, Math.max(timeoutMs, minEventuallyMs));
          const done = () => { clearTimeout(timer); waiters.delete(check); };
          waiters.add(check);
          check();
        }),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Runs a command under a pseudo-terminal (util-linux script), feeding it `input` a line at each prompt (a shell's, or `prompt`: redis-cli's, mysql's). */
export function underTerminal(command: string, input: string[], timeoutMs = 30_000, prompt = /[#$] (\x1b\[6n|\x1b\[J)?$/): Promise<{ out: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    const pending = [...input];
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      // One line at a time, each once the shell has shown a prompt (busybox redraws an attached one with ESC[J after it).
      if (pending.length && prompt.test(out)) child.stdin.write(pending.shift()!);
    });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`timed out under a terminal: ${out}`)); }, timeoutMs);
    child.on('exit', (code) => { clearTimeout(timer); child.stdin.destroy(); resolve({ out, code }); });
  });
}

/**
 * Runs a command under a pseudo-terminal until it prints `prompt`, pressing nothing; then stops it (its
 * process group: script and the kubectl under it). Resolves with what it printed and whether the prompt came
 * (within minEventuallyMs: a kubectl start, attach and first frame pass through three processes).
 */
export function promptUnderTerminal(command: string, prompt: RegExp, timeoutMs = minEventuallyMs): Promise<{ out: string; prompted: boolean }> {
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let out = '';
    let prompted = false;
    const stop = () => { clearTimeout(timer); try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ } };
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!prompted && prompt.test(out)) { prompted = true; stop(); }
    });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    const timer = setTimeout(stop, timeoutMs);
    child.on('exit', () => { clearTimeout(timer); child.stdin.destroy(); resolve({ out, prompted }); });
  });
}

/** Storage operations the server has counted so far (k8ts_storage_request_duration_seconds_count by operation, from /metrics). */
export async function storageCounts(cluster: Cluster): Promise<Record<string, number>> {
  const res = await apiRequest(cluster, '/metrics');
  assert.equal(res.status, 200);
  const counts: Record<string, number> = {};
  for (const m of res.body.matchAll(/^k8ts_storage_request_duration_seconds_count\{operation="(\w+)"\} (\d+)$/gm)) counts[m[1]!] = Number(m[2]);
  // The bootstrap objects are created at start, so a server that counts at all has counted creates.
  assert.ok('create' in counts, 'the server counts storage operations in /metrics');
  return counts;
}

/**
 * kubectl on `cluster()` (a getter: suites start their cluster in before()) that must succeed,
 * giving its stdout, or must fail, giving its stderr; the other stream goes in the message.
 */
export function kubectlExpect(cluster: () => Cluster): { ok(args: string[], input?: string): Promise<string>; fails(args: string[], input?: string): Promise<string> } {
  return {
    async ok(args, input) {
      const r = await cluster().kubectl(args, { input, allowFail: true });
      assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    },
    async fails(args, input) {
      const r = await cluster().kubectl(args, { input, allowFail: true });
      assert.notEqual(r.code, 0, `kubectl ${args.join(' ')} should fail: ${r.stdout}`);
      return r.stderr.trim();
    },
  };
}

/** A thread of a process as the kernel sees it: /proc/<pid>/task/<tid>/stat's name, nice (field 19) and start time (field 22). */
export interface ProcessThread { tid: number; comm: string; nice: number; born: number; /** Field 41: 0 SCHED_OTHER, 5 SCHED_IDLE. */ policy: number }

/** The threads of `pid` (a thread that ends while read is left out). */
export function processThreads(pid: number): ProcessThread[] {
  const out: ProcessThread[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // Fields after the command's closing parenthesis start at field 3 (state).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({ tid: Number(tid), comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), nice: Number(fields[19 - 3]), born: Number(fields[22 - 3]), policy: Number(fields[41 - 3]) });
    } catch { /* ended meanwhile */ }
  }
  return out;
}

/** `kubectl proxy` as the pages start it (their port 8001, here one of its choosing), once it serves: its port, and a stop. */
export async function kubectlProxy(kubeconfig: string): Promise<{ port: string; stop(): void }> {
  const proxy = spawn('kubectl', ['--kubeconfig', kubeconfig, 'proxy', '--port=0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = () => { proxy.kill('SIGTERM'); };
  let said = '';
  proxy.stdout!.on('data', (d: Buffer) => { said += d.toString(); });
  const port = await eventually(async () => /Starting to serve on 127\.0\.0\.1:(\d+)/.exec(said)?.[1], 30_000, 'kubectl proxy serving').catch((e) => { stop(); throw e; });
  return { port, stop };
}
