/**
 * One heavy-lane job answered in its worker thread (worker.ts): a value or a
 * Status, never shared state.
 */
import { StatusError } from '../../api/status.js';
import { readObjectBody } from './object-body.js';
import type { HeavyRequest, HeavyResponse } from './protocol.js';

export function answerJob(req: HeavyRequest): HeavyResponse {
  try {
    // A custom resource's parsed body stays here: the loop reads its text again if it needs it.
    const { raw: _, ...value } = readObjectBody(req.job);
    return { id: req.id, ok: true, value };
  } catch (e) {
    return e instanceof StatusError
      ? { id: req.id, ok: false, status: e.status }
      : { id: req.id, ok: false, error: (e as Error)?.stack ?? String(e) };
  }
}
