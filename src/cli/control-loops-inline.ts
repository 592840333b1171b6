/**
 * The control loops of `k8ts up` on the serving thread (control-loops.ts): the
 * controller manager and the scheduler share the API server's event loop and
 * heap instead of a worker thread's. A worker is a second V8 isolate with its
 * own copy of Node's internals and of every module it loads: about 10 MB of
 * RSS for an empty one, 20 MB with the loops in it, most of the distance
 * between the quick start's idle RSS and its 100 MB target (bench/RESULTS.md,
 * `startup-rss2`). What `up` gives up is what the thread buys `k8ts server`
 * (docs/threads.md, point 4): a second core for the loops, and the serving
 * loop's answers undelayed by a scheduler burst; three simulated nodes rarely
 * make one. `k8ts up --control-loops-thread` keeps the thread.
 */
import type { Logger } from '../util/log.js';
import type { ControlLoopsThread, ControlLoopsWorkerData } from './control-loops-thread.js';
import type { RunningControllers } from './controller-manager.js';

export function startControlLoopsInline(data: ControlLoopsWorkerData, logger: Logger): ControlLoopsThread {
  let running: RunningControllers | undefined;
  let stopped = false;
  // Loaded when first used: `k8ts server`, whose loops run in their thread, never compiles them here.
  const loaded = import('./control-loops.js').then(({ startControlLoops }) => {
    if (stopped) return;
    running = startControlLoops(data, logger);
    logger.info('control loops running on the serving thread', { controllers: data.controllers });
  }, (err) => logger.error('control loops failed to load', { err: (err as Error).message }));
  return {
    stop: async () => {
      stopped = true;
      await loaded;
      const r = running;
      running = undefined;
      await r?.stop();
    },
    // Their heap is the serving isolate's: the memory report's `main` counts it.
    heapStatistics: () => Promise.resolve(undefined),
    heapSnapshot: () => Promise.resolve(undefined),
  };
}
