/**
 * When an informer's objects go cold (cold-objects.ts): an object no watch event has changed,
 * and no keyed read (get, byIndex) has asked for, for at least `afterMs` (at most twice that) is
 * replaced in the cache by its cold form. As the API server's watch cache does it
 * (registry/watch-cache/cold-sweep.ts): on a timer of its own, each tick walking on from where
 * the last one stopped for at most `budgetMs` of its time (a fifth of it while the event loop has
 * been busy), so 150,000 pods go cold a slice at a time, between the control loops' work.
 *
 * "Untouched" is two generations of keys, not a time per object (a number per pod would cost
 * what the cold form saves): the keys touched since the last turn and in the turn before; every
 * `afterMs` the older set is dropped.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { ColdObject, coldDictionary, isCold, type ColdDictionary } from './cold-objects.js';

export interface ColdOptions {
  /** How long an object stays decoded after it was last touched (at least; at most twice). */
  afterMs: number;
  /** Time between two ticks of the sweep. */
  tickMs: number;
  /** The sweep's own time per tick, at most. */
  budgetMs: number;
}

export const defaultColdOptions: ColdOptions = { afterMs: 60_000, tickMs: 100, budgetMs: 5 };

/**
 * The options K8TS_INFORMER_COLD_AFTER_MS asks for: milliseconds (0: every untouched object goes
 * cold within two ticks, which tests run under), or "off" (objects stay decoded); unset or not a
 * number: the defaults.
 */
export function coldOptionsFrom(value: string | undefined): ColdOptions | undefined {
  if (value === 'off') return undefined;
  const afterMs = value === undefined || value === '' ? NaN : Number(value);
  return Number.isFinite(afterMs) && afterMs >= 0 ? { ...defaultColdOptions, afterMs } : defaultColdOptions;
}

/** Cold objects made with one dictionary before the next is built from the objects of then. */
const dictionaryUses = 10_000;
/** Entries skipped between two reads of the clock. */
const skipsPerClockRead = 1024;
/** Event loop utilization since the last tick above which a tick does a fifth of its budget. */
const busy = 0.9;

export class ColdSweep {
  private recent = new Set<string>();
  private previous = new Set<string>();
  private turnedAt = performance.now();
  private walk?: Iterator<[string, unknown]>;
  /** Walked to its end since the generations last turned: nothing more can go cold before the next turn. */
  private walkedUntilTurn = false;
  private dictionary?: ColdDictionary;
  private uses = 0;
  private lastText?: string;
  private timer?: NodeJS.Timeout;
  private elu?: EventLoopUtilization;

  constructor(private readonly objects: Map<string, unknown>, private readonly opts: ColdOptions) {}

  /** The object under `key` was written or asked for by key: it stays decoded for a while. */
  touch(key: string): void { this.recent.add(key); }

  start(): void {
    if (this.timer || this.opts.tickMs <= 0) return;
    this.elu = performance.eventLoopUtilization();
    const tick = () => {
      const elu = performance.eventLoopUtilization(this.elu);
      this.elu = performance.eventLoopUtilization();
      this.sweep(elu.utilization > busy ? this.opts.budgetMs / 5 : this.opts.budgetMs);
      this.timer = setTimeout(tick, this.opts.tickMs);
      this.timer.unref();
    };
    this.timer = setTimeout(tick, this.opts.tickMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** One tick: turns the generations when due, then makes untouched objects cold within `budgetMs`. Returns how many. */
  sweep(budgetMs: number): number {
    const start = performance.now();
    if (start - this.turnedAt >= this.opts.afterMs) {
      this.previous = this.recent;
      this.recent = new Set();
      this.turnedAt = start;
      this.walkedUntilTurn = false;
    }
    if (this.walkedUntilTurn) return 0;
    this.walk ??= this.objects.entries();
    let made = 0;
    for (let visited = 1; ; visited++) {
      const next = this.walk.next();
      if (next.done) { this.walk = undefined; this.walkedUntilTurn = true; break; }
      const [key, entry] = next.value;
      if (isCold(entry) || this.recent.has(key) || this.previous.has(key)) {
        if (visited % skipsPerClockRead === 0 && performance.now() - start >= budgetMs) break;
        continue;
      }
      // Read and replaced in one turn of the loop: nothing can have written the key in between.
      this.objects.set(key, this.cold(entry as object));
      made++;
      if (performance.now() - start >= budgetMs) break;
    }
    return made;
  }

  private cold(obj: object): ColdObject {
    const text = JSON.stringify(obj);
    if (this.dictionary === undefined || this.uses >= dictionaryUses) {
      // This object's text and the last one's: two recent objects, often of two templates.
      this.dictionary = coldDictionary(this.lastText !== undefined && this.lastText !== text ? [this.lastText, text] : [text]);
      this.uses = 0;
    }
    this.uses++;
    this.lastText = text;
    return ColdObject.of(obj, text, this.dictionary);
  }
}
