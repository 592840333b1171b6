/**
 * The decoding checks of a built-in kind's body, as upstream's decoder makes
 * them: wrong JSON types always fail (400); unknown and duplicate fields fail
 * under fieldValidation=Strict and become Warning headers under Warn (the
 * default); under Ignore and Warn the unknown fields are then dropped from
 * `obj`. Pure (no registry, no storage), so the heavy lane's worker runs
 * them on large bodies (src/apiserver/heavy/).
 */
import type { ServerResponse } from 'node:http';
import { badRequest } from '../api/status.js';
import { checkTypes, fillNullItems, findUnknownFields, pruneUnknownFields, strictFieldErrors } from '../api/schema/index.js';
import type { ResourceInfo } from '../api/resources.js';
import { kindKey } from '../api/resources.js';
import { warningHeaderValues } from './warnings.js';
import { yamlDuplicateKeysError } from './yaml-duplicates.js';
import type { RawBody } from './body.js';

/** Where a Warn check's warnings go: the response, or a worker's answer. */
export type WarningSink = Pick<ServerResponse, 'setHeader'>;

/**
 * The error a Strict check fails with, given the strict decoding errors:
 * by default a body's 400 `... cannot be handled as ...: strict decoding
 * error: ...`; a patch answers its own (patchStrictDecodingError).
 */
export type StrictFailure = (errors: string[]) => Error;

export const cannotHandle = (info: Pick<ResourceInfo, 'version' | 'kind'>) => `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}`;
export const bodyStrictFailure = (info: Pick<ResourceInfo, 'version' | 'kind'>): StrictFailure =>
  (errors) => badRequest(`${cannotHandle(info)}: strict decoding error: ${errors.join(', ')}`);

/** The error a value of the wrong JSON type fails with: a body's 400 `... cannot be handled as ...` by default; a patch answers its own (patchTypeError). */
export type TypeFailure = (error: string) => Error;

export type { RawBody };

/**
 * `obj` must be the value decoded from `raw`, untouched. `leading` are strict
 * errors found before decoding the object (a patch body's duplicate fields).
 */
export function checkFields(info: Pick<ResourceInfo, 'group' | 'version' | 'kind'>, obj: unknown, mode: string | undefined, res: WarningSink, raw?: RawBody, leading: string[] = [],
  strictFailure = bodyStrictFailure(info), typeFailure: TypeFailure = (e) => badRequest(`${cannotHandle(info)}: ${e}`)): void {
  const key = kindKey(info);
  const types = checkTypes(key, obj);
  if (types.errors.length) throw typeFailure(types.errors[0]);
  // Decoding, as Go does it, turns null list items into zero values; everything after expects them.
  // A body without null items (nearly all) has none to fill: no second walk of it.
  if (types.nullItems) fillNullItems(key, obj);
  // A body whose every key its types declare (nearly all) is not walked again for unknown fields.
  let unknown: string[] | undefined = types.unknownFields ? undefined : [];
  if (mode !== 'Ignore') {
    unknown ??= findUnknownFields(key, obj);
    const errors = [...leading, ...strictErrors(unknown, obj, raw)];
    if (errors.length && mode === 'Strict') throw strictFailure(errors);
    if (errors.length) res.setHeader('Warning', warningHeaderValues(errors));
  }
  // A walk that found no unknown field saw the whole object (findUnknownFields stops only at
  // strict decoding's 100th): there is nothing to prune, and a typical body is not walked again.
  if (unknown === undefined || unknown.length > 0) pruneUnknownFields(key, obj);
}

/**
 * As upstream's strict serializer: a YAML body first goes through the strict
 * YAML reader (its duplicate keys are one error), then the JSON is decoded
 * strictly (unknown and duplicate fields in document order).
 */
export function strictErrors(unknown: string[], obj: unknown, raw: RawBody | undefined): string[] {
  if (!raw) return unknown.map((f) => `unknown field ${JSON.stringify(f)}`);
  if (raw.yaml) {
    const yamlError = yamlDuplicateKeysError(raw.parsedYAML ?? raw.text);
    return [...(yamlError ? [yamlError] : []), ...unknown.map((f) => `unknown field ${JSON.stringify(f)}`)];
  }
  return strictFieldErrors(raw.text, obj, unknown);
}
