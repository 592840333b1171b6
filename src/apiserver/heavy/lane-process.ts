/**
 * The heavy lane's child process, opt-in with K8TS_HEAVY_LANE=process (docs/threads.md, "The heavy lane in a
 * process"): runs one job at a time, as a worker thread does (answer-job.ts),
 * with jobs and answers over Node's IPC channel (advanced serialization).
 * Why a process and not a thread: V8's platform threads, which run a heap's
 * parallel and concurrent garbage collection, are shared by every isolate of
 * a process, so a worker's collection ran beside the serving thread at its
 * priority. Here every thread of the process is lowered at start, and the
 * process runs with `--single-threaded-gc` (pool.ts starts it): its
 * collection stays on its own thread, one core, at the background nice.
 */
import { answerJob } from './answer-job.js';
import type { HeavyRequest } from './protocol.js';
import { createLogger } from '../../util/log.js';
import { idlePolicyFor, idlePolicyRequested, lowerThisProcess } from '../../util/thread-priority.js';

const logger = createLogger('k8ts').with('heavy-lane');
const tids = lowerThisProcess('k8ts-heavy', logger);
if (idlePolicyRequested('worker')) idlePolicyFor(tids, logger, 'k8ts-heavy process');

process.on('message', (req: HeavyRequest) => {
  // An encoded Status goes back whole (bounded 422s are ~150 KB, docs/threads.md): nothing is
  // pulled a slice at a time here as the thread lane does from 8 MiB (pulled-bytes.ts).
  process.send!(answerJob(req));
});
// The server closed the channel (it closed the pool, or it ended): nothing is left to do here.
process.on('disconnect', () => process.exit(0));
