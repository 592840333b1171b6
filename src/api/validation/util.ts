/**
 * Small helpers shared by the validators: tolerant accessors for decoded JSON
 * (validation never throws on odd shapes), field-path building like upstream's
 * field.Path (`a.b[0][key]`), and the generic checks every kind uses.
 */
import { FieldError, GoValue, invalid } from '../field-errors.js';
import { NameValidator } from '../names.js';

export type Obj = Record<string, any>;

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const obj = (v: unknown): Obj => (isObj(v) ? v : {});
export const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
export const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
export const has = (v: unknown): boolean => v !== undefined && v !== null;

/**
 * A map of strings (labels, selectors, data); non-string values are shown as their text.
 * Without a prototype: a key `__proto__` (JSON.parse makes it an own key) stays a key to
 * validate, where on a plain object its assignment was ignored and the key never checked.
 */
export function strMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [k, val] of Object.entries(obj(v))) out[k] = str(val);
  return out;
}

export const child = (path: string, name: string) => (path ? `${path}.${name}` : name);
export const index = (path: string, i: number) => `${path}[${i}]`;
export const key = (path: string, k: string) => `${path}[${k}]`;

export const isNegativeErrorMsg = 'must be greater than or equal to 0';
export const fieldImmutableErrorMsg = 'field is immutable';

/** ValidateNonnegativeField; absent values count as 0, like Go's zero value. */
export function nonNegative(value: unknown, path: string): FieldError[] {
  return typeof value === 'number' && value < 0 ? [invalid(path, value, isNegativeErrorMsg)] : [];
}

/** Applies a name validator and reports each message at `path`. */
export function validateName(name: string, path: string, fn: NameValidator, prefix = false): FieldError[] {
  return fn(name, prefix).map((msg) => invalid(path, name, msg));
}

/** Semantic deep equality of decoded JSON: absent, null, empty map/list compare equal (Go omitempty). */
export function deepEqual(a: unknown, b: unknown): boolean {
  const empty = (v: unknown) => v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (isObj(v) && Object.keys(v).length === 0);
  if (empty(a) && empty(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isObj(a) && isObj(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!deepEqual(a[k], b[k])) return false;
    return true;
  }
  return a === b || ((a === false || a === 0 || a === '') && b === undefined) || ((b === false || b === 0 || b === '') && a === undefined);
}

/** ValidateImmutableField: `Invalid value: <new>: field is immutable`. */
export function immutable(newVal: unknown, oldVal: unknown, path: string, shown: unknown = newVal): FieldError[] {
  return deepEqual(newVal, oldVal) ? [] : [invalid(path, shown, fieldImmutableErrorMsg)];
}

/** Go's `%q`, close enough for the values we show. */
export const goQuote = (s: string) => JSON.stringify(s);
export const goValue = (text: string) => new GoValue(text);

/** Deep copy of decoded JSON. */
export const clone = <T>(v: T): T => (v === undefined ? v : JSON.parse(JSON.stringify(v)));
