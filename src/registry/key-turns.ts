/**
 * Writers of one key in this process take turns. A guaranteed update that
 * loses its guard runs its whole mutate again (for an apply: decode, merge,
 * ownership of every manager); N writers racing for one key would cost about
 * N² of them, and on one event loop every retry delays every other client.
 * In turn, each reads the value the previous one wrote and wins at once.
 * Writers in other processes (servers sharing one etcd) still race; the
 * store's retry covers them, as upstream's GuaranteedUpdate does.
 *
 * A turn is waited for at most `maxWaitMs`: a writer that somehow waits on
 * itself (a mutate that writes its own key) goes ahead racing instead of
 * waiting for ever.
 */
export class KeyTurns {
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly maxWaitMs = 2_000) {}

  async inTurn<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key);
    let release!: () => void;
    const mine = new Promise<void>((resolve) => { release = resolve; });
    const tail = before ? before.then(() => mine) : mine;
    this.tails.set(key, tail);
    try {
      if (before) await this.waitAtMost(before);
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  private waitAtMost(turn: Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => { timer = setTimeout(resolve, this.maxWaitMs); });
    return Promise.race([turn, late]).finally(() => clearTimeout(timer));
  }
}
