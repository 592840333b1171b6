/**
 * Where the fair queue meets a request. A mutating request takes its seat
 * after its body is read (readBody) and holds it until its response closes:
 * the seat covers the steps whose cost the client controls (decode,
 * validation, admission, storage), and not the upload, so a client that
 * sends its bodies slowly holds no seat (upstream's APF seats the whole
 * handler; k8ts's one loop makes the upload free but the steps after it not).
 *
 * Who is queued, as upstream's default FlowSchemas: requests of the
 * `system:masters` group are exempt (the `exempt` priority level); every
 * other user is a flow of its own (the `ByUser` distinguisher of the
 * `global-default` schema, which takes any authenticated user, and of
 * `service-accounts`, `workload-low`).
 * Reads (get, list, watch) take no seat: they are served from the watch
 * cache at a cost that does not grow with what the client sends.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tooManyRequests } from '../../api/status.js';
import type { UserInfo } from '../auth/types.js';
import type { FairQueue } from './fair-queue.js';
import { stagesOf, type StageMarks } from '../request-stages.js';

const seatedVerbs = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** The seat a request takes once its body is read, set by the server after authorization. */
const pending = new WeakMap<IncomingMessage, (bytes: number) => Promise<void> | void>();

/** Marks `req` as needing a seat of `queue` before the work after its body, unless its user or verb is exempt. */
export function seatAfterBody(queue: FairQueue | undefined, req: IncomingMessage, res: ServerResponse, user: UserInfo, verb: string): void {
  if (!queue || !seatedVerbs.has(verb) || user.groups.includes('system:masters')) return;
  pending.set(req, (bytes) => takeSeat(queue, res, user.name, bytes, stagesOf(req)));
}

/** Waits for the seat `req` (whose body is `bytes` long) needs, if any; throws upstream's 429 when its flow's queue is full. */
export function seatFor(req: IncomingMessage, bytes = 0): Promise<void> | void {
  const take = pending.get(req);
  if (!take) return;
  pending.delete(req);
  return take(bytes);
}

async function takeSeat(queue: FairQueue, res: ServerResponse, flow: string, bytes: number, marks: StageMarks | undefined): Promise<void> {
  if (marks) marks.seatAsked = performance.now();
  const got = queue.acquire(flow, (forget) => res.once('close', forget), bytes);
  if (got === 'rejected') throw tooManyRequests();
  const release = typeof got === 'function' ? got : await got;
  if (marks) marks.seated = performance.now();
  if (res.closed) return release();
  res.once('close', release);
}
