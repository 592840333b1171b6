/**
 * Which cached objects go cold, and when: the sweep the API server's watch cache
 * (registry/watch-cache/cold.ts) and the control loops' pod informer (client/cold-objects.ts)
 * share. An object nobody has touched for at least `afterMs` (and at most twice that) is
 * replaced in its cache by its cold form, its JSON text deflated against a dictionary of recent
 * objects' texts. The work runs on a timer of its own, never inside a request or a sync: each
 * tick walks on from where the last one stopped and stops after `budgetMs` of its own time (a
 * fifth of that while the event loop has been busy since the last tick), so a cache of 150,000
 * pods goes cold over minutes, a slice at a time, and a burst of work is not held up by it.
 *
 * "Untouched" is two generations of keys, not a time per object: the keys touched since the
 * last turn and those touched in the turn before; every `afterMs` the older set is dropped. An
 * object in neither has not been touched for at least `afterMs`.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

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
 * The options an environment variable asks for: a number of milliseconds (0: every object goes
 * cold within two ticks, which the end-to-end tests can run under), or "off" (undefined: objects
 * stay decoded); unset or not a number: the defaults.
 */
export function coldOptionsFromEnv(value: string | undefined): ColdOptions | undefined {
  if (value === 'off') return undefined;
  const afterMs = value === undefined || value === '' ? NaN : Number(value);
  return Number.isFinite(afterMs) && afterMs >= 0 ? { ...defaultColdOptions, afterMs } : defaultColdOptions;
}

/**
 * A deflate dictionary: the text of recent objects of one resource, their repeated parts
 * (templates, keys) what makes each object's bytes short. Kept for as long as a cold object made
 * with it is.
 */
export type ColdDictionary = Buffer;

/** The longest dictionary deflate uses (its window). */
const maxDictionaryBytes = 32 * 1024;

/** A dictionary from the texts of recent objects, the most recent last (deflate finds near matches cheapest). */
export function coldDictionary(texts: readonly string[]): ColdDictionary {
  const joined = Buffer.from(texts.join(''));
  return joined.length <= maxDictionaryBytes ? joined : joined.subarray(joined.length - maxDictionaryBytes);
}

/** How a cache's objects go cold: which entries are, an object's text, its cold form. */
export interface ColdForm<O, C> {
  isCold(entry: unknown): boolean;
  text(obj: O): string;
  cold(obj: O, text: string, dictionary: ColdDictionary): C;
}

/** Cold objects made with one dictionary before the next is built from the objects of then. */
const dictionaryUses = 10_000;
/** Entries skipped between two reads of the clock (a skip costs tens of nanoseconds). */
const skipsPerClockRead = 1024;
/** Event loop utilization since the last tick above which a tick does a fifth of its budget. */
const busy = 0.9;

export class ColdSweep<O = unknown, C = unknown> {
  private recent = new Set<string>();
  private previous = new Set<string>();
  private turnedAt: number;
  /** Where the walk stands, in the map it walks (a map replaced, as by a relist, starts the walk again). */
  private walk?: { map: Map<string, unknown>; it: Iterator<[string, unknown]> };
  /**
   * The map a walk went through to its end since the generations last turned: nothing in it can
   * go cold before they turn again (whatever was untouched went cold; whatever was touched since
   * is in `recent`), so walking it again each tick would only cost a lookup per object (at
   * 150,000 cold pods, milliseconds every tick of an idle process).
   */
  private walkedUntilTurn?: Map<string, unknown>;
  private dictionary?: ColdDictionary;
  private uses = 0;
  /** The text of the object that went cold last: half of the next dictionary. */
  private lastText?: string;
  private timer?: NodeJS.Timeout;
  private elu?: EventLoopUtilization;

  constructor(
    private readonly objects: () => Map<string, unknown>,
    private readonly opts: ColdOptions,
    private readonly form: ColdForm<O, C>,
  ) {
    this.turnedAt = performance.now();
  }

  /** The object under `key` was touched (written, or read for keeps): it stays decoded for a while. */
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

  /**
   * One tick: turns the generations when `afterMs` has passed, then makes untouched objects cold
   * until `budgetMs` is spent or the walk reaches the end of the map (the next tick starts it
   * again). Returns how many went cold.
   */
  sweep(budgetMs: number): number {
    const start = performance.now();
    if (start - this.turnedAt >= this.opts.afterMs) {
      this.previous = this.recent;
      this.recent = new Set();
      this.turnedAt = start;
      this.walkedUntilTurn = undefined;
    }
    const map = this.objects();
    if (this.walkedUntilTurn === map) return 0;
    if (this.walk?.map !== map) this.walk = { map, it: map.entries() };
    let made = 0;
    // The budget bounds the walk itself too, not only the objects made cold: skipping a cold or
    // recently touched entry is cheap, but 150,000 of them are not.
    for (let visited = 1; ; visited++) {
      const next = this.walk.it.next();
      if (next.done) { this.walk = undefined; this.walkedUntilTurn = map; break; }
      const [key, entry] = next.value;
      if (this.form.isCold(entry) || this.recent.has(key) || this.previous.has(key)) {
        if (visited % skipsPerClockRead === 0 && performance.now() - start >= budgetMs) break;
        continue;
      }
      // Read and replaced in one turn of the loop: nothing can have written the key in between.
      map.set(key, this.cold(entry as O));
      made++;
      if (performance.now() - start >= budgetMs) break;
    }
    return made;
  }

  private cold(obj: O): C {
    const text = this.form.text(obj);
    if (this.dictionary === undefined || this.uses >= dictionaryUses) {
      // This object's text and the last one's: two recent objects of the resource, often of two templates.
      this.dictionary = coldDictionary(this.lastText !== undefined && this.lastText !== text ? [this.lastText, text] : [text]);
      this.uses = 0;
    }
    this.uses++;
    this.lastText = text;
    return this.form.cold(obj, text, this.dictionary);
  }
}
