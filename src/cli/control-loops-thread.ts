/**
 * Runs the controller manager and the scheduler of `k8ts up` / `k8ts server`
 * in a worker thread (docs/threads.md, point 4), so that the serving loop and
 * the control loops each get a core and a scheduler burst does not delay a
 * `kubectl get`.
 *
 * A thread that ends without being asked to is restarted the way the kubelet
 * restarts a crashed static-pod kube-controller-manager: after a back-off of
 * 10 s that doubles up to 5 min and is forgotten once the thread has run for
 * 10 min (upstream's CrashLoopBackOff). The API server keeps serving meanwhile.
 */
import { Worker } from 'node:worker_threads';
import type { Readable } from 'node:stream';
import type { ControllerConfig } from '../controllers/types.js';
import type { Logger } from '../util/log.js';
import type { IsolateHeap } from './isolate-heap.js';

/** A component's client: HTTPS with its certificate, or the server's loopback socket with a token (loopback-clients.ts). */
export type ClientCredentials = { server: string; caPem: string; certPem: string; keyPem: string; socketPath?: string; token?: string };

export interface ControlLoopsWorkerData {
  /** Logger component of the thread's lines (the process's own, e.g. `k8ts`). */
  component: string;
  /** `all` or a comma-separated list of controller names, `scheduler` included. */
  controllers: string;
  config: Partial<ControllerConfig>;
  clients: { controllerManager: ClientCredentials; scheduler: ClientCredentials };
}

export type ControlLoopsMessage = { type: 'stop' } | { type: 'stopped' } | { type: 'heap' } | { type: 'heap'; heap: IsolateHeap };

export interface ControlLoopsThreadOptions extends ControlLoopsWorkerData {
  logger: Logger;
  /** The thread's V8 heap limit in MiB (a memory limit, as a static pod's); 0 or undefined: Node's default. */
  heapLimitMb?: number;
  /** Back-off before the first restart (upstream 10 s) and its cap (upstream 5 min). */
  backoffMs?: { initial: number; max: number };
}

export interface ControlLoopsThread {
  /** Asks the loops to stop and waits for the thread to end (terminated after 5 s). */
  stop(): Promise<void>;
  /** The thread's V8 heap (memory by isolate: heap-report.ts); undefined while it is not running. */
  heapStatistics(): Promise<IsolateHeap | undefined>;
  /** A heap snapshot of the thread's isolate (heap-report.ts's debugging hook); undefined while it is not running. */
  heapSnapshot(): Promise<Readable | undefined>;
}

const BACKOFF_RESET_MS = 10 * 60_000;
const STOP_GRACE_MS = 5_000;

export function startControlLoopsThread(opts: ControlLoopsThreadOptions): ControlLoopsThread {
  const { logger, heapLimitMb, backoffMs = { initial: 10_000, max: 300_000 }, ...data } = opts;
  let worker: Worker | undefined;
  let stopping = false;
  let restartTimer: NodeJS.Timeout | undefined;
  let backoff = backoffMs.initial;

  const spawn = () => {
    const startedAt = Date.now();
    const w = worker = new Worker(new URL('./control-loops-worker.js', import.meta.url), {
      workerData: data satisfies ControlLoopsWorkerData,
      resourceLimits: heapLimitMb ? { maxOldGenerationSizeMb: heapLimitMb } : undefined,
    });
    let failure: Error | undefined;
    w.on('error', (err) => { failure = err; });
    w.on('exit', (code) => {
      if (worker === w) worker = undefined;
      if (stopping) return;
      if (Date.now() - startedAt >= BACKOFF_RESET_MS) backoff = backoffMs.initial;
      logger.error('control loops thread exited; restarting it', {
        exitCode: code, err: failure ? `${failure.name}: ${failure.message}` : undefined, restartInMs: backoff,
      });
      restartTimer = setTimeout(spawn, backoff);
      restartTimer.unref();
      backoff = Math.min(backoff * 2, backoffMs.max);
    });
  };
  spawn();

  return {
    heapStatistics: () => {
      const w = worker;
      if (!w) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        const onMessage = (m: ControlLoopsMessage) => {
          if (m.type !== 'heap' || !('heap' in m)) return;
          w.off('message', onMessage); w.off('exit', onExit); resolve(m.heap);
        };
        const onExit = () => { w.off('message', onMessage); resolve(undefined); };
        w.on('message', onMessage);
        w.once('exit', onExit);
        w.postMessage({ type: 'heap' } satisfies ControlLoopsMessage);
      });
    },
    heapSnapshot: () => (worker ? worker.getHeapSnapshot() : Promise.resolve(undefined)),
    stop: async () => {
      stopping = true;
      clearTimeout(restartTimer);
      const w = worker;
      if (!w) return;
      const ended = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      w.postMessage({ type: 'stop' } satisfies ControlLoopsMessage);
      const timer = setTimeout(() => { logger.warn('control loops did not stop in time; terminating their thread'); void w.terminate(); }, STOP_GRACE_MS);
      await ended;
      clearTimeout(timer);
    },
  };
}
