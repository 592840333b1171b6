/**
 * Which cached objects go cold (cold.ts), and when: an object nobody has read for an update or
 * written for at least `afterMs` (and at most twice that) is replaced in its cache by its cold
 * form. The sweep itself (its timer, budget and two generations of touched keys) is shared with
 * the control loops' pod informer: util/cold-sweep.ts.
 */
import type { Unstructured } from '../../api/unstructured.js';
import { ColdSweep as Sweep, coldOptionsFromEnv, defaultColdOptions, type ColdOptions } from '../../util/cold-sweep.js';
import { ColdObject, isCold, type ColdForm } from './cold.js';
import { objectJSON } from './rendered-json.js';

export { defaultColdOptions, type ColdOptions };

/**
 * The options K8TS_WATCH_CACHE_COLD_AFTER_MS asks for: a number of milliseconds (0: every pod
 * goes cold within two ticks, which the end-to-end tests can run under), or "off" (pods stay
 * decoded); unset or not a number: the defaults.
 */
export function coldOptionsFrom(value: string | undefined): ColdOptions | false {
  return coldOptionsFromEnv(value) ?? false;
}

export class ColdSweep extends Sweep<Unstructured, ColdObject> {
  constructor(form: ColdForm, objects: () => Map<string, unknown>, opts: ColdOptions) {
    super(objects, opts, { isCold, text: objectJSON, cold: (obj, text, dictionary) => ColdObject.of(obj, text, form, dictionary) });
  }
}
