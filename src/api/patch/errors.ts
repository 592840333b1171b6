/**
 * How patch failures reach the client, as upstream's apiserver
 * (`endpoints/handlers/patch.go`) reports them:
 *
 *  - malformed patch documents: 400 BadRequest with the decoder's message;
 *  - a JSON patch that does not apply, a strategic patch with a list of lists
 *    or content outside `$retainKeys`: 422 built by `NewGenericServerResponse`,
 *    which drops the detail and always says "the server rejected our request
 *    due to an error in our request";
 *  - more than 10000 JSON patch operations: 413 RequestEntityTooLarge;
 *  - every other strategic-merge failure (missing merge key, mixed element
 *    types, unknown `$patch` value ...): the bare Go error, which the response
 *    writer turns into a 500 with no reason and the error text as message.
 *
 * The engines throw `PatchError` values; `toStatusError` makes the Status.
 */
import { Status, StatusError, invalidObject } from '../status.js';
import { invalid } from '../field-errors.js';
import { jsonDepthError } from '../nesting.js';

export type PatchErrorClass = 'BadRequest' | 'Unprocessable' | 'TooLarge' | 'Internal';

/** A patch that cannot be applied; `toStatusError` turns it into the wire Status. */
export class PatchError extends Error {
  constructor(public readonly errorClass: PatchErrorClass, message: string) {
    super(message);
  }
}

export const badPatch = (message: string) => new PatchError('BadRequest', message);
export const unprocessablePatch = (message: string) => new PatchError('Unprocessable', message);
export const internalPatch = (message: string) => new PatchError('Internal', message);

/** Upstream's `mergepatch` sentinel errors, worded as upstream words them. */
export const errBadJSONDoc = 'invalid JSON document';
export const errNoListOfLists = 'lists of lists are not supported';
export const errBadPatchFormatForPrimitiveList = 'invalid patch format of primitive list';
export const errBadPatchFormatForRetainKeys = 'invalid patch format of retainKeys';
export const errBadPatchFormatForSetElementOrderList = 'invalid patch format of setElementOrder list';

const genericUnprocessable = 'the server rejected our request due to an error in our request';

/** The Status upstream's apiserver answers for a patch error. */
export function toStatusError(err: PatchError): StatusError {
  const base = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure' } as const;
  let s: Status;
  switch (err.errorClass) {
    case 'BadRequest':
      s = { ...base, message: err.message, reason: 'BadRequest', code: 400 };
      break;
    case 'Unprocessable':
      s = { ...base, message: genericUnprocessable, reason: 'Invalid', details: {}, code: 422 };
      break;
    case 'TooLarge':
      s = { ...base, message: `Request entity too large: ${err.message}`, reason: 'RequestEntityTooLarge', code: 413 };
      break;
    case 'Internal':
      s = { ...base, message: err.message, code: 500 };
      break;
  }
  return new StatusError(s);
}

/** Go's name for the dynamic type of a decoded JSON value, as `reflect.TypeOf(v).String()` prints it. */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  switch (typeof v) {
    case 'object': return 'map[string]interface {}';
    case 'string': return 'string';
    case 'boolean': return 'bool';
    case 'number': return Number.isInteger(v) ? 'int64' : 'float64';
    default: return typeof v;
  }
}

/** Go's `%v` rendering of a decoded JSON value: `map[a:1 b:[x y]]`, keys sorted. */
export function goFormat(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goFormat).join(' ')}]`;
  if (typeof v === 'object') {
    const obj = v as Record<string, unknown>;
    const keys = Object.keys(obj).sort();
    return `map[${keys.map((k) => `${k}:${goFormat(obj[k])}`).join(' ')}]`;
  }
  return String(v);
}

/** `mergepatch.ErrNoMergeKey`. */
export const noMergeKey = (m: unknown, key: string) =>
  internalPatch(`map: ${goFormat(m)} does not contain declared merge key: ${key}`);

/** `mergepatch.ErrBadArgType`: expected is a Go type name such as `map[string]interface {}`. */
export const badArgType = (expected: string, actual: unknown) =>
  internalPatch(`expected a ${expected}, but received a ${goTypeName(actual)}`);

/** `mergepatch.ErrBadPatchType`. */
export const badPatchType = (directive: unknown, m: unknown) =>
  internalPatch(`unknown patch type: ${goFormat(directive)} in map: ${goFormat(m)}`);

/**
 * A patched object nested deeper than maxNestingDepth: upstream decodes the
 * patched JSON into the kind and answers a decoding failure with 422 Invalid
 * on the field `patch`, showing the patched document.
 */
export function patchedTooDeep(patched: unknown): StatusError {
  const detail = `couldn't get version/kind; json parse error: ${jsonDepthError('{')}`;
  return invalidObject('', '', '', [invalid('patch', JSON.stringify(patched), detail)]);
}

/**
 * fieldValidation=Strict refusing a patch (upstream jsonPatcher and
 * applyPatchToObject): 422 Invalid on the field `patch`, with no kind or
 * name (` "" is invalid: patch: Invalid value: ...`), showing the patched
 * document for JSON and merge patches, and the patch as Go's %+v prints the
 * decoded map for strategic merge patches.
 */
export function patchStrictDecodingError(type: 'json' | 'merge' | 'strategic', patch: unknown, patched: unknown, errors: string[]): StatusError {
  const value = type === 'strategic' ? goFormat(patch) : JSON.stringify(patched);
  return invalidObject('', '', '', [invalid('patch', value, `strict decoding error: ${errors.join(', ')}`)]);
}

/** The kind of a JSON value as Go's reflect names it once decoded into an unstructured map. */
const unstructuredKinds: Record<string, string> = { string: 'string', bool: 'bool', array: 'slice', object: 'map' };

/**
 * A patched object that does not decode into its kind (a string where a map
 * belongs): upstream answers 422 Invalid on the field `patch`. JSON and merge
 * patches decode the patched JSON, so the detail is encoding/json's error;
 * a strategic merge patch converts the patched map instead, whose error is
 * the unstructured converter's (`cannot restore map from string`).
 */
export function patchTypeError(type: 'json' | 'merge' | 'strategic', patch: unknown, patched: unknown, jsonError: string): StatusError {
  if (type !== 'strategic') return invalidObject('', '', '', [invalid('patch', JSON.stringify(patched), jsonError)]);
  const m = /^json: cannot unmarshal (\w+)(?: [^ ]+)? into Go (?:struct field \S+|value) of type (\S+)$/.exec(jsonError);
  const from = m ? (unstructuredKinds[m[1]] ?? (m[1] === 'number' ? 'float64' : m[1])) : '';
  const to = m?.[2] ?? '';
  const detail = !m ? jsonError
    : to.startsWith('map[') ? `cannot restore map from ${from}`
      : to.startsWith('[]') ? `cannot restore slice from ${from}`
        : /^[a-z0-9]+\.[A-Z]/.test(to) ? `cannot restore struct from: ${from}`
          : jsonError;
  return invalidObject('', '', '', [invalid('patch', goFormat(patch), detail)]);
}
