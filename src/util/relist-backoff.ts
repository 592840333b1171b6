/**
 * How long a cache waits before listing and watching a kind again after its
 * watch ended or its list failed (client-go's reflector backs off the same
 * way): 100 ms, doubling to 10 s, and back to 100 ms once a watch has lasted
 * 10 s. A storage outage (etcd down, a locked database) is then retried a few
 * times a minute instead of in a loop that floods the log and the storage.
 */
export class RelistBackoff {
  private attempt = 0;
  private watchingSince?: number;

  constructor(private readonly initialMs = 100, private readonly maxMs = 10_000, private readonly now: () => number = Date.now) {}

  /** A watch is open again. */
  watching(): void { this.watchingSince = this.now(); }

  /** The delay before the next list. */
  next(): number {
    if (this.watchingSince !== undefined && this.now() - this.watchingSince >= this.maxMs) this.attempt = 0;
    this.watchingSince = undefined;
    return Math.min(this.maxMs, this.initialMs * 2 ** this.attempt++);
  }
}
