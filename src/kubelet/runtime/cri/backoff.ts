/**
 * Per-key exponential back-off, as upstream's flowcontrol.Backoff that the
 * kubelet uses for container restarts and image pulls (10 s doubling to
 * 5 min; an entry idle for twice the maximum is forgotten, so a container
 * that ran 10 minutes restarts at once again):
 *
 *  - isInBackOffSince(key, t): an entry exists, is not expired, and less
 *    than its current delay has passed since t (the container's finish time,
 *    or the failed pull);
 *  - next(key): the first call sets the initial delay, later ones double it
 *    up to the maximum.
 */
export const initialBackOffMs = 10_000;
export const maxBackOffMs = 300_000;

interface Entry { delayMs: number; lastUpdateMs: number }

export class Backoff {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number, private readonly initialMs = initialBackOffMs, private readonly maxMs = maxBackOffMs) {}

  /** The current delay for key (0 when none). */
  get(key: string): number {
    return this.entries.get(key)?.delayMs ?? 0;
  }

  next(key: string): void {
    const now = this.now();
    const e = this.entries.get(key);
    if (!e || this.expired(e, now)) this.entries.set(key, { delayMs: this.initialMs, lastUpdateMs: now });
    else this.entries.set(key, { delayMs: Math.min(e.delayMs * 2, this.maxMs), lastUpdateMs: now });
  }

  isInBackOffSince(key: string, sinceMs: number): boolean {
    const e = this.entries.get(key);
    if (!e || this.expired(e, sinceMs)) return false;
    return this.now() - sinceMs < e.delayMs;
  }

  /** Whether less than the current delay has passed since the last next() (image pulls). */
  isInBackOffSinceUpdate(key: string): boolean {
    const e = this.entries.get(key);
    if (!e) return false;
    const now = this.now();
    if (this.expired(e, now)) return false;
    return now - e.lastUpdateMs < e.delayMs;
  }

  /** When the back-off started at sinceMs ends. */
  until(key: string, sinceMs: number): number {
    return sinceMs + this.get(key);
  }

  forget(prefix: string): void {
    for (const k of this.entries.keys()) if (k.startsWith(prefix)) this.entries.delete(k);
  }

  private expired(e: Entry, eventMs: number): boolean {
    return eventMs - e.lastUpdateMs > 2 * this.maxMs;
  }
}

/** Go's time.Duration String for whole seconds and minutes: 10s, 1m20s, 5m0s. */
export function goDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  return `${Math.floor(s / 60)}m${s % 60}s`;
}
