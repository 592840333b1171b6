/**
 * Duplicate fields in a JSON body, as sigs.k8s.io/json's strict decoding
 * reports them: `duplicate field "spec.replicas"`, with the path joined as
 * unknown fields are, in document order among the unknown fields. JSON.parse
 * keeps the last value silently (so does Go), so the text itself is read.
 */
import { joinPath } from './check.js';


/**
 * Whether `text` may repeat a key of the `value` it parses to. Every key in the
 * text is a string followed by a colon, so when the text has no more `"...:`
 * than the value has keys, no key was repeated. A quote escaped inside a
 * string (an odd run of backslashes before it) ends no key, so it is not
 * counted: managedFields' `k:{\"type\":\"Ready\"}` keys, in every status
 * write, would otherwise send each such body to the exact scan.
 */
function mayHaveDuplicates(text: string, value: unknown): boolean {
  const colons = text.match(keyEnds)?.length ?? 0;
  return colons > countKeys(value);
}

/** A quote preceded by an even number of backslashes (none included), then a colon. */
const keyEnds = /(?<!\\)(?:\\\\)*"\s*:/g;

function countKeys(value: unknown): number {
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) { for (const x of v) stack.push(x); continue; }
    for (const k in v) { n++; stack.push((v as Record<string, unknown>)[k]); }
  }
  return n;
}

interface Frame { path: (string | number)[]; keys?: Set<string>; key?: string; index: number }

/** Every key of the JSON text in document order, with its path and whether its object already had it. */
function keyOccurrences(text: string): { path: string; duplicate: boolean }[] {
  const out: { path: string; duplicate: boolean }[] = [];
  const stack: Frame[] = [];
  let expectKey = false;
  const childPath = (p: Frame | undefined) => (!p ? [] : p.keys ? [...p.path, p.key!] : [...p.path, p.index]);
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const top = stack[stack.length - 1];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (expectKey && top?.keys) {
        const key = JSON.parse(text.slice(i, end)) as string;
        out.push({ path: joinPath(top.path, key), duplicate: top.keys.has(key) });
        top.keys.add(key);
        top.key = key;
        expectKey = false;
      }
      i = end - 1;
    } else if (c === '{') {
      stack.push({ path: childPath(top), keys: new Set(), index: 0 });
      expectKey = true;
    } else if (c === '[') {
      stack.push({ path: childPath(top), index: 0 });
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',' && top) {
      if (top.keys) expectKey = true; else top.index++;
    }
  }
  return out;
}

/** The index just past the string starting at `start` (a quote). */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i + 1;
  }
  return text.length;
}

/** Paths of the repeated keys of a JSON text, in document order. */
export function findDuplicateFields(text: string, value: unknown): string[] {
  if (!mayHaveDuplicates(text, value)) return [];
  return keyOccurrences(text).filter((o) => o.duplicate).map((o) => o.path);
}

/**
 * The strict decoding errors of a JSON body, unknown and duplicate fields in
 * document order, as upstream's decoder meets them.
 */
export function strictFieldErrors(text: string, value: unknown, unknownPaths: readonly string[]): string[] {
  const unknown = unknownPaths.map((p) => `unknown field ${JSON.stringify(p)}`);
  if (!mayHaveDuplicates(text, value)) return unknown;
  const occurrences = keyOccurrences(text);
  if (!occurrences.some((o) => o.duplicate)) return unknown;
  const firstAt = new Map<string, number>();
  occurrences.forEach((o, i) => { if (!firstAt.has(o.path)) firstAt.set(o.path, i); });
  const errors: { at: number; message: string }[] = unknownPaths.map((p, i) => ({ at: firstAt.get(p) ?? Infinity, message: unknown[i] }));
  occurrences.forEach((o, i) => { if (o.duplicate) errors.push({ at: i, message: `duplicate field ${JSON.stringify(o.path)}` }); });
  return errors.sort((a, b) => a.at - b.at).map((e) => e.message);
}
