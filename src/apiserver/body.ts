/**
 * Request bodies: read with upstream's 3 MiB limit, decoded from JSON or YAML,
 * with upstream-shaped 400s for malformed input.
 */
import type { IncomingMessage } from 'node:http';
import { parse as parseYAML } from 'yaml';
import { badRequest, tooLarge, StatusError } from '../api/status.js';

export const maxBodyBytes = 3 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBodyBytes) { req.resume(); throw tooLarge(); }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBodyBytes) { req.resume(); throw tooLarge(); }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function mediaType(req: IncomingMessage): string {
  return String(req.headers['content-type'] ?? 'application/json').split(';')[0].trim().toLowerCase();
}

/** Decodes a JSON or YAML body into a value; objects only unless `anyValue`. */
export function decodeBody(buf: Buffer, type: string, anyValue = false): any {
  if (type.includes('protobuf') || type.includes('cbor')) throw unsupportedBody(type);
  const text = buf.toString('utf8');
  if (!text.trim()) throw badRequest('Object \'Kind\' is missing in \'\'');
  let value: unknown;
  if (type.includes('yaml')) {
    try {
      value = parseYAML(text, { uniqueKeys: false, intAsBigInt: false });
    } catch (e) {
      throw badRequest(`error converting YAML to JSON: yaml: ${(e as Error).message.split('\n')[0]}`);
    }
  } else {
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw badRequest(`couldn't get version/kind; json parse error: ${jsonErrorWords(e as Error, text)}`);
    }
  }
  if (!anyValue && (value === null || typeof value !== 'object' || Array.isArray(value))) {
    throw badRequest(`couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  return value;
}

/** Where Go's scanner was when it met a bad character, by the words of Node's JSON.parse error. */
const goContexts: [RegExp, string][] = [
  [/after property name/, 'after object key'],
  [/after property value/, 'after object key:value pair'],
  [/after array element/, 'after array element'],
  [/property name/, 'looking for beginning of object key string'],
  [/after JSON/, 'after top-level value'],
  [/control character/, 'in string literal'],
];

/** Node's JSON.parse errors in the words of Go's encoding/json, which upstream decodes with. */
function jsonErrorWords(e: Error, text: string): string {
  const pos = /at position (\d+)/.exec(e.message);
  const at = pos ? Number(pos[1]) : -1;
  if (/Unexpected end|Unterminated string/.test(e.message) || (at >= 0 && !text.slice(at).trim())) return 'unexpected end of JSON input';
  const ch = at >= 0 ? text[at] : /Unexpected token '?(.)'?/.exec(e.message)?.[1];
  if (ch === undefined) return e.message;
  const where = goContexts.find(([re]) => re.test(e.message))?.[1] ?? 'looking for beginning of value';
  return `invalid character '${ch === '"' ? ch : JSON.stringify(ch).slice(1, -1)}' ${where}`;
}

/** Protobuf and CBOR bodies are not decoded (JSON and YAML only): 415, as upstream answers unknown types. */
function unsupportedBody(type: string): StatusError {
  return new StatusError({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 415, reason: 'UnsupportedMediaType',
    message: `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (got ${type})`,
  });
}
