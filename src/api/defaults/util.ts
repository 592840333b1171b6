/** Helpers for defaulting decoded JSON in place: set-if-absent and canonical quantities. */
import { formatQuantity, parseQuantity, roundUpQuantity } from '../quantity.js';

export type Obj = Record<string, any>;

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const list = (v: unknown): any[] => (Array.isArray(v) ? v : []);
export const objects = (v: unknown): Obj[] => list(v).filter(isObj);

/** Sets `o[k]` when it is absent (undefined or null), like Go's nil/zero checks. */
export function setDefault(o: Obj, k: string, value: unknown): void {
  if (o[k] === undefined || o[k] === null || o[k] === '') o[k] = value;
}

/** The nested object at `o[k]`, created when absent. */
export function ensure(o: Obj, k: string): Obj {
  if (!isObj(o[k])) o[k] = {};
  return o[k];
}

/** A quantity written back in canonical form (what upstream serializes); unparseable ones are left for validation. */
export function canonicalize(o: Obj, k: string, roundToMilli = false): void {
  const q = parseQuantity(o[k]);
  if (q) o[k] = formatQuantity(roundToMilli ? roundUpQuantity(q, -3) : q);
}

/** SetDefaults_ResourceList: every quantity rounded up to milli, in canonical form. */
export function defaultResourceList(l: unknown): void {
  if (!isObj(l)) return;
  for (const k of Object.keys(l)) canonicalize(l, k, true);
}
