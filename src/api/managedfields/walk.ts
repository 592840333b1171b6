/**
 * Shared steps of the typed walks: the type of a child, and the path element
 * of a list item (structured-merge-diff's listItemToPathElement).
 */
import { fieldElement, keyElement, valueElement, type PathElement } from './path.js';
import { deduced, type ListType, type TypeNode } from './types.js';

export type JSONObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JSONObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Past this many keys an object's key list is remembered within listingKeysOnce. */
const wideObject = 1024;
let keyLists: WeakMap<object, string[]> | undefined;

/**
 * Object.keys, listed once per wide object within listingKeysOnce: the create cache's shape walk
 * and the comparison both list a wide map, and a decoded body's 50,000-key map takes ~7 ms per
 * listing (V8 sorts a dictionary's keys into insertion order each time).
 */
export function keysOf(o: JSONObject): string[] {
  if (!keyLists) return Object.keys(o);
  let keys = keyLists.get(o);
  if (keys === undefined) {
    keys = Object.keys(o);
    if (keys.length >= wideObject) keyLists.set(o, keys);
  }
  return keys;
}

/** Runs `f` with keysOf remembering wide objects' keys: only for work that changes no object it reads. */
export function listingKeysOnce<T>(f: () => T): T {
  if (keyLists) return f();
  keyLists = new WeakMap();
  try {
    return f();
  } finally {
    keyLists = undefined;
  }
}

/** A map-like node: a granular struct, map or deduced object. */
export function isGranularMap(t: TypeNode, v: unknown): boolean {
  if (t.kind === 'struct' || t.kind === 'map') return !t.atomic;
  return t.kind === 'deduced' && isObject(v);
}

export function isGranularList(t: TypeNode): t is ListType {
  return t.kind === 'list' && t.listType !== 'atomic';
}

/** The type of field `name` inside a map-like node, and whether it is a declared (named) struct field. */
export function childType(t: TypeNode, name: string): { type: TypeNode; named: boolean } {
  if (t.kind === 'struct') {
    const f = t.field(name);
    return f ? { type: f, named: true } : { type: deduced, named: false };
  }
  if (t.kind === 'map') return { type: t.value, named: false };
  return { type: deduced, named: false };
}

/** Defaults upstream's schemas give list-map key fields (ports' protocol). */
const keyDefaults: Readonly<Record<string, unknown>> = { protocol: 'TCP' };

/** The path element of a list item; throws upstream's message when a key field is missing. */
export function listItemElement(t: ListType, item: unknown): PathElement {
  if (t.listType === 'set') return valueElement(item);
  const fields: JSONObject = {};
  for (const key of t.keys) {
    let v = isObject(item) ? item[key] : undefined;
    if (v === undefined || v === null) v = keyDefaults[key];
    if (v === undefined) throw new Error(`associative list with keys has an element that omits key field ${JSON.stringify(key)} (and doesn't have default value)`);
    fields[key] = v;
  }
  return keyElement(fields);
}

export { fieldElement };

/** Deep equality of decoded JSON values. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  // Empty objects (every leaf of a FieldsV1) without listing the other's keys.
  if (ka.length === 0) return isEmptyObject(b);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (!Object.hasOwn(b, k) || !jsonEqual((a as JSONObject)[k], (b as JSONObject)[k])) return false;
  return true;
}

function isEmptyObject(o: object): boolean {
  for (const k in o) if (Object.hasOwn(o, k)) return false;
  return true;
}
