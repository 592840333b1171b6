/**
 * Decoding checks on request bodies, as upstream's decoder makes them:
 * wrong JSON types always fail (400), unknown fields fail under
 * fieldValidation=Strict and become Warning headers under Warn (the default).
 * Under Ignore and Warn the unknown fields are then dropped from `obj`, as
 * decoding into the Go types drops them: they are never stored.
 */
import type { ServerResponse } from 'node:http';
import { badRequest } from '../api/status.js';
import { fillNullItems, findTypeErrors, findUnknownFields, pruneUnknownFields, strictDecodingError } from '../api/schema/index.js';
import type { ResourceInfo } from '../api/resources.js';
import { kindKey } from '../api/resources.js';
import { warningHeaderValues } from './warnings.js';

export function checkFields(info: Pick<ResourceInfo, 'group' | 'version' | 'kind'>, obj: unknown, mode: string | undefined, res: ServerResponse): void {
  const key = kindKey(info);
  const cannotHandle = `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}`;
  const typeErrors = findTypeErrors(key, obj);
  if (typeErrors.length) throw badRequest(`${cannotHandle}: ${typeErrors[0]}`);
  // Decoding, as Go does it, turns null list items into zero values; everything after expects them.
  fillNullItems(key, obj);
  if (mode !== 'Ignore') {
    const unknown = findUnknownFields(key, obj);
    if (unknown.length && mode === 'Strict') throw badRequest(`${cannotHandle}: ${strictDecodingError(unknown)}`);
    if (unknown.length) res.setHeader('Warning', warningHeaderValues(unknown.map((f) => `unknown field "${f}"`)));
  }
  pruneUnknownFields(key, obj);
}

