/**
 * Turns of the event loop for the CPU-bound part of writes. A burst of
 * writes (sixteen applies to one object, sixty-four creates by one user)
 * reaches the point after its bodies together, and each request then
 * decodes, admits, validates, tracks managed fields and appends to storage
 * without awaiting any I/O: started from one callback, the whole burst would
 * run as one uninterrupted task, and another client's GET, whose bytes
 * already wait in its socket, would be read only after all of it. Here the
 * requests that reach that point take turns: they start while the loop's
 * time quantum lasts (util/loop-quantum.ts, about a millisecond, shared with
 * the answers of durable writes), so the loop polls its sockets (and serves
 * that GET) between groups. Several per turn when they are cheap, so that
 * storage's group commit (also a setImmediate) still gathers several writes
 * per transaction.
 *
 * Upstream has no equivalent: each request runs on its own goroutine and
 * the Go scheduler preempts between them.
 */
import { inQuantum, nextQuantum } from '../../util/loop-quantum.js';

/** Resolves when this request's turn comes: in a turn of the event loop whose quantum has time left. */
export function nextTurn(): Promise<void> {
  return nextQuantum();
}

/** Runs `step` when this request's turn comes (nextTurn without its promise, for a caller that has one already). */
export function inTurn(step: () => void): void {
  inQuantum(step);
}
