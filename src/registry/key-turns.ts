/**
 * Writers of one key in this process take turns. A guaranteed update that
 * loses its guard runs its whole mutate again (for an apply: decode, merge,
 * ownership of every manager); N writers racing for one key would cost about
 * N² of them, and on one event loop every retry delays every other client.
 * In turn, each reads the value the previous one wrote and wins at once.
 * Writers in other processes (servers sharing one etcd) still race; the
 * store's retry covers them, as upstream's GuaranteedUpdate does.
 *
 * The turn passes to the next writer after the event loop polled its
 * sockets, not in the microtask right after the previous
 * writer's answer: sixteen applies to one object would otherwise run as one
 * task per storage commit (one writer's answer and the next one's whole
 * merge), and another client's GET would wait for both.
 *
 * A turn is waited for until the request is over (its signal): a writer whose
 * request timed out leaves the line. A write of a key made while its turn is
 * held by the same call chain (the caller passes the `held` set its turn gave
 * it: the request context carries it, registry/request-context.ts) runs at
 * once, so it cannot wait on itself. The set is passed explicitly, not kept in
 * an AsyncLocalStorage, whose async hooks would run for every promise.
 */
import { afterPoll } from '../util/after-poll.js';

/**
 * The request's AbortSignal, or a function that makes it when first needed: a write that never
 * waits behind another writer nor retries a lost race (nearly all) never reads it, and an
 * AbortController made and aborted for every write request costs ~5 µs of the serving loop.
 */
export type RequestSignal = AbortSignal | (() => AbortSignal);

/** The AbortSignal of a RequestSignal (made now when it is a function). */
export const signalOf = (s: RequestSignal | undefined): AbortSignal | undefined => (typeof s === 'function' ? s() : s);

export class KeyTurnAbandoned extends Error {
  constructor(key: string) { super(`the request ended while waiting to write ${key}`); }
}

export class KeyTurns {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `fn` in `key`'s turn; `fn` gets the keys it holds (`held` and `key`), to pass to writes made from within. */
  async inTurn<T>(key: string, fn: (held: ReadonlySet<string>) => Promise<T>, signal?: RequestSignal, held?: ReadonlySet<string>): Promise<T> {
    if (held?.has(key)) return fn(held);
    const before = this.tails.get(key);
    let release!: () => void;
    const mine = new Promise<void>((resolve) => { release = resolve; });
    const tail = before ? before.then(() => mine) : mine;
    this.tails.set(key, tail);
    try {
      if (before) await waitUnlessAborted(before, signal, key);
      return await fn(held ? new Set([...held, key]) : new Set([key]));
    } finally {
      if (this.tails.get(key) === tail) {
        // Nobody behind: the next writer of this key starts at once.
        this.tails.delete(key);
        release();
      } else {
        afterPoll(release);
      }
    }
  }
}

function waitUnlessAborted(turn: Promise<void>, given: RequestSignal | undefined, key: string): Promise<void> {
  const signal = signalOf(given);
  if (!signal) return turn;
  if (signal.aborted) return Promise.reject(new KeyTurnAbandoned(key));
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(new KeyTurnAbandoned(key));
    signal.addEventListener('abort', onAbort, { once: true });
    turn.then(() => { signal.removeEventListener('abort', onAbort); resolve(); });
  });
}
