/**
 * When an informer's objects go cold (cold-objects.ts): an object no watch event has changed,
 * and no keyed read (get, byIndex) has asked for, for at least `afterMs` (at most twice that) is
 * replaced in the cache by its cold form, by the sweep the API server's watch cache uses
 * (util/cold-sweep.ts: its own timer, a budget per tick, two generations of touched keys).
 */
import { ColdSweep as Sweep, coldOptionsFromEnv, defaultColdOptions, type ColdOptions } from '../util/cold-sweep.js';
import { ColdObject, isCold } from './cold-objects.js';

export { defaultColdOptions, type ColdOptions };

/**
 * The options K8TS_INFORMER_COLD_AFTER_MS asks for: milliseconds (0: every untouched object goes
 * cold within two ticks, which tests run under), "on" (the defaults, 60-120 s), or "off"/unset
 * (objects stay decoded). Off by default: a cold pod costs the informer about 0.6 KB against
 * 1.5 KB decoded past the pools' bounds (mem8, mem9), but at 5,000 nodes and 150,000 pods the
 * server's peak RSS was no lower with it (1,767 against 1,672 MB) and the control loops' CPU
 * higher (222 against 198 s; one run each: bench/RESULTS.md `scale-150k-end-2026-12-07`).
 */
export const coldOptionsFrom = (value: string | undefined): ColdOptions | undefined =>
  (value === undefined || value === '' ? undefined : coldOptionsFromEnv(value));

export class ColdSweep extends Sweep<object, ColdObject> {
  constructor(objects: Map<string, unknown>, opts: ColdOptions) {
    super(() => objects, opts, { isCold, text: (obj) => JSON.stringify(obj), cold: (obj, text, dictionary) => ColdObject.of(obj, text, dictionary) });
  }
}
