/** Writing responses: JSON objects and Status errors, always with kind and apiVersion. */
import type { ServerResponse } from 'node:http';
import { internalError, Status, StatusError } from '../api/status.js';

export function writeJSON(res: ServerResponse, code: number, body: unknown, contentType = 'application/json'): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private' });
  res.end(text);
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
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': length, 'Cache-Control': 'no-cache, private' });
  let slice = prefix;
  for (let i = 0; i < items.length; i++) {
    slice += i === 0 ? items[i] : `,${items[i]}`;
    if (slice.length < sliceChars) continue;
    if (!res.write(slice)) await drained(res);
    if (res.destroyed) return;
    slice = '';
  }
  res.end(slice + suffix);
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** As upstream's ErrorNegotiated: a Status that asks the client to wait also says so in Retry-After. */
export function writeStatus(res: ServerResponse, status: Status): void {
  const retryAfter = status.details?.retryAfterSeconds;
  if (retryAfter !== undefined && retryAfter > 0) res.setHeader('Retry-After', String(retryAfter));
  writeJSON(res, status.code, status);
}

/** Maps anything thrown in a handler to a Status; non-Status errors are 500s (bugs or I/O). */
export function toStatus(err: unknown): Status {
  if (err instanceof StatusError) return err.status;
  const msg = err instanceof Error ? err.message : String(err);
  return internalError(msg).status;
}
