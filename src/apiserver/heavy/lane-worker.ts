/**
 * A heavy-lane slot's worker thread: it takes one job at a time and answers
 * it (worker.ts); pool.ts owns the queue, budgets and replacement. A child
 * process per slot was tried and removed (docs/threads.md, "The heavy lane
 * in a process, tried and removed").
 */
import { Worker } from 'node:worker_threads';
import type { ObjectBodyJob } from './object-body.js';
import type { HeavyHello, HeavyRequest, HeavyResponse } from './protocol.js';
import { threadCpuMs } from '../../util/thread-cpu.js';

export interface LaneWorker {
  post(req: HeavyRequest): void;
  /** Stops it now, mid-job or not (a job past its budget, a crash, the server closing). */
  terminate(): Promise<void>;
  /**
   * The thread's time on a CPU since it started, its start's own excluded, ms: 0 until its hello
   * arrived (it had only started then), undefined where it cannot be read (a budget counts wall time).
   */
  cpuMs(): number | undefined;
}

export interface LaneEvents {
  answered(res: HeavyResponse): void;
  /** It died or could not start: its job, if any, fails. */
  lost(err: Error): void;
}

const workerURL = new URL('./worker.js', import.meta.url);

export function startLaneWorker(ev: LaneEvents): LaneWorker {
  const worker = new Worker(workerURL);
  worker.unref();
  let hello: HeavyHello | undefined;
  worker.on('message', (msg: HeavyResponse | HeavyHello) => {
    if ('hello' in msg) hello = msg;
    else ev.answered(msg);
  });
  const cpuMs = (): number | undefined => {
    if (!hello) return 0;
    const now = hello.tid === undefined || hello.startCpuMs === undefined ? undefined : threadCpuMs(hello.tid);
    return now === undefined ? undefined : now - hello.startCpuMs!;
  };
  // A worker that dies mid-job (out of memory, a bug outside the job's try) fails that job only.
  worker.on('error', (err) => ev.lost(new Error(`heavy lane worker failed: ${err.message}`)));
  worker.on('exit', () => ev.lost(new Error('heavy lane worker exited')));
  return {
    post: (req) => worker.postMessage(req, movableBody(req.job)),
    terminate: async () => { await worker.terminate(); },
    cpuMs,
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
