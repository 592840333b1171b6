/**
 * Which cached objects go cold (cold.ts), and when: an object nobody has read for an update or
 * written for at least `afterMs` (and at most twice that) is replaced in its cache by its cold
 * form. The work runs on a timer of its own, never inside a request: each tick walks on from
 * where the last one stopped and stops after `budgetMs` of its own time (a fifth of that
 * while the event loop has been busy since the last tick), so a cache of 150,000 pods goes
 * cold over minutes, a slice at a time, and a burst of requests is not held up by it.
 *
 * "Untouched" is two generations of keys, not a time per object: the keys touched since the
 * last turn and those touched in the turn before; every `afterMs` the older set is dropped. An
 * object in neither has not been touched for at least `afterMs`.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { Unstructured } from '../../api/unstructured.js';
import { ColdObject, coldDictionary, isCold, type ColdDictionary, type ColdStub } from './cold.js';
import { objectJSON } from './rendered-json.js';

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
 * The options K8TS_WATCH_CACHE_COLD_AFTER_MS asks for: a number of milliseconds (0: every pod
 * goes cold within two ticks, which the end-to-end tests can run under), or "off" (pods stay
 * decoded); unset or not a number: the defaults.
 */
export function coldOptionsFrom(value: string | undefined): ColdOptions | false {
  if (value === 'off') return false;
  const afterMs = value === undefined || value === '' ? NaN : Number(value);
  return Number.isFinite(afterMs) && afterMs >= 0 ? { ...defaultColdOptions, afterMs } : defaultColdOptions;
}

/** Cold objects made with one dictionary before the next is built from the objects of then. */
const dictionaryUses = 10_000;
/** Entries skipped between two reads of the clock (a skip costs tens of nanoseconds). */
const skipsPerClockRead = 1024;
/** Event loop utilization since the last tick above which a tick does a fifth of its budget. */
const busy = 0.9;

export class ColdSweep {
  private recent = new Set<string>();
  private previous = new Set<string>();
  private turnedAt: number;
  /** Where the walk stands, in the map it walks (a relist replaces the map: the walk starts again). */
  private walk?: { map: Map<string, unknown>; it: Iterator<[string, unknown]> };
  /**
   * The map a walk went through to its end since the generations last turned: nothing in it can
   * go cold before they turn again (whatever was untouched went cold; whatever was touched since
   * is in `recent`), so walking it again each tick would only cost a lookup per object (at
   * 150,000 cold pods, milliseconds every tick of an idle server).
   */
  private walkedUntilTurn?: Map<string, unknown>;
  private dictionary?: ColdDictionary;
  private uses = 0;
  /** The text of the object that went cold last: half of the next dictionary. */
  private lastText?: string;
  private timer?: NodeJS.Timeout;
  private elu?: EventLoopUtilization;

  constructor(
    private readonly stubOf: (obj: Unstructured) => ColdStub,
    private readonly objects: () => Map<string, unknown>,
    private readonly opts: ColdOptions,
  ) {
    this.turnedAt = performance.now();
  }

  /** The object under `key` was read for an update or written: it stays decoded for a while. */
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
      if (isCold(entry) || this.recent.has(key) || this.previous.has(key)) {
        if (visited % skipsPerClockRead === 0 && performance.now() - start >= budgetMs) break;
        continue;
      }
      // Read and replaced in one turn of the loop: nothing can have written the key in between.
      map.set(key, this.cold(entry as Unstructured));
      made++;
      if (performance.now() - start >= budgetMs) break;
    }
    return made;
  }

  private cold(obj: Unstructured): ColdObject {
    const text = objectJSON(obj);
    if (this.dictionary === undefined || this.uses >= dictionaryUses) {
      // This object's text and the last one's: two recent objects of the resource, often of two templates.
      this.dictionary = coldDictionary(this.lastText !== undefined && this.lastText !== text ? [this.lastText, text] : [text]);
      this.uses = 0;
    }
    this.uses++;
    this.lastText = text;
    return ColdObject.of(obj, text, this.stubOf, this.dictionary);
  }
}
