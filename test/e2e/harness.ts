/**
 * Starts a real `k8ts server` process on a free loopback port and drives it
 * with the real kubectl binary. Each cluster gets its own data dir and
 * kubectl cache dir (stale discovery caches would fool the tests).
 */
import { spawn, ChildProcess, execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/**
 * The CLI as users run it: the bundle (dist/bundle, `npm run build`), unless
 * only tsc has run since (a bundle older than the compiled tree would test
 * stale code), then the compiled tree's entry.
 */
export const cliPath = ((): string => {
  const compiled = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
  const bundle = join(repoRoot, 'dist', 'bundle', 'main.js');
  return existsSync(bundle) && statSync(bundle).mtimeMs >= statSync(compiled).mtimeMs ? bundle : compiled;
})();
export const seedsDir = join(repoRoot, 'test', 'fixtures', 'seeds');

export interface Cluster {
  dataDir: string;
  url: string;
  kubeconfig: string;
  proc: ChildProcess;
  kubectl(args: string[], opts?: { input?: string; allowFail?: boolean }): Promise<KubectlResult>;
  /** Starts `kubectl <args>` and returns the running process (for get -w). */
  spawnKubectl(args: string[]): ChildProcess;
  /** The server's log lines since start (the last 4 MiB), for tests that assert what it reported. */
  serverLog(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  cleanup(): Promise<void>;
}

export interface KubectlResult { stdout: string; stderr: string; code: number }

/**
 * `controllers` defaults to 'none' so tests that run a controller in the test
 * process do not race the server's own; pass 'all' for the whole system.
 */
export async function startCluster(opts: { dataDir?: string; extraArgs?: string[]; controllers?: string; env?: Record<string, string> } = {}): Promise<Cluster> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'k8ts-e2e-'));
  const cacheDir = join(dataDir, 'kubectl-cache');
  const proc = spawn(process.execPath, [cliPath, 'server', '--data-dir', dataDir, '--port', '0', '--controllers', opts.controllers ?? 'none', ...(opts.extraArgs ?? [])], {
    stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, K8TS_LOG_LEVEL: 'info', ...opts.env },
  });
  // What the server logged before it was ready (storage's start, a migration) belongs to serverLog() too.
  let buf = '';
  // A server that never got ready must not outlive the test file and keep its runner waiting.
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      buf += d.toString();
      for (const line of buf.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          const rec = JSON.parse(line);
          if (rec.msg === 'API server ready') { proc.stderr!.off('data', onData); resolve(rec.url); return; }
        } catch { /* partial line */ }
      }
    };
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`server exited with ${code} before ready: ${buf}`)));
    setTimeout(() => reject(new Error(`server not ready in 60s: ${buf}`)), 60_000).unref();
  }).catch((err) => { proc.kill('SIGKILL'); throw err; });
  let log = buf;
  proc.stderr!.on('data', (d: Buffer) => { log += d.toString(); if (log.length > 8 << 20) log = log.slice(-(4 << 20)); });
  proc.stdout!.resume();
  const kubeconfig = join(dataDir, 'admin.conf');
  const base = ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir];
  const cluster: Cluster = {
    dataDir, url, kubeconfig, proc, serverLog: () => log,
    kubectl: (args, o = {}) => new Promise((resolve, reject) => {
      const child = execFile('kubectl', [...base, ...args], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
        const code = err ? (typeof (err as any).code === 'number' ? (err as any).code : 1) : 0;
        if (code !== 0 && !o.allowFail) {
          reject(new Error(`kubectl ${args.join(' ')} failed (${code}): ${stderr}${stdout}`));
          return;
        }
        resolve({ stdout, stderr, code });
      });
      if (o.input !== undefined) child.stdin!.end(o.input);
    }),
    spawnKubectl: (args) => spawn('kubectl', [...base, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }),
    stop: (signal = 'SIGTERM') => new Promise((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) { resolve(proc.exitCode); return; }
      proc.once('exit', (code) => resolve(code));
      proc.kill(signal);
    }),
    cleanup: async () => {
      await cluster.stop();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return cluster;
}

/**
 * The shortest wait `eventually` grants. CI runs these tests two at a time on
 * a loaded 2-core machine, where a controller, a process or containerd has
 * taken more than 10 s for what takes 1 s alone; a passing test returns as
 * soon as its condition holds, so only a failure waits this long.
 */
export const minEventuallyMs = 30_000;

/**
 * Polls `check` until it returns a truthy value or the deadline passes
 * (`timeoutMs`, at least minEventuallyMs). On a timeout, `evidence` (when
 * given) is gathered and appended to the error, so a CI log alone says why
 * the condition never held (a pod's describe, a kubelet's last log lines);
 * its own failure is reported in its place.
 */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>, timeoutMs = minEventuallyMs, what = 'condition', evidence?: () => Promise<string> | string,
): Promise<T> {
  const deadline = Date.now() + Math.max(timeoutMs, minEventuallyMs);
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (e) { last = e; }
    if (Date.now() > deadline) {
      const message = `timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`;
      if (!evidence) throw new Error(message);
      let gathered: string;
      try { gathered = await evidence(); } catch (e) { gathered = `(gathering the evidence failed: ${(e as Error).message})`; }
      throw new Error(`${message}\n${gathered}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The YAML documents of a seed note, split on `---` and lines that are not YAML. */
export { extractManifests } from './seed-manifests.js';
