/**
 * Decoding checks on request bodies, as upstream's decoder makes them:
 * wrong JSON types always fail (400), unknown fields fail under
 * fieldValidation=Strict and become Warning headers under Warn (the default).
 */
import type { ServerResponse } from 'node:http';
import { badRequest } from '../api/status.js';
import { findTypeErrors, findUnknownFields, strictDecodingError } from '../api/schema/index.js';
import type { ResourceInfo } from '../api/resources.js';
import { kindKey } from '../api/resources.js';

export function checkFields(info: Pick<ResourceInfo, 'group' | 'version' | 'kind'>, obj: unknown, mode: string | undefined, res: ServerResponse): void {
  const key = kindKey(info);
  const cannotHandle = `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}`;
  const typeErrors = findTypeErrors(key, obj);
  if (typeErrors.length) throw badRequest(`${cannotHandle}: ${typeErrors[0]}`);
  if (mode === 'Ignore') return;
  const unknown = findUnknownFields(key, obj);
  if (!unknown.length) return;
  if (mode === 'Strict') throw badRequest(`${cannotHandle}: ${strictDecodingError(unknown)}`);
  res.setHeader('Warning', unknown.map((f) => headerText(`299 - ${JSON.stringify(`unknown field "${f}"`)}`)));
}

/**
 * Header values must be ASCII here: Node refuses characters past U+00FF and
 * re-encodes the others, so a field named `Ā` failed the whole request. Go
 * would send the UTF-8 bytes; the warning carries JSON's \uXXXX escape
 * instead (as strconv.QuoteToASCII would), for DEL too.
 */
const headerText = (text: string) => text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
