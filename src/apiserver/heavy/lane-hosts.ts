/**
 * Where a heavy-lane slot runs its jobs: a worker thread (the default) or a
 * child process (opt-in, `K8TS_HEAVY_LANE=process`: not shown better, see
 * docs/threads.md, "The heavy lane in a process"). Either takes one job at a time
 * and answers it; pool.ts owns the queue, budgets and replacement, the same
 * for both (docs/threads.md, "The heavy lane in a process").
 */
import { Worker } from 'node:worker_threads';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ObjectBodyJob } from './object-body.js';
import type { HeavyRequest, HeavyResponse } from './protocol.js';

export interface LaneHost {
  post(req: HeavyRequest): void;
  /** Stops it now, mid-job or not (a job past its budget, a crash, the server closing). */
  terminate(): Promise<void>;
}

export interface LaneEvents {
  answered(res: HeavyResponse): void;
  /** It died or could not start: its job, if any, fails. */
  lost(err: Error): void;
}

export type LaneKind = 'process' | 'thread';

export const laneKind = (env: NodeJS.ProcessEnv = process.env): LaneKind => (env.K8TS_HEAVY_LANE === 'process' ? 'process' : 'thread');

/**
 * The child's V8 flags: its garbage collection on its own thread (no parallel scavenges, concurrent
 * marking or sweeping on helper threads) and one platform worker (background compiles), so the
 * process holds one core, not both, while a large body is read.
 */
export const laneProcessNodeArgs = ['--single-threaded-gc', '--v8-pool-size=1'];

const workerURL = new URL('./worker.js', import.meta.url);
const processURL = new URL('./lane-process.js', import.meta.url);

export function startLaneHost(kind: LaneKind, ev: LaneEvents): LaneHost {
  return kind === 'process' ? startProcess(ev) : startThread(ev);
}

function startProcess(ev: LaneEvents): LaneHost {
  // Node's own flags of the server (a profiler, a preload) are not the child's: execArgv is set.
  const child = fork(fileURLToPath(processURL), [], { execArgv: laneProcessNodeArgs, serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.unref();
  child.channel?.unref();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.on('message', (res: HeavyResponse) => ev.answered(res));
  child.on('error', (err) => ev.lost(new Error(`heavy lane process failed: ${err.message}`)));
  child.on('exit', (code, signal) => ev.lost(new Error(`heavy lane process exited (${signal ?? code})`)));
  return {
    post: (req) => child.send(req, (err) => { if (err) ev.lost(new Error(`heavy lane process failed: ${err.message}`)); }),
    terminate: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

function startThread(ev: LaneEvents): LaneHost {
  const worker = new Worker(workerURL);
  worker.unref();
  worker.on('message', (res: HeavyResponse) => ev.answered(res));
  // A worker that dies mid-job (out of memory, a bug outside the job's try) fails that job only.
  worker.on('error', (err) => ev.lost(new Error(`heavy lane worker failed: ${err.message}`)));
  worker.on('exit', () => ev.lost(new Error('heavy lane worker exited')));
  return {
    post: (req) => worker.postMessage(req, movableBody(req.job)),
    terminate: async () => { await worker.terminate(); },
  };
}

/**
 * The body's memory, handed to the worker instead of copied, when the loop
 * has no further use for it: a built-in kind's body is only read there (a
 * custom resource's is read again on the loop, for its schema's field
 * checks), and only a buffer that owns all of its memory can move (a small
 * one is a slice of Node's shared pool). The 2.6 MiB JSON ConfigMap of the
 * hardening issue was copied on the loop, and held there until collected.
 */
function movableBody(job: ObjectBodyJob): ArrayBuffer[] {
  const b = job.body;
  return job.builtIn && b.byteOffset === 0 && b.buffer.byteLength === b.byteLength && b.buffer instanceof ArrayBuffer ? [b.buffer] : [];
}
