/**
 * Request bodies: read with upstream's 3 MiB limit, decoded from JSON, YAML or
 * protobuf, with upstream-shaped 400s for malformed or too deeply nested input
 * and 415 for any other Content-Type.
 */
import type { IncomingMessage } from 'node:http';
import { StatusError, badRequest, tooLarge, unsupportedMediaType } from '../api/status.js';
import { jsonDepthError, jsonTextTooDeep, maxNestingDepth, valueTooDeep } from '../api/nesting.js';
import { decodeYAMLBody, type ParsedYAML } from './yaml-body.js';
import { decodeObject, protobufMediaType } from '../api/protobuf/envelope.js';
import { ProtoDecodeError } from '../api/protobuf/codec.js';
import { seatFor } from './flowcontrol/seats.js';
import { inTurn } from './flowcontrol/turns.js';
import { markStage } from './request-stages.js';

export const maxBodyBytes = 3 * 1024 * 1024;

/**
 * The request's body, resolved in a turn of the loop (see below). One promise from the socket's
 * bytes to the caller: the body, the seat and the turn chained as awaits in an async function
 * made four more and as many microtask turns on every write.
 */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBodyBytes) { req.resume(); return Promise.reject(tooLarge()); }
  return new Promise((resolve, reject) => collectBody(req, resolve, reject));
}

/**
 * After the body: the steps that follow it are what a flood makes expensive, so they wait for the
 * flow's seat, then for a turn of the loop (turns.ts), and a burst of writes does not run as one
 * task. A request with no seat to wait for (most) waits for its turn alone. `resolve` runs as the
 * turn's task: the caller's following steps run in that task's microtasks, inside its quantum.
 */
function afterBody(req: IncomingMessage, body: Buffer, resolve: (body: Buffer) => void, reject: (err: unknown) => void): void {
  markStage(req, 'read');
  const turned = () => { markStage(req, 'turned'); resolve(body); };
  const seat = seatFor(req, body.length);
  if (seat) seat.then(() => inTurn(turned), reject);
  else inTurn(turned);
}

/**
 * The request's bytes, up to maxBodyBytes (past them: drained, 413), read with 'data' events: an
 * async iterator over the request (one promise and one end-of-stream watcher per chunk) was ~5%
 * of a small create's CPU. Fails as that iterator did when the stream fails or closes early.
 */
function collectBody(req: IncomingMessage, resolve: (body: Buffer) => void, reject: (err: unknown) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const done = (err: Error | undefined) => {
    req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    if (err) reject(err);
    else afterBody(req, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size), resolve, reject);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBodyBytes) { done(tooLarge()); req.resume(); return; }
    chunks.push(chunk);
  };
  const onEnd = () => done(undefined);
  const onError = (err: Error) => done(err);
  const onClose = () => { if (!req.readableEnded) done(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' })); };
  if (req.readableEnded) return afterBody(req, Buffer.alloc(0), resolve, reject);
  // A small body has usually arrived with its headers: the parser has pushed all of it (and its
  // end) into the stream before the request's first step runs. Taken at once, it needs no
  // listeners and no flowing mode (whose resume is a tick of its own); 'end' follows as ever.
  if (req.complete && req.readableFlowing === null && req.readableLength > 0 && req.readableLength <= maxBodyBytes) {
    const body = req.read() as Buffer | null;
    if (body) return afterBody(req, body, resolve, reject);
  }
  req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
}

/**
 * The request's media type without parameters, lower-cased. An absent or
 * empty Content-Type is JSON: upstream's NegotiateInputSerializer takes the
 * first supported type then.
 */
export function mediaType(req: IncomingMessage): string {
  const given = req.headers['content-type'];
  // What nearly every client sends, already in the form the general path gives (asked several times per write).
  if (given === 'application/json') return given;
  return String(given ?? '').split(';')[0].trim().toLowerCase() || 'application/json';
}

/**
 * The media types a create, update, delete or subresource body may have, in
 * upstream's order. Upstream also lists CBOR behind a feature gate; k8ts does
 * not decode it, so it does not claim it.
 */
export const bodyMediaTypes = ['application/json', 'application/yaml', protobufMediaType];

/** The kind an endpoint decodes its body into (upstream's defaultGVK): `v1` / `Pod`. */
export interface BodyKind { apiVersion: string; kind: string }

/**
 * Decodes a JSON, YAML or protobuf body into a value; objects only unless
 * `anyValue`. Protobuf needs `into`, the endpoint's kind, which a body without
 * typeMeta takes. Any other media type is 415 UnsupportedMediaType, as
 * upstream answers text/plain, form posts and the like (which also keeps a
 * browser's cross-site form post from creating objects with the user's
 * certificate).
 */
export function decodeBody(buf: Buffer, type: string, anyValue = false, into?: BodyKind): any {
  return decodeBodyWithSource(buf, type, anyValue, into).value;
}

/**
 * The text a JSON or YAML body was decoded from, as the strict field checks
 * read it again (field-checks.ts); a YAML body also with its parsed document,
 * so that it is parsed once.
 */
export interface RawBody { text: string; yaml: boolean; parsedYAML?: ParsedYAML }

/** decodeBody, and the body's RawBody (none for protobuf). */
function decodeBodyWithSource(buf: Buffer, type: string, anyValue: boolean, into?: BodyKind): { value: any; raw?: RawBody } {
  if (!bodyMediaTypes.includes(type) || (type === protobufMediaType && !into)) throw unsupportedMediaType(bodyMediaTypes);
  if (type === protobufMediaType) return { value: decodeProtobuf(buf, into!) };
  const text = buf.toString('utf8');
  if (!text.trim()) throw badRequest('Object \'Kind\' is missing in \'\'');
  const yaml = type === 'application/yaml' ? decodeYAMLBody(text) : undefined;
  const value = yaml ? yaml.value : decodeJSON(text);
  if (!anyValue && (value === null || typeof value !== 'object' || Array.isArray(value))) {
    throw badRequest(`couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  return { value, raw: { text, yaml: yaml !== undefined, parsedYAML: yaml?.parsed } };
}

/**
 * A `k8s\0`-prefixed protobuf body as the JSON object the JSON path would
 * have read. Failures are upstream's transformDecodeError words: with the
 * body's kind when its envelope named one, else a hex summary of the body.
 */
function decodeProtobuf(buf: Buffer, into: BodyKind): any {
  try {
    const { object } = decodeObject(buf, into);
    if (valueTooDeep(object)) throw new ProtoDecodeError(`exceeded max depth of ${maxNestingDepth}`);
    return object;
  } catch (e) {
    if (!(e instanceof ProtoDecodeError)) throw e;
    if (e.gvk) throw badRequest(`${e.gvk.kind} in version ${JSON.stringify(e.gvk.version)} cannot be handled as a ${into.kind}: ${e.message}`);
    throw badRequest(`the object provided is unrecognized (must be of type ${into.kind}): ${e.message} (${summarizeData(buf, 30)})`);
  }
}

/** As upstream's summarizeData: a body that looks like JSON as text, anything else in hex, cut after `max` bytes. */
function summarizeData(buf: Buffer, max: number): string {
  if (buf.length === 0) return '<empty>';
  const head = buf.subarray(0, max);
  const text = buf[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return buf.length > max ? `${text} ...` : text;
}

/**
 * decodeBody for a create or update body. A JSON or YAML body whose
 * apiVersion and kind cannot even be read fails as upstream's
 * transformDecodeError words it, naming the endpoint's kind and showing the
 * start of the body: `the object provided is unrecognized (must be of type
 * Pod): couldn't get version/kind; json parse error: ... ({"kind":...)`.
 */
export function decodeObjectBody(buf: Buffer, type: string, into: BodyKind): any {
  return decodeObjectBodyWithSource(buf, type, into).obj;
}

/** decodeObjectBody, and the body's RawBody for the strict field checks (none for protobuf). */
export function decodeObjectBodyWithSource(buf: Buffer, type: string, into: BodyKind): { obj: any; raw?: RawBody } {
  try {
    const { value, raw } = decodeBodyWithSource(buf, type, false, into);
    return { obj: value, raw };
  } catch (e) {
    const unreadable = e instanceof StatusError && e.code === 400 && type !== protobufMediaType && buf.toString('utf8').trim() !== '';
    if (!unreadable) throw e;
    throw badRequest(`the object provided is unrecognized (must be of type ${into.kind}): ${e.message} (${summarizeData(buf, 30)})`);
  }
}

/** JSON.parse after a scan for nesting deeper than maxNestingDepth (upstream's decoder refuses it while scanning). */
function decodeJSON(text: string): unknown {
  const tooDeep = jsonTextTooDeep(text);
  if (tooDeep >= 0) throw badRequest(`couldn't get version/kind; json parse error: ${jsonDepthError(text[tooDeep])}`);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`couldn't get version/kind; json parse error: ${jsonErrorWords(e as Error, text)}`);
  }
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
