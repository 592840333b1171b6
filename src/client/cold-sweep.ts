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
 * cold within two ticks, which tests run under), or "off" (objects stay decoded); unset or "on":
 * the defaults (60-120 s). On by default: below the string and subtree pools' bounds (a few
 * thousand pods) they still hold part of each cold pod, but past them a cold pod costs the
 * informer about 0.6 KB against 1.5 KB decoded (bench/RESULTS.md, mem8, mem9).
 */
export const coldOptionsFrom = (value: string | undefined): ColdOptions | undefined => coldOptionsFromEnv(value);

export class ColdSweep extends Sweep<object, ColdObject> {
  constructor(objects: Map<string, unknown>, opts: ColdOptions) {
    super(() => objects, opts, { isCold, text: (obj) => JSON.stringify(obj), cold: (obj, text, dictionary) => ColdObject.of(obj, text, dictionary) });
  }
}
