/**
 * `k8ts up` (what `npm start` runs) as a test fixture: the real process with
 * its own data directory and a free port, and the real kubectl with the
 * kubeconfig it prints.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, type KubectlResult } from './harness.js';
import { killChild, lineReader } from './helpers.js';

export interface UpCluster {
  dir: string;
  kubeconfig: string;
  /** The `k8ts up` process (benchmarks read its CPU time). */
  pid: number;
  /** What it printed on stdout so far, line by line (the commands it suggests). */
  output: string[];
  kubectl(args: string[], input?: string, allowFail?: boolean): Promise<KubectlResult>;
  close(): Promise<void>;
}

/**
 * `k8ts up` with `args` added (e.g. `--runtime process`: one real node instead of simulated ones).
 * Its log (stderr) goes to DIR/k8ts.log; when a kubectl command ran out of time (a hang, as the
 * StatefulSet delete that failed once in CI; failed commands are normal in retry loops) or
 * K8TS_E2E_KEEP is set, `close` keeps DIR (data and log) and says where.
 */
/** How long `k8ts up` may take to print its kubeconfig line (as up-cri-node.ts grants a real node's start). */
export const upStartMs = 120_000;

/** `waited`, or, when it fails, its error once `child` is killed and gone (a start that failed must not outlive its test file). */
export async function killedIfFailed<T>(child: ChildProcess, waited: Promise<T>): Promise<T> {
  try {
    return await waited;
  } catch (err) {
    if (child.exitCode === null && child.signalCode === null) await new Promise<void>((r) => { child.once('exit', () => r()); child.kill('SIGKILL'); });
    throw err;
  }
}

export async function startUp(prefix: string, args: string[] = []): Promise<UpCluster> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const up: ChildProcess = spawn(process.execPath, [cliPath, 'up', '--data-dir', join(dir, 'data'), '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(join(dir, 'k8ts.log'));
  up.stderr!.pipe(log);
  const timedOut: string[] = [];
  const out = lineReader(up);
  // A guard against a start that never ends, not a check of its speed (bench/startup.ts measures that): at machine
  // load 39 the API server was ready 20 s after the process started and the nodes had not registered by 60 s.
  // A k8ts up that never printed it must not outlive the test file: its pipes kept the runner waiting for the
  // file's end (17 minutes, until it was killed, after that load-39 failure).
  const at = await killedIfFailed(up, out.waitFor((l) => l.includes('export KUBECONFIG='), 'the kubeconfig line', 0, upStartMs))
    .catch((err) => { log.end(); throw err; });
  const kubeconfig = out.lines[at].trim().replace('export KUBECONFIG=', '');
  const kubectl = (args: string[], input?: string, allowFail = false) => {
    const child = execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 60_000 });
    if (input !== undefined) child.stdin!.end(input);
    return new Promise<KubectlResult>((resolve, reject) => {
      let stdout = ''; let stderr = '';
      child.stdout!.on('data', (d) => { stdout += d; });
      child.stderr!.on('data', (d) => { stderr += d; });
      child.on('close', (code) => {
        // killed: execFile's timeout sent SIGTERM (kubectl may still exit 1 on it, as delete's wait does).
        if (child.killed || code === null) timedOut.push(`kubectl ${args.join(' ')}`);
        if (code !== 0 && !allowFail) reject(new Error(`kubectl ${args.join(' ')} exited ${code}: ${stderr}`));
        else resolve({ stdout, stderr, code: code ?? -1 });
      });
    });
  };
  const close = async () => {
    await killChild(up);
    await new Promise((resolve) => { log.end(resolve); });
    if (timedOut.length || process.env.K8TS_E2E_KEEP) console.error(`kept ${dir} (k8ts.log, data)${timedOut.length ? ` after timeouts of: ${timedOut.join('; ')}` : ''}`);
    else rmSync(dir, { recursive: true, force: true });
  };
  return { dir, kubeconfig, pid: up.pid!, output: out.lines, kubectl, close };
}
