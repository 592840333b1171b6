/**
 * PATCH bodies, applied as kube-apiserver v1.32 applies them. The apiserver
 * maps the request's Content-Type to a `PatchType`, refuses strategic merge
 * for kinds without Go types (415, see `supportsStrategicMerge`), and calls
 * `applyPatch` with the stored object and the decoded body. Failures are
 * thrown as `StatusError`s carrying upstream's code and message.
 */
import { invalid } from '../field-errors.js';
import { StatusError, invalidObject } from '../status.js';
import { PatchError, patchedTooDeep, toStatusError } from './errors.js';
import { valueTooDeep } from '../nesting.js';
import { applyJsonPatch, jsonKind } from './json-patch.js';
import { applyMergePatch } from './merge-patch.js';
import { schemaFor } from './schema.js';
import { strategicMergePatch } from './strategic.js';

export { supportsStrategicMerge, schemaFor, builtinTypes } from './schema.js';
export type { FieldPatchMeta, PatchSchema, PatchTypeGraph } from './schema.js';
export { strategicMergePatch } from './strategic.js';
export { applyJsonPatch } from './json-patch.js';
export { applyMergePatch } from './merge-patch.js';
export { PatchError, toStatusError, patchStrictDecodingError, patchTypeError } from './errors.js';

export type PatchType = 'json' | 'merge' | 'strategic';

const contentTypes: Readonly<Record<string, PatchType>> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
};

/**
 * The PATCH media types a kind accepts, in upstream's order (json, merge,
 * strategic, apply); strategic merge only for kinds with Go types. Apply
 * patches are served by the apiserver's apply handler (api/managedfields).
 */
export function patchMediaTypes(strategic: boolean): string[] {
  return [...Object.keys(contentTypes).filter((ct) => strategic || contentTypes[ct] !== 'strategic'), 'application/apply-patch+yaml'];
}

/**
 * The patch type of a PATCH request's Content-Type. Like upstream, parameters
 * after ';' are dropped and the media type is matched exactly. Apply patches
 * (`application/apply-patch+yaml`) and anything else give undefined.
 */
export function patchTypeFromContentType(ct: string): PatchType | undefined {
  const semi = ct.indexOf(';');
  const mediaType = semi > 0 ? ct.slice(0, semi) : ct;
  return Object.hasOwn(contentTypes, mediaType) ? contentTypes[mediaType] : undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Applies a decoded patch body to an object of kind `key` (a kindKey such as
 * `apps/v1/DaemonSet`). Returns a new object; `original` and `patch` are not
 * touched. Throws `StatusError` (400, 413, 422 or 500) as upstream answers.
 */
export function applyPatch(type: PatchType, original: any, patch: unknown, key: string): any {
  const result = patched(type, original, patch, key);
  // Decoding the patched object refuses nesting past the limit, as for any body.
  if (valueTooDeep(result)) throw patchedTooDeep(result);
  return result;
}

function patched(type: PatchType, original: any, patch: unknown, key: string): any {
  const doc = structuredClone(original);
  const body = structuredClone(patch);
  try {
    switch (type) {
      case 'json': return requireObject(applyJsonPatch(doc, body));
      case 'merge': return applyMergePatch(doc, body);
      case 'strategic': return applyStrategic(doc, body, key);
    }
  } catch (e) {
    if (e instanceof PatchError) throw toStatusError(e);
    throw e;
  }
}

function applyStrategic(doc: Record<string, unknown>, patch: unknown, key: string): Record<string, unknown> {
  if (patch === null) return doc; // `null` decodes to a nil map: nothing to do
  if (!isObject(patch)) {
    throw new PatchError('BadRequest', `json: cannot unmarshal ${jsonKind(patch)} into Go value of type map[string]interface {}`);
  }
  return strategicMergePatch(doc, patch, schemaFor(key));
}

/** A JSON patch may replace the root with an array; decoding that into the kind fails with 422 as upstream's. */
function requireObject(result: unknown): Record<string, unknown> {
  if (isObject(result)) return result;
  const detail = `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(result)} into Go value of type ` +
    'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';
  throw invalidObject('', '', '', [invalid('patch', JSON.stringify(result), detail)]);
}

export { StatusError };
