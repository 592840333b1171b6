/**
 * Where a write's time goes between its arrival and its answer, for /metrics: the one latency
 * histogram (apiserver_request_duration_seconds) says that a call took 2 s, not whether it
 * waited for the loop's quantum, for a seat of the fair queue, in storage's group commit or for
 * the answers before its own on a pipelined connection (bench/scale.ts reads the split).
 *
 * Marks are performance.now() values kept per request; the server observes them once, when the
 * answer has finished (server.ts). Reads are not split: they are served as they arrive.
 */
import type { IncomingMessage } from 'node:http';
import type { ApiMetrics } from './metrics.js';
import type { Schema } from './flowcontrol/classify.js';

export interface StageMarks {
  /** The request's 'request' event (Node parsed its head). */
  arrived: number;
  /** serve() began: after the quantum's wait for a write. */
  started?: number;
  /** The body was read (body.ts). */
  read?: number;
  /** The request asked for a seat (flowcontrol/seats.ts); unset for one exempt from the fair queue. */
  seatAsked?: number;
  /** The FlowSchema of a request that asked for a seat, for the wait histogram's labels. */
  schema?: Schema;
  /** The seat was granted; unset for a request rejected with a 429. */
  seated?: number;
  /** After the body, the request's turn of the loop came (flowcontrol/turns.ts). */
  turned?: number;
  /** The handler returned: its answer is written, or queued behind earlier answers on its connection. */
  handled?: number;
}

const marks = new WeakMap<IncomingMessage, StageMarks>();

/** Starts the marks of a write (a read keeps none). */
export function trackStages(req: IncomingMessage, arrived: number): StageMarks {
  const m: StageMarks = { arrived };
  marks.set(req, m);
  return m;
}

/** The marks of a write, undefined for a read. */
export function stagesOf(req: IncomingMessage): StageMarks | undefined {
  return marks.get(req);
}

/** Sets `stage` to now on the request's marks, if it keeps any. */
export function markStage(req: IncomingMessage, stage: Exclude<keyof StageMarks, 'arrived' | 'schema'>): void {
  const m = marks.get(req);
  if (m) m[stage] = performance.now();
}

/** The seat's wait in seconds (0 when the request asked for none), as upstream's SLI leaves it out. */
export function seatWaitSeconds(m: StageMarks | undefined, end: number): number {
  if (!m || m.seatAsked === undefined) return 0;
  return ((m.seated ?? end) - m.seatAsked) / 1000;
}

type Labels = { verb: string; resource: string; subresource: string };

/**
 * Observes each stage the request passed through: `quantum` (arrival to serve), `body`
 * (authentication, authorization and the body's read), `seat` (the fair queue), `turn` (the
 * loop's quantum after the seat), `handler` (decode, admission, storage with its group commit,
 * the answer written or queued) and `answer` (the answer's wait for the socket, behind the
 * answers of earlier requests on its connection, and its write). A stage not reached is left out.
 */
export function observeStages(metrics: ApiMetrics, labels: Labels, key: string, m: StageMarks, end: number): void {
  // One key for the request's labels (server.ts makes it), the stage's name added: no label object
  // is built but for a series' first observation (a spread and a key per stage cost 5 µs a write).
  const stage = (name: string, from: number | undefined, to: number | undefined) => {
    if (from !== undefined && to !== undefined) metrics.stages.observeKeyed(key + name + '\x00', () => ({ ...labels, stage: name }), (to - from) / 1000);
  };
  stage('quantum', m.arrived, m.started);
  stage('body', m.started, m.read);
  stage('seat', m.seatAsked, m.seated);
  stage('turn', m.seated ?? m.read, m.turned);
  stage('handler', m.turned ?? m.started, m.handled);
  stage('answer', m.handled, end);
  const schema = m.schema;
  if (m.seatAsked !== undefined && schema) {
    const execute = m.seated === undefined ? 'false' : 'true';
    metrics.flowcontrolWait.observeKeyed(schema.waitKeys[execute], () => ({ flow_schema: schema.name, priority_level: schema.priorityLevel, execute }), seatWaitSeconds(m, end));
  }
}
