/**
 * ResourceList arithmetic for quota (upstream k8s.io/apiserver/pkg/quota/v1
 * resources.go): lists of named quantities added, subtracted, masked to a set
 * of names and compared, exactly (Quantity arithmetic, no floating point).
 */
import { Quantity, addQuantities, compareQuantities, formatQuantity, isZeroQuantity, parseQuantity, subtractQuantities } from '../quantity.js';

export type ResourceList = Map<string, Quantity>;

/** A decoded ResourceList; quantities that do not parse are skipped (validation refuses them). */
export function parseResourceList(list: Record<string, unknown> | undefined | null): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of Object.entries(list ?? {})) {
    const q = parseQuantity(v);
    if (q) out.set(k, q);
  }
  return out;
}

/** The JSON form, each quantity canonical. */
export function resourceListJSON(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of [...list.keys()].sort()) out[k] = formatQuantity(list.get(k)!);
  return out;
}

/** a + b; a name in only one list keeps its value. */
export function addLists(a: ResourceList, b: ResourceList): ResourceList {
  const out = new Map(a);
  for (const [k, v] of b) out.set(k, out.has(k) ? addQuantities(out.get(k)!, v) : v);
  return out;
}

/** a - b for the names in a (upstream Subtract keeps names only in b as their negation; quota never needs them). */
export function subtractLists(a: ResourceList, b: ResourceList): ResourceList {
  const out = new Map(a);
  for (const [k, v] of b) if (out.has(k)) out.set(k, subtractQuantities(out.get(k)!, v));
  return out;
}

/** The entries whose names are in `names`. */
export function maskList(list: ResourceList, names: Iterable<string>): ResourceList {
  const keep = new Set(names);
  return new Map([...list].filter(([k]) => keep.has(k)));
}

export function removeZeros(list: ResourceList): ResourceList {
  return new Map([...list].filter(([, v]) => !isZeroQuantity(v)));
}

/** LessThanOrEqual: every name of a present in b with a[name] <= b[name]; the names that are not, sorted. */
export function lessThanOrEqual(a: ResourceList, b: ResourceList): { allowed: boolean; exceeded: string[] } {
  const exceeded: string[] = [];
  for (const [k, v] of a) {
    const limit = b.get(k);
    if (limit && compareQuantities(v, limit) > 0) exceeded.push(k);
  }
  exceeded.sort();
  return { allowed: exceeded.length === 0, exceeded };
}

/** prettyPrint: `name=quantity` sorted by name, joined by ",". */
export function prettyPrint(list: ResourceList): string {
  return [...list.keys()].sort().map((k) => `${k}=${formatQuantity(list.get(k)!)}`).join(',');
}

export const listsEqual = (a: ResourceList, b: ResourceList): boolean =>
  a.size === b.size && [...a].every(([k, v]) => b.has(k) && compareQuantities(v, b.get(k)!) === 0);
