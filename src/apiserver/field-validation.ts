/**
 * Decoding checks on request bodies, as upstream's decoder makes them:
 * wrong JSON types always fail (400); unknown and duplicate fields fail under
 * fieldValidation=Strict and become Warning headers under Warn (the default).
 * Under Ignore and Warn the unknown fields are then dropped from `obj`, as
 * decoding into the Go types drops them: they are never stored.
 */
import type { ServerResponse } from 'node:http';
import { badRequest } from '../api/status.js';
import { fillNullItems, findTypeErrors, findUnknownFields, pruneUnknownFields, strictFieldErrors } from '../api/schema/index.js';
import type { ResourceInfo } from '../api/resources.js';
import { kindKey } from '../api/resources.js';
import { warningHeaderValues } from './warnings.js';
import { yamlDuplicateKeysError } from './yaml-duplicates.js';
import type { Store } from '../registry/store.js';
import { CustomResourceStore } from '../registry/custom/store.js';
import { pruneUnknown } from '../api/apiextensions/pruning.js';

const objectMetaDefinition = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/**
 * The error a Strict check fails with, given the strict decoding errors:
 * by default a body's 400 `... cannot be handled as ...: strict decoding
 * error: ...`; a patch answers its own (patchStrictDecodingError).
 */
export type StrictFailure = (errors: string[]) => Error;

const cannotHandle = (info: Pick<ResourceInfo, 'version' | 'kind'>) => `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}`;
const bodyStrictFailure = (info: Pick<ResourceInfo, 'version' | 'kind'>): StrictFailure =>
  (errors) => badRequest(`${cannotHandle(info)}: strict decoding error: ${errors.join(', ')}`);

/** The decoding checks of an endpoint's body: the Go types' for built-in kinds, the structural schema's for custom resources. */
export function checkBodyFields(store: Store, obj: unknown, mode: string | undefined, res: ServerResponse, raw?: RawBody, leading: string[] = [], strictFailure?: StrictFailure,
  typeFailure?: TypeFailure): void {
  if (store instanceof CustomResourceStore) checkCustomFields(store, obj, mode, res, raw, leading, strictFailure);
  else checkFields(store.info, obj, mode, res, raw, leading, strictFailure, typeFailure);
}

/** The error a value of the wrong JSON type fails with: a body's 400 `... cannot be handled as ...` by default; a patch answers its own (patchTypeError). */
export type TypeFailure = (error: string) => Error;

/**
 * A custom resource body: metadata decodes as ObjectMeta (its type errors are
 * 400s), then fields the structural schema does not specify are pruned
 * (upstream's unstructured decoder), reported as unknown fields under Warn and
 * Strict. Wrong value types are left for schema validation (422), as upstream.
 */
export function checkCustomFields(store: CustomResourceStore, obj: any, mode: string | undefined, res: ServerResponse, raw?: RawBody, leading: string[] = [],
  strictFailure = bodyStrictFailure(store.info)): void {
  const { info } = store;
  const meta = obj?.metadata;
  const typeErrors = meta === undefined ? [] : findTypeErrors(objectMetaDefinition, meta);
  if (typeErrors.length) throw badRequest(`${cannotHandle(info)}: ${typeErrors[0]}`);
  const unknown = [
    ...(meta === undefined ? [] : findUnknownFields(objectMetaDefinition, meta).map((f) => `metadata.${f}`)),
    ...pruneUnknown(store.custom.schema, obj),
  ];
  if (meta !== undefined) pruneUnknownFields(objectMetaDefinition, meta);
  if (mode === 'Ignore') return;
  const errors = [...leading, ...strictErrors(unknown, obj, raw)];
  if (errors.length && mode === 'Strict') throw strictFailure(errors);
  if (errors.length) res.setHeader('Warning', warningHeaderValues(errors));
}

/** The text a create or update body was decoded from (not protobuf), read again for duplicate keys. */
export interface RawBody { text: string; yaml: boolean }

/**
 * `obj` must be the value decoded from `raw`, untouched. `leading` are strict
 * errors found before decoding the object (a patch body's duplicate fields).
 */
export function checkFields(info: Pick<ResourceInfo, 'group' | 'version' | 'kind'>, obj: unknown, mode: string | undefined, res: ServerResponse, raw?: RawBody, leading: string[] = [],
  strictFailure = bodyStrictFailure(info), typeFailure: TypeFailure = (e) => badRequest(`${cannotHandle(info)}: ${e}`)): void {
  const key = kindKey(info);
  const typeErrors = findTypeErrors(key, obj);
  if (typeErrors.length) throw typeFailure(typeErrors[0]);
  // Decoding, as Go does it, turns null list items into zero values; everything after expects them.
  fillNullItems(key, obj);
  if (mode !== 'Ignore') {
    const errors = [...leading, ...strictErrors(findUnknownFields(key, obj), obj, raw)];
    if (errors.length && mode === 'Strict') throw strictFailure(errors);
    if (errors.length) res.setHeader('Warning', warningHeaderValues(errors));
  }
  pruneUnknownFields(key, obj);
}

/**
 * As upstream's strict serializer: a YAML body first goes through the strict
 * YAML reader (its duplicate keys are one error), then the JSON is decoded
 * strictly (unknown and duplicate fields in document order).
 */
function strictErrors(unknown: string[], obj: unknown, raw: RawBody | undefined): string[] {
  if (!raw) return unknown.map((f) => `unknown field ${JSON.stringify(f)}`);
  if (raw.yaml) {
    const yamlError = yamlDuplicateKeysError(raw.text);
    return [...(yamlError ? [yamlError] : []), ...unknown.map((f) => `unknown field ${JSON.stringify(f)}`)];
  }
  return strictFieldErrors(raw.text, obj, unknown);
}
