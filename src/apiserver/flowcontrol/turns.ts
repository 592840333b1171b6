/**
 * Turns of the event loop for the CPU-bound part of writes. A burst of
 * writes (sixteen applies to one object, sixty-four creates by one user)
 * reaches the point after its bodies together, and each request then
 * decodes, admits, validates, tracks managed fields and appends to storage
 * without awaiting any I/O: started from one callback, the whole burst would
 * run as one uninterrupted task, and another client's GET, whose bytes
 * already wait in its socket, would be read only after all of it. Here the
 * requests that reach that point take turns: at most `perTurn` of them start
 * in one turn of the loop, so the loop polls its sockets (and serves that
 * GET) between groups. Several per turn, not one, so that storage's group
 * commit (also a setImmediate) still gathers several writes per transaction.
 *
 * Upstream has no equivalent: each request runs on its own goroutine and
 * the Go scheduler preempts between them.
 */
const perTurn = 4;

const waiting: Array<() => void> = [];
let scheduled = false;

/** Resolves when this request's turn comes: in a later turn of the event loop, after the loop polled for I/O. */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    if (!scheduled) {
      scheduled = true;
      setImmediate(runTurn);
    }
  });
}

function runTurn(): void {
  const now = waiting.splice(0, perTurn);
  // Queued from inside a setImmediate callback, the next turn runs after the loop's next poll for I/O.
  if (waiting.length) setImmediate(runTurn);
  else scheduled = false;
  for (const start of now) start();
}
