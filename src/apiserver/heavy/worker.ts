/**
 * A heavy-lane worker thread: runs one job at a time and answers a value or
 * a Status, never shared state. It imports only pure modules (src/api, the
 * body decoder, the decoding checks).
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import { answerJob } from './answer-job.js';
import type { HeavyHello, HeavyRequest } from './protocol.js';
import type { EncodedStatus } from './invalid-status.js';
import { pulledBytesFrom, servePulledBytes } from './pulled-bytes.js';
import { createLogger } from '../../util/log.js';
import { idlePolicyFor, idlePolicyRequested, lowerThisThread } from '../../util/thread-priority.js';
import { thisThreadId, threadCpuMs } from '../../util/thread-cpu.js';

// Its jobs can wait, the serving thread's clients cannot: when the cores are short, the kernel
// runs the loop first (docs/threads.md, "Priorities"). The job's requester waits longer instead.
const tid = lowerThisThread('k8ts-heavy', createLogger('k8ts').with('heavy-lane'));
if (tid !== undefined && idlePolicyRequested('worker')) idlePolicyFor([tid], createLogger('k8ts').with('heavy-lane'), 'k8ts-heavy');
// The pool reads this thread's CPU time for a job's budget (job-clock.ts): it needs the kernel's id.
const ownTid = thisThreadId();
parentPort!.postMessage({ hello: true, tid: ownTid, startCpuMs: ownTid && threadCpuMs(ownTid) } satisfies HeavyHello);

parentPort!.on('message', (req: HeavyRequest) => {
  const res = answerJob(req);
  // An encoded Status is handed over, not copied: the loop receives it without cloning its bytes.
  // A large one stays here and is pulled by the loop a slice at a time (pulled-bytes.ts).
  const encoded = res.ok ? res.value.refusal : undefined;
  const body = encoded && 'invalid' in encoded ? encoded.invalid.body : undefined;
  let transfer: (ArrayBuffer | MessagePort)[] = [];
  if (Array.isArray(body) && body.reduce((n, b) => n + b.byteLength, 0) >= pulledBytesFrom) {
    const pulled = servePulledBytes(body);
    (encoded as { invalid: EncodedStatus }).invalid.body = pulled;
    transfer = [pulled.port];
  } else if (Array.isArray(body)) transfer = body.map((b) => b.buffer as ArrayBuffer);
  parentPort!.postMessage(res, transfer);
});
