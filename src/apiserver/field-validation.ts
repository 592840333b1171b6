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
  res.setHeader('Warning', unknown.map((f) => headerBytes(`299 - ${JSON.stringify(`unknown field "${f}"`)}`)));
}

/**
 * Go writes a header's UTF-8 bytes as they are; Node writes a header string as
 * Latin-1 and refuses characters past U+00FF, so a field named `Ā` would fail
 * the request. Handing Node the UTF-8 bytes as Latin-1 sends what Go sends.
 */
const headerBytes = (text: string) => Buffer.from(text.replace(/\x7f/g, '\\u007f'), 'utf8').toString('latin1');
