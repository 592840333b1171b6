/**
 * JSON merge patch (RFC 7386) as kube-apiserver applies it (evanphx/json-patch
 * v4 `MergePatch`, after decoding the patch as a JSON object):
 *
 *  1. The patch must be a JSON object; `null` is "Invalid JSON Patch" and any
 *     other value a decoding error (both 400).
 *  2. A null member deletes the key.
 *  3. A member absent (or null) in the document is set to the patch value,
 *     with the patch value's null members removed.
 *  4. Two objects merge recursively (rules 2–5).
 *  5. Otherwise the patch value replaces the document's: pruned of nulls when
 *     the document's value was not an object, taken as is when it was.
 *
 * Lists are never merged. The document is mutated; callers pass a copy.
 */
import { badPatch } from './errors.js';
import { jsonKind } from './json-patch.js';
import { JSONMap, setMember } from './json.js';

const isObject = (v: unknown): v is JSONMap => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Applies the patch to the document object and returns it. */
export function applyMergePatch(doc: JSONMap, patch: unknown): JSONMap {
  if (patch === null) throw badPatch('Invalid JSON Patch');
  if (!isObject(patch)) {
    throw badPatch(`error decoding patch: json: cannot unmarshal ${jsonKind(patch)} into Go value of type map[string]interface {}`);
  }
  mergeDocs(doc, patch);
  return doc;
}

function mergeDocs(doc: JSONMap, patch: JSONMap): void {
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) {
      delete doc[k];
      continue;
    }
    const cur = Object.hasOwn(doc, k) ? doc[k] : undefined;
    setMember(doc, k, cur === undefined || cur === null ? pruneNulls(v) : merge(cur, v));
  }
}

function merge(cur: unknown, patch: unknown): unknown {
  if (!isObject(cur)) return pruneNulls(patch);
  if (!isObject(patch)) return patch;
  mergeDocs(cur, patch);
  return cur;
}

/** Removes null members of objects, recursively; null array elements stay. */
function pruneNulls(v: unknown): unknown {
  if (Array.isArray(v)) {
    v.forEach((x) => { if (x !== null) pruneNulls(x); });
  } else if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (x === null) delete v[k];
      else pruneNulls(x);
    }
  }
  return v;
}
