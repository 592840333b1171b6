/** Object metadata chores shared by every kind: identity, timestamps, spec comparison. */
import type { Unstructured } from '../api/unstructured.js';
import { randomUUID, randomBytes } from 'node:crypto';

const alphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** Upstream's names.SimpleNameGenerator: base + 5 random characters from a vowel-free alphabet. */
export function generateName(base: string): string {
  const trimmed = base.length > 63 - 5 ? base.slice(0, 63 - 5) : base;
  const bytes = randomBytes(5);
  let suffix = '';
  for (const b of bytes) suffix += alphabet[b % alphabet.length];
  return trimmed + suffix;
}

export const newUID = () => randomUUID();

/**
 * The parts of an object that count as "spec" for generation bumps: everything
 * but metadata and status, compared as apimachinery's Semantic.DeepEqual does:
 * an empty list or a null is the same as an absent field (Go's nil and empty
 * slices are equal there), so re-applying `namespaces: []` changes nothing.
 */
export function specOf(obj: Unstructured | undefined): string {
  const { metadata: _m, status: _s, kind: _k, apiVersion: _a, ...rest } = obj ?? {};
  return semanticStringify(rest);
}

const semanticallyAbsent = (v: unknown) => v === undefined || v === null || (Array.isArray(v) && v.length === 0);

/** stableStringify where empty lists and nulls count as absent (Semantic.DeepEqual's view). */
export const semanticStringify = (v: unknown): string => stableStringify(v, semanticallyAbsent);

/** JSON with sorted keys, so equal objects compare equal regardless of key order; `absent` fields are left out. */
export function stableStringify(v: unknown, absent: (v: unknown) => boolean = (x) => x === undefined): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map((x) => stableStringify(x, absent)).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).filter((k) => !absent(o[k])).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(o[k], absent)}`).join(',')}}`;
}

export const clone = <T>(v: T): T => (v === undefined ? v : JSON.parse(JSON.stringify(v)));

/**
 * Whether `a` and `b` encode to the same JSON, key order aside: what
 * `stableStringify(a) === stableStringify(b)` answers, without building either
 * string (an update's no-op check runs on every write; upstream compares the
 * encoded bytes it has to produce anyway).
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    return (JSON.stringify(a) ?? 'null') === (JSON.stringify(b) ?? 'null');
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], bb[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>, bo = b as Record<string, unknown>;
  let defined = 0;
  for (const k in ao) {
    if (ao[k] === undefined) continue;
    defined++;
    if (bo[k] === undefined || !jsonEqual(ao[k], bo[k])) return false;
  }
  for (const k in bo) if (bo[k] !== undefined) defined--;
  return defined === 0;
}
