/**
 * JSON patch (RFC 6902) as kube-apiserver applies it: decoded like
 * `handlers.jsonPatchOp` (fieldValidation Warn/Strict, the default), at most
 * 10000 operations, then applied with the semantics of evanphx/json-patch v4,
 * which differ from the RFC in a few places kubectl relies on:
 *
 *  - `replace` of a missing object member adds it (kubectl's `rollout undo`
 *    of a Deployment replaces /metadata/annotations whether or not it exists);
 *  - array indices may be negative, counting from the end (-1 is the last
 *    element; for `add`, -1 appends);
 *  - a missing `value` is JSON null; `copy` from a missing member copies null;
 *  - `test` of a missing member passes when the value is null;
 *  - `add`, `remove`, `move` and `copy` cannot target the document root.
 *
 * Any failure while applying is a 422 whose message upstream replaces with a
 * generic one; decoding failures are 400s worded like Go's json decoder.
 * The document is mutated by fast-json-patch; callers pass a copy.
 */
import { lazyRequire } from '../../util/lazy-require.js';
import type { Operation } from 'fast-json-patch';

const jsonpatch = lazyRequire<typeof import('fast-json-patch')>('fast-json-patch');
import { PatchError, badPatch, patchedTooDeep, unprocessablePatch } from './errors.js';
import { maxNestingDepth, valueTooDeep } from '../nesting.js';

const maxJSONPatchOperations = 10000;

interface Op { op: unknown; path: unknown; from: unknown; value: unknown }

/** Go's json name for the kind of a JSON value, as in "cannot unmarshal X into". */
export function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

/** Applies the patch and returns the new document. */
export function applyJsonPatch(doc: unknown, patch: unknown): unknown {
  const ops = decodePatch(patch);
  if (ops.length > maxJSONPatchOperations) {
    throw new PatchError('TooLarge', `The allowed maximum operations in a JSON patch is ${maxJSONPatchOperations}, got ${ops.length}`);
  }
  let current = doc;
  for (const op of ops) current = applyOperation(current, op);
  return current;
}

function decodePatch(patch: unknown): Op[] {
  const fail = (what: string) => badPatch(`error decoding patch: json: cannot unmarshal ${what}`);
  if (patch === null) return [];
  if (!Array.isArray(patch)) throw fail(`${jsonKind(patch)} into Go value of type []handlers.jsonPatchOp`);
  return patch.map((raw): Op => {
    if (raw === null) return { op: null, path: null, from: null, value: null };
    if (typeof raw !== 'object' || Array.isArray(raw)) throw fail(`${jsonKind(raw)} into Go value of type handlers.jsonPatchOp`);
    const o = raw as Record<string, unknown>;
    for (const field of ['op', 'path', 'from']) {
      const v = o[field];
      if (v !== undefined && v !== null && typeof v !== 'string') {
        throw fail(`${jsonKind(v)} into Go struct field jsonPatchOp.${field} of type string`);
      }
    }
    return { op: o.op ?? null, path: o.path ?? null, from: o.from ?? null, value: o.value ?? null };
  });
}

function applyOperation(doc: unknown, op: Op): unknown {
  const kind = typeof op.op === 'string' ? op.op : 'unknown';
  switch (kind) {
    case 'add': return add(doc, requirePath(op.path, kind), op.value);
    case 'remove': return remove(doc, requirePath(op.path, kind));
    case 'replace': return replace(doc, requirePath(op.path, kind), op.value);
    case 'move': return move(doc, requirePath(op.from, kind, 'from'), requirePath(op.path, kind));
    case 'copy': return copy(doc, requirePath(op.from, kind, 'from'), requirePath(op.path, kind));
    case 'test': return test(doc, requirePath(op.path, kind), op.value);
    default: throw unprocessablePatch(`Unexpected kind: ${kind}`);
  }
}

function requirePath(p: unknown, kind: string, field = 'path'): string {
  if (typeof p !== 'string') throw unprocessablePatch(`${kind} operation, missing ${field} field`);
  return p;
}

/** The container holding the member a path names, with that member's key, as evanphx's `findObject`. */
interface Target { container: unknown; pointer: string; key: string }

const decodeKey = (k: string) => k.replace(/~1/g, '/').replace(/~0/g, '~');
const encodeKey = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function findObject(doc: unknown, path: string, kind: string): Target {
  const split = path.split('/');
  if (split.length < 2) throw unprocessablePatch(`${kind} operation does not apply: doc is missing path: "${path}"`);
  let container = doc;
  let pointer = '';
  for (const part of split.slice(1, -1).map(decodeKey)) {
    let next: unknown;
    let segment = part;
    if (Array.isArray(container)) {
      const i = existingIndex(container, part);
      next = i === undefined ? undefined : container[i];
      segment = String(i);
    } else if (isObject(container)) {
      next = Object.hasOwn(container, part) ? container[part] : undefined;
    }
    if (!Array.isArray(next) && !isObject(next)) {
      throw unprocessablePatch(`${kind} operation does not apply: doc is missing path: "${path}"`);
    }
    container = next;
    pointer += `/${encodeKey(segment)}`;
  }
  return { container, pointer, key: decodeKey(split[split.length - 1]) };
}

/** Go's strconv.Atoi. */
function atoi(s: string): number | undefined {
  return /^[+-]?\d+$/.test(s) ? Number(s) : undefined;
}

/** An index of an existing element: negative counts from the end. */
function existingIndex(arr: unknown[], key: string): number | undefined {
  const i = atoi(key);
  if (i === undefined || i >= arr.length || i < -arr.length) return undefined;
  return i < 0 ? i + arr.length : i;
}

function at(t: Target, key: string): string {
  return `${t.pointer}/${encodeKey(key)}`;
}

/** Runs one fast-json-patch operation whose preconditions were checked here. */
function run(doc: unknown, operation: Operation): unknown {
  try {
    return jsonpatch().applyOperation(doc, operation, true, true, true).newDocument;
  } catch (e) {
    throw unprocessablePatch(e instanceof Error ? e.message : String(e));
  }
}

function add(doc: unknown, path: string, value: unknown): unknown {
  const t = findObject(doc, path, 'add');
  if (Array.isArray(t.container) && t.key !== '-') {
    let i = atoi(t.key);
    const size = t.container.length + 1;
    if (i === undefined) throw unprocessablePatch(`value was not a proper array index: '${t.key}'`);
    if (i >= size || i < -size) throw unprocessablePatch(`Unable to access invalid index: ${i}`);
    if (i < 0) i += size;
    return placed(run(doc, { op: 'add', path: at(t, String(i)), value }), path, value);
  }
  return placed(run(doc, { op: 'add', path: at(t, t.key), value }), path, value);
}

/**
 * The document after `value` went to `path`, unless that nests it deeper than
 * maxNestingDepth. Each operation is checked (not only the result) because
 * adds, moves and copies into their own subtrees could otherwise deepen the
 * document without bound before the last one, and the copies recurse.
 */
function placed(doc: unknown, path: string, value: unknown): unknown {
  const segments = path.split('/').length - 1;
  if (valueTooDeep(value, maxNestingDepth - segments)) throw patchedTooDeep(doc);
  return doc;
}

function remove(doc: unknown, path: string): unknown {
  const t = findObject(doc, path, 'remove');
  if (Array.isArray(t.container)) {
    const i = existingIndex(t.container, t.key);
    if (i === undefined) throw unprocessablePatch(`Unable to access invalid index: ${t.key}`);
    return run(doc, { op: 'remove', path: at(t, String(i)) });
  }
  if (!isObject(t.container) || !Object.hasOwn(t.container, t.key)) {
    throw unprocessablePatch(`Unable to remove nonexistent key: ${t.key}: missing value`);
  }
  return run(doc, { op: 'remove', path: at(t, t.key) });
}

function replace(doc: unknown, path: string, value: unknown): unknown {
  if (path === '') {
    if (typeof value !== 'object' || value === null) throw unprocessablePatch('replace operation value must be object or array');
    return value;
  }
  const t = findObject(doc, path, 'replace');
  if (Array.isArray(t.container)) {
    const i = existingIndex(t.container, t.key);
    if (i === undefined) throw unprocessablePatch(`replace operation does not apply: doc is missing key: ${path}`);
    return placed(run(doc, { op: 'replace', path: at(t, String(i)), value }), path, value);
  }
  // A missing object member is added: evanphx v4's get never fails on objects.
  const op = isObject(t.container) && Object.hasOwn(t.container, t.key) ? 'replace' : 'add';
  return placed(run(doc, { op, path: at(t, t.key), value }), path, value);
}

/** The value at `from`: missing object members read as null, missing array elements fail. */
function read(doc: unknown, from: string, kind: string): unknown {
  const t = findObject(doc, from, kind);
  if (Array.isArray(t.container)) {
    const i = existingIndex(t.container, t.key);
    if (i === undefined) throw unprocessablePatch(`Unable to access invalid index: ${t.key}`);
    return t.container[i];
  }
  return isObject(t.container) && Object.hasOwn(t.container, t.key) ? t.container[t.key] : null;
}

function move(doc: unknown, from: string, path: string): unknown {
  const value = read(doc, from, 'move');
  return add(remove(doc, from), path, value);
}

function copy(doc: unknown, from: string, path: string): unknown {
  const value = structuredClone(read(doc, from, 'copy'));
  return add(doc, path, value);
}

function test(doc: unknown, path: string, value: unknown): unknown {
  const actual = path === '' ? doc : read(doc, path, 'test');
  if (!jsonEqual(actual ?? null, value)) throw unprocessablePatch(`testing value ${path} failed: test failed`);
  return doc;
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}
