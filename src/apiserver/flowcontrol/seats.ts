/**
 * Where the fair queue meets a request. A mutating request takes its seat
 * after its body is read (readBody) and holds it until its response closes:
 * the seat covers the steps whose cost the client controls (decode,
 * validation, admission, storage), and not the upload, so a client that
 * sends its bodies slowly holds no seat (upstream's APF seats the whole
 * handler; k8ts's one loop makes the upload free but the steps after it not).
 *
 * Who is queued where, as upstream's default FlowSchemas say (classify.ts):
 * `system:masters` and the health probes are exempt; the nodes' own node and
 * lease writes wait in node-high, their other writes in system; the
 * controller manager's and the scheduler's in workload-high (a flow per
 * namespace, so node lifecycle's cluster-scoped writes are not behind its pod
 * creates); service accounts in workload-low; everyone else in
 * global-default, a flow per user. Each level has its own seats and queues
 * (levels.ts).
 * Reads (get, list, watch) take no seat: they are served from the watch
 * cache at a cost that does not grow with what the client sends.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tooManyRequests } from '../../api/status.js';
import type { UserInfo } from '../auth/types.js';
import type { RequestInfo } from '../request-info.js';
import { stagesOf, type StageMarks } from '../request-stages.js';
import { flowOf, type Schema } from './classify.js';
import type { Level } from './levels.js';

const seatedVerbs = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** The seat a request takes once its body is read, set by the server after authorization. */
const pending = new WeakMap<IncomingMessage, (bytes: number) => Promise<void> | void>();

/**
 * Marks `req`, which matched `schema` (of `level`), as needing a seat before the work after its
 * body, unless its level or verb is exempt; true if it is to take one.
 */
export function seatAfterBody(level: Level | undefined, schema: Schema, req: IncomingMessage, res: ServerResponse, user: UserInfo, info: RequestInfo): boolean {
  if (!level?.queue || !seatedVerbs.has(info.verb)) return false;
  const marks = stagesOf(req);
  if (marks) marks.schema = schema;
  pending.set(req, (bytes) => takeSeat(level, schema, res, flowOf(schema, user, info), bytes, marks));
  return true;
}

/** Waits for the seat `req` (whose body is `bytes` long) needs, if any; throws upstream's 429 when its flow's queue is full. */
export function seatFor(req: IncomingMessage, bytes = 0): Promise<void> | void {
  const take = pending.get(req);
  if (!take) return;
  pending.delete(req);
  return take(bytes);
}

async function takeSeat(level: Level, schema: Schema, res: ServerResponse, flow: string, bytes: number, marks: StageMarks | undefined): Promise<void> {
  if (marks) marks.seatAsked = performance.now();
  const got = level.queue!.acquire(flow, (forget) => res.once('close', () => { if (forget()) schema.inQueue--; }), bytes);
  if (got === 'rejected') {
    schema.rejected[level.rejects ? 'concurrency-limit' : 'queue-full']++;
    throw tooManyRequests();
  }
  let release: () => void;
  if (typeof got === 'function') release = got;
  else {
    schema.inQueue++;
    release = await got;
    schema.inQueue--;
  }
  schema.dispatched++;
  if (marks) marks.seated = performance.now();
  if (res.closed) return release();
  res.once('close', release);
}
