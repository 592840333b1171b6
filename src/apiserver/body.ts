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
      throw badRequest(`couldn't get version/kind; json parse error: ${jsonErrorWords(e as Error)}`);
    }
  }
  if (!anyValue && (value === null || typeof value !== 'object' || Array.isArray(value))) {
    throw badRequest(`couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  return value;
}

function jsonErrorWords(e: Error): string {
  // Node says "Unexpected token x in JSON at position n"; Go says "invalid character 'x' ...".
  const m = /Unexpected token '?(.)'?,? .*?(?:at position|is not valid JSON)/.exec(e.message);
  if (m) return `invalid character '${m[1]}' looking for beginning of value`;
  if (/Unexpected end/.test(e.message)) return 'unexpected end of JSON input';
  return e.message;
}

/** Protobuf and CBOR bodies are not decoded (JSON and YAML only): 415, as upstream answers unknown types. */
function unsupportedBody(type: string): StatusError {
  return new StatusError({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 415, reason: 'UnsupportedMediaType',
    message: `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (got ${type})`,
  });
}
