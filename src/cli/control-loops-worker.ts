/**
 * The entry of the control loops' thread (docs/threads.md, point 4): the
 * controller manager and the scheduler of `k8ts server` (control-loops.ts), on
 * their own event loop and heap, as clients of the API server over HTTPS under
 * their own identities, exactly as the separate `k8ts controller-manager` and
 * `k8ts scheduler` processes run. It imports nothing of the server.
 */
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { createLogger } from '../util/log.js';
import type { ControlLoopsWorkerData, ControlLoopsMessage } from './control-loops-thread.js';
import { startControlLoops } from './control-loops.js';
import { isolateHeap } from './isolate-heap.js';
import { watchFullCollections } from './full-collections.js';

const data = workerData as ControlLoopsWorkerData;
const logger = createLogger(data.component);
const running = startControlLoops(data, logger);
// What this isolate's full collections keep, for the memory report: its live heap against its committed one.
const fullGcs = watchFullCollections();
logger.info('control loops running in their own thread', { threadId, controllers: data.controllers });

// A loop's stray rejection is logged, as on the main thread; it does not end the thread.
process.on('unhandledRejection', (reason) => logger.error('unhandled promise rejection', { err: reason instanceof Error ? reason.stack : String(reason) }));

parentPort!.on('message', (m: ControlLoopsMessage) => {
  // The process's memory report asks each isolate for its own heap (heap-report.ts).
  if (m.type === 'heap') { parentPort!.postMessage({ type: 'heap', heap: isolateHeap(fullGcs) } satisfies ControlLoopsMessage); return; }
  if (m.type !== 'stop') return;
  // Stopping gives up the leader Leases' loops and closes every watch; the thread then ends.
  fullGcs.close();
  void running.stop().then(() => {
    logger.info('control loops stopped', { threadId });
    parentPort!.postMessage({ type: 'stopped' } satisfies ControlLoopsMessage);
    parentPort!.close();
  });
});
