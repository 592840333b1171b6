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
import type { IncomingMessage } from 'node:http';
import { nextQuantum, runningTask } from '../../util/loop-quantum.js';

/** The loop-quantum task in which each write began to be served (server.ts). */
const arrivalTasks = new WeakMap<IncomingMessage, number>();

/** Notes that `req` is served from the task running now: its first steps took their turn. */
export function servedInTurn(req: IncomingMessage): void {
  const task = runningTask();
  if (task !== 0) arrivalTasks.set(req, task);
}

/**
 * Whether the steps running now are still those of the task `req` began in, so no I/O was awaited
 * since its turn came: its next steps may run in that turn without taking another.
 */
export function stillInItsTurn(req: IncomingMessage): boolean {
  const task = runningTask();
  return task !== 0 && arrivalTasks.get(req) === task;
}

/** Resolves when this request's turn comes: in a turn of the event loop whose quantum has time left. */
export function nextTurn(): Promise<void> {
  return nextQuantum();
}
