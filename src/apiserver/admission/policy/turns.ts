/**
 * Turns on the serving loop for policy expressions: one expression of one
 * request at a time; after an expression that took a while, the next one
 * (of any request) starts only on a later turn of the loop (setImmediate),
 * so other clients' requests are read and served between two costly
 * evaluations. Without it, six concurrent creates under a costly policy
 * ran their evaluations back to back and held a bystander's /readyz 3 s.
 */
let busy = false;
/** The last expression took long enough that the next must let the loop turn first. */
let owed = false;
const waiters: (() => void)[] = [];
const yieldAfterMs = 2;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Waits for the turn; call the returned function with the expression's duration when it is done. */
export async function takeTurn(): Promise<(elapsedMs: number) => void> {
  if (busy) await new Promise<void>((resolve) => waiters.push(resolve));
  busy = true;
  if (owed) {
    owed = false;
    await nextTurn();
  }
  return (elapsedMs) => {
    if (elapsedMs > yieldAfterMs) owed = true;
    // The next waiter goes on at once; if this expression was costly, it first lets the loop turn (above).
    const next = waiters.shift();
    if (next) next();
    else busy = false;
  };
}
