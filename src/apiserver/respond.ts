/** Writing responses: JSON or protobuf objects and Status errors, always with kind and apiVersion. */
import type { ServerResponse } from 'node:http';
import { internalError, Status, StatusError, statusWireForm, successStatus, unknownFailure } from '../api/status.js';
import { StorageError } from '../storage/backend.js';
import { encodeObject, protobufMediaType } from '../api/protobuf/envelope.js';
import type { EncodedStatus } from './heavy/invalid-status.js';
import { pullSlice, type PulledBytes } from './heavy/pulled-bytes.js';
import { gzipBody, gzipMinBytes } from '../util/http-gzip.js';
import { gzipChunks, gzippedHeaders, gzipsAnswer, type BodyParts } from './response-compression.js';
import { drainedOrClosed } from '../util/drained.js';
import { prettyJSON, prettyMaxBytes, wantsPretty } from './pretty.js';
import { endWhole } from './pipelined-answers.js';

type Headers = Record<string, string | number>;

/** The headers of an answer of `length` bytes of `contentType`. */
const bodyHeaders = (contentType: string, length: number): Headers => ({ 'Content-Type': contentType, 'Content-Length': length, 'Cache-Control': 'no-cache, private' });

export function writeJSON(res: ServerResponse, code: number, body: unknown, contentType = 'application/json'): void {
  let text = typeof body === 'string' ? body : JSON.stringify(body);
  // curl, wget and browsers get it indented, as from kube-apiserver (pretty.ts).
  if (contentType === 'application/json' && wantsPretty(res.req)) text = prettyJSON(text);
  const headers = bodyHeaders(contentType, Buffer.byteLength(text));
  if (gzipsAnswer(res.req, headers['Content-Length'] as number)) return void writeGzipped(res, code, headers, [text]);
  res.writeHead(code, headers);
  void endFlushed(res, text);
}

/**
 * An answer gzipped as kube-apiserver's (response-compression.ts): each compressed chunk
 * written after the socket took the one before, the last through endFlushed. A HEAD gets
 * the headers a GET would, and nothing is compressed. A body that fails mid-way cuts the
 * answer (its gzip stream is then incomplete, as a client sees a broken connection).
 */
async function writeGzipped(res: ServerResponse, code: number, headers: Headers, parts: BodyParts): Promise<void> {
  res.writeHead(code, gzippedHeaders(headers));
  if (res.req.method === 'HEAD') return void res.end();
  let held: Buffer | undefined;
  try {
    for await (const chunk of gzipChunks(parts)) {
      if (held && !res.write(held)) await drainedOrClosed(res);
      if (res.destroyed) return;
      held = chunk;
    }
  } catch {
    res.destroy();
    return;
  }
  if (!res.destroyed) await endFlushed(res, held ?? Buffer.alloc(0));
}

/**
 * writeJSON of JSON text, gzipped when `gzip` says so (true: compress it here, off the event
 * loop; a Buffer: its gzip, made before) and the text is worth it (gzipMinBytes).
 */
export async function writeJSONEncoded(res: ServerResponse, code: number, text: string, gzip?: boolean | Buffer): Promise<void> {
  if (!gzip || text.length < gzipMinBytes) return writeJSON(res, code, text);
  const body = gzip === true ? await gzipBody(text) : gzip;
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding', 'Content-Length': body.length, 'Cache-Control': 'no-cache, private' });
  await endFlushed(res, body);
}

/**
 * The final write of a response is at most this many bytes (with its headers, about 8.5 KB),
 * half a socket's write high-water mark (16 KiB): what endFlushed needs. Not 4 KiB, as it was:
 * a pod as a controller creates it answers 4.0-4.5 KB (a DaemonSet's pod with its defaults and
 * managed fields), so nearly every pod create was answered in two writes, each its own TLS record
 * and syscall, with a promise and a write callback between them (bench/RESULTS.md, `write-2026-12-05`).
 */
const tailBytes = 8192;

/**
 * Ends the response so that its last write leaves the socket below its high-water mark.
 *
 * Why: a keep-alive client sends its next request as soon as it has the last byte. If the
 * socket still "needs drain" from a large final write when that request arrives, Node's server
 * takes it for a pipelined flood and pauses the socket, and on a TLS socket data already
 * decrypted is still handed to the paused parser: HPE_PAUSED, and the connection is reset under
 * the client's next request (which client-go does not retry for a POST). So everything but a
 * small tail is flushed first, and the tail goes out into an empty buffer.
 */
export function endFlushed(res: ServerResponse, text: string | Buffer): Promise<void> | void {
  // A small answer (nearly every one) is ended at once, with no promise made for it.
  if (text.length <= tailBytes / 4 || Buffer.byteLength(text) <= tailBytes) { res.end(text); return; }
  return endInTwo(res, typeof text === 'string' ? Buffer.from(text) : text);
}

/** endFlushed of a large answer: all but its tail, then the tail once the socket took the rest. */
async function endInTwo(res: ServerResponse, buf: Buffer): Promise<void> {
  const cut = buf.length - tailBytes;
  await new Promise<void>((resolve) => {
    res.once('close', resolve);
    res.write(buf.subarray(0, cut), () => { res.off('close', resolve); resolve(); });
  });
  if (!res.destroyed) res.end(buf.subarray(cut));
}

/** A write of at most about this many characters at a time, so a large body is never one string or one buffer. */
const sliceChars = 1 << 20;

/**
 * writeJSON of the text `prefix + items.join(',') + suffix`, without ever joining it: the
 * Content-Length is summed from the parts, which then go out in slices of about 1 MiB, each
 * after the socket took the one before. Resolves when the last slice is queued or the client left.
 */
export async function writeJSONItems(res: ServerResponse, code: number, prefix: string, items: readonly string[], suffix: string): Promise<void> {
  let length = Buffer.byteLength(prefix) + Buffer.byteLength(suffix) + Math.max(items.length - 1, 0);
  for (const item of items) length += Buffer.byteLength(item);
  if (length <= prettyMaxBytes && wantsPretty(res.req)) return writeJSON(res, code, prefix + items.join(',') + suffix);
  const headers = bodyHeaders('application/json', length);
  if (gzipsAnswer(res.req, length)) return writeGzipped(res, code, headers, jsonSlices(prefix, items, suffix));
  res.writeHead(code, headers);
  let held: string | undefined;
  for (const slice of jsonSlices(prefix, items, suffix)) {
    if (held !== undefined && !res.write(held)) await drainedOrClosed(res);
    if (res.destroyed) return;
    held = slice;
  }
  await endFlushed(res, held ?? '');
}

/** The text `prefix + items.join(',') + suffix` in slices of about 1 MiB, made as they are asked for. */
function* jsonSlices(prefix: string, items: readonly string[], suffix: string): Generator<string> {
  let slice = prefix;
  for (let i = 0; i < items.length; i++) {
    slice += i === 0 ? items[i] : `,${items[i]}`;
    if (slice.length < sliceChars) continue;
    yield slice;
    slice = '';
  }
  yield slice + suffix;
}


/**
 * An API object in protobuf when the client prefers it and k8ts has the
 * kind's message (built-in kinds and their lists, Status, Scale ...), else
 * JSON, as upstream's negotiation falls back for kinds without protobuf.
 */
export function writeObjectAs(res: ServerResponse, code: number, obj: unknown, protobuf: boolean): void {
  if (isStatus(obj)) obj = statusWireForm(obj);
  const buf = protobuf ? encodeObject(obj) : undefined;
  // Upstream's JSON encoder ends a Status with a newline (json.Encoder.Encode); clients compare the text.
  if (!buf) return writeJSON(res, code, isStatus(obj) ? `${JSON.stringify(obj)}\n` : obj);
  const headers = bodyHeaders(protobufMediaType, buf.length);
  if (gzipsAnswer(res.req, buf.length)) return void writeGzipped(res, code, headers, [buf]);
  res.writeHead(code, headers);
  void endFlushed(res, buf);
}

/** Upstream's answer to a create of pods/binding or pods/eviction: the Status {status: Success} with code 201. */
const createdStatus = (): Status => ({ ...successStatus(), code: 201 });

/** Its JSON text (ended by a newline, as writeObjectAs writes a Status) and headers, made once: the scheduler's every binding gets them. */
const createdJSON = `${JSON.stringify(statusWireForm(createdStatus()))}\n`;
const createdHeaders: Readonly<Headers> = Object.freeze(bodyHeaders('application/json', Buffer.byteLength(createdJSON)));

/** writeObjectAs(res, 201, createdStatus(), protobuf), JSON from the text made once (protobuf and indented JSON as before). */
export function writeCreatedStatus(res: ServerResponse, protobuf: boolean): void {
  if (protobuf || wantsPretty(res.req)) return writeObjectAs(res, 201, createdStatus(), protobuf);
  // Bindings come pipelined (the scheduler's light pool): their 201s go out together (pipelined-answers.ts).
  endWhole(res, 201, createdHeaders, createdJSON);
}

/** As upstream's ErrorNegotiated: a Status that asks the client to wait also says so in Retry-After; protobuf when the client prefers it. */
export function writeStatus(res: ServerResponse, status: Status, protobuf = false): void {
  const retryAfter = status.details?.retryAfterSeconds;
  if (retryAfter !== undefined && retryAfter > 0) res.setHeader('Retry-After', String(retryAfter));
  writeObjectAs(res, status.code, status, protobuf);
}

/**
 * A Status the heavy lane already encoded (a 422 of millions of causes):
 * thrown like any StatusError, written as its bytes. Its `status` is a short
 * stand-in for logs and metrics; the client gets `encoded`.
 */
export class EncodedStatusError extends StatusError {
  constructor(readonly encoded: EncodedStatus, summary: string) {
    super({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: summary, reason: encoded.reason, code: encoded.code });
  }
}

/** The error of a failed request as its Status, or as the bytes already encoded for it. */
export function writeError(res: ServerResponse, err: unknown, protobuf: boolean): void {
  if (err instanceof EncodedStatusError) return void writeBytes(res, err.encoded.code, err.encoded.contentType, err.encoded.body);
  writeStatus(res, toStatus(err), protobuf);
}

/**
 * A body already encoded, written in slices of 1 MiB, each after the socket
 * took the one before: one write of hundreds of MiB would be encrypted in one
 * go on the loop (seconds), and buffered whole beside the body.
 */
export async function writeBytes(res: ServerResponse, code: number, contentType: string, parts: readonly Uint8Array[] | PulledBytes): Promise<void> {
  if (!Array.isArray(parts)) return writePulled(res, code, contentType, parts as PulledBytes);
  let length = 0;
  for (const p of parts) length += p.byteLength;
  const headers = bodyHeaders(contentType, length);
  if (gzipsAnswer(res.req, length)) return writeGzipped(res, code, headers, parts);
  res.writeHead(code, headers);
  const slices: Buffer[] = [];
  for (const p of parts) {
    for (let at = 0; at < p.byteLength; at += sliceChars) slices.push(Buffer.from(p.buffer, p.byteOffset + at, Math.min(sliceChars, p.byteLength - at)));
  }
  const last = slices.length - 1;
  for (let i = 0; i < last; i++) {
    if (!res.write(slices[i])) await drainedOrClosed(res);
    if (res.destroyed) return;
  }
  await endFlushed(res, slices[last] ?? Buffer.alloc(0));
}

/**
 * A body the heavy lane keeps in its worker, pulled a slice at a time, each
 * written after the socket took the one before; the port is closed at the end
 * (which frees the worker's copy), and a worker gone mid-way cuts the answer.
 */
async function writePulled(res: ServerResponse, code: number, contentType: string, body: PulledBytes): Promise<void> {
  const headers = bodyHeaders(contentType, body.length);
  if (gzipsAnswer(res.req, body.length)) {
    try {
      return await writeGzipped(res, code, headers, pulledSlices(body));
    } finally {
      body.port.close();
    }
  }
  res.writeHead(code, headers);
  let sent = 0;
  try {
    while (sent < body.length && !res.destroyed) {
      const slice = await pullSlice(body.port);
      if (!slice) { res.destroy(); return; }
      const buf = Buffer.from(slice.buffer, slice.byteOffset, slice.byteLength);
      sent += buf.length;
      if (sent >= body.length) await endFlushed(res, buf);
      else if (!res.write(buf)) await drainedOrClosed(res);
    }
  } finally {
    body.port.close();
  }
}

/** A pulled body's slices, as writePulled takes them; a worker gone mid-way is an error. */
async function* pulledSlices(body: PulledBytes): AsyncGenerator<Uint8Array> {
  for (let sent = 0; sent < body.length;) {
    const slice = await pullSlice(body.port);
    if (!slice) throw new Error('the heavy lane closed the answer before its end');
    sent += slice.byteLength;
    yield slice;
  }
}

/** Maps anything thrown in a handler to a Status; non-Status errors are 500s (bugs or I/O). */
export function toStatus(err: unknown): Status {
  if (err instanceof StatusError) return err.status;
  if (err instanceof StorageError) return unknownFailure(err.message).status;
  const msg = err instanceof Error ? err.message : String(err);
  return internalError(msg).status;
}

const isStatus = (obj: unknown): obj is Status => (obj as Status | null)?.kind === 'Status' && (obj as Status).apiVersion === 'v1';
