/**
 * Runs `fn` in a later turn of the event loop, after the loop has polled for I/O at least once.
 *
 * Why two setImmediates: an immediate queued from an I/O callback (an fsync's completion, a
 * socket's data) runs in the check phase of the same turn, right after that callback and before
 * any other socket is read; only one queued from the check phase itself waits for the next poll.
 * Chained, the second is always queued from a check phase, so another client's request whose
 * bytes wait in its socket is read (and, for a GET, answered) before `fn` runs.
 */
export function afterPoll(fn: () => void): void {
  setImmediate(() => setImmediate(fn));
}
