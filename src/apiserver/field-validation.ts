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

/** The text a create or update body was decoded from (not protobuf), read again for duplicate keys. */
export interface RawBody { text: string; yaml: boolean }

/**
 * `obj` must be the value decoded from `raw`, untouched. `leading` are strict
 * errors found before decoding the object (a patch body's duplicate fields).
 */
export function checkFields(info: Pick<ResourceInfo, 'group' | 'version' | 'kind'>, obj: unknown, mode: string | undefined, res: ServerResponse, raw?: RawBody, leading: string[] = []): void {
  const key = kindKey(info);
  const cannotHandle = `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}`;
  const typeErrors = findTypeErrors(key, obj);
  if (typeErrors.length) throw badRequest(`${cannotHandle}: ${typeErrors[0]}`);
  // Decoding, as Go does it, turns null list items into zero values; everything after expects them.
  fillNullItems(key, obj);
  if (mode !== 'Ignore') {
    const errors = [...leading, ...strictErrors(key, obj, raw)];
    if (errors.length && mode === 'Strict') throw badRequest(`${cannotHandle}: strict decoding error: ${errors.join(', ')}`);
    if (errors.length) res.setHeader('Warning', warningHeaderValues(errors));
  }
  pruneUnknownFields(key, obj);
}

/**
 * As upstream's strict serializer: a YAML body first goes through the strict
 * YAML reader (its duplicate keys are one error), then the JSON is decoded
 * strictly (unknown and duplicate fields in document order).
 */
function strictErrors(key: string, obj: unknown, raw: RawBody | undefined): string[] {
  const unknown = findUnknownFields(key, obj);
  if (!raw) return unknown.map((f) => `unknown field ${JSON.stringify(f)}`);
  if (raw.yaml) {
    const yamlError = yamlDuplicateKeysError(raw.text);
    return [...(yamlError ? [yamlError] : []), ...unknown.map((f) => `unknown field ${JSON.stringify(f)}`)];
  }
  return strictFieldErrors(raw.text, obj, unknown);
}
