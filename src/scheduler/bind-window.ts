/**
 * How many bindings the scheduler keeps in flight: a congestion window on the answers' round
 * trip, as TCP's on its acknowledgements. Every binding the server has received counts against
 * its latency SLI (POST pods/binding p99 <= 1 s) from the moment Node parses it, and a pipelined
 * binding is parsed long before its turn: with a fixed 128 in flight and a server that completes
 * 300 bindings a second among its other writes, each waited ~0.4 s in the server on average and
 * the tail passed 1 s (Little's law; bench/RESULTS.md `slo1`). Upstream's scheduler binds in a
 * goroutine per pod and the excess waits in client-go's rate limiter, on the client's side.
 *
 * Here a binding answered within `targetMs` of its send lets the window grow (by one per answer
 * while answers are far below the target, by one per window's worth of answers near it); one
 * answered later halves the window, once per round trip: the answers of bindings sent before the
 * cut report the congestion the cut already answered. The window stays within [min, max].
 */
export interface BindWindowOptions {
  /** Bindings in flight at most (the scheduler's maxInFlightBinds). */
  max: number;
  /** Bindings in flight at least, however slow the answers: one per connection of the client's pool. */
  min: number;
  /** A binding answered later than this after its send is a sign of a queue in the server. */
  targetMs: number;
}

/** The defaults: 16 is the pipelined pool's connections (client/light-pool.ts); 250 ms leaves the 1 s SLO four times the target. */
export const defaultBindWindow: Omit<BindWindowOptions, 'max'> = { min: 16, targetMs: 250 };

export class BindWindow {
  private limit: number;
  /** performance.now() of the last cut: answers to bindings sent before it do not cut again. */
  private cutAt = -Infinity;

  constructor(private readonly o: BindWindowOptions) {
    this.limit = o.max;
  }

  /** Bindings that may be in flight now. */
  get size(): number {
    return Math.max(this.o.min, Math.floor(this.limit));
  }

  /** A binding sent at `sentAt` was answered (successfully or not) at `now` (performance.now() values). */
  answered(sentAt: number, now: number): void {
    const rtt = now - sentAt;
    if (rtt > this.o.targetMs) {
      if (sentAt <= this.cutAt) return;
      this.cutAt = now;
      this.limit = Math.max(this.o.min, this.limit / 2);
      return;
    }
    if (this.limit >= this.o.max) return;
    this.limit = Math.min(this.o.max, this.limit + (rtt < this.o.targetMs / 4 ? 1 : 1 / this.limit));
  }
}

/**
 * The window K8TS_SCHEDULER_BIND_TARGET_MS asks for: a target in milliseconds turns it on with
 * the default minimum; unset, empty or "off" leaves the scheduler's fixed maxInFlightBinds.
 */
export function bindWindowFromEnv(value: string | undefined): Partial<Omit<BindWindowOptions, 'max'>> | false {
  if (value === undefined || value === '' || value === 'off') return false;
  const targetMs = Number(value);
  if (!Number.isFinite(targetMs) || targetMs <= 0) throw new Error(`K8TS_SCHEDULER_BIND_TARGET_MS: want a number of milliseconds or "off", got ${JSON.stringify(value)}`);
  return { targetMs };
}
