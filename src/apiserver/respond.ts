/** Writing responses: JSON objects and Status errors, always with kind and apiVersion. */
import type { ServerResponse } from 'node:http';
import { internalError, Status, StatusError } from '../api/status.js';

export function writeJSON(res: ServerResponse, code: number, body: unknown, contentType = 'application/json'): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private' });
  res.end(text);
}

export function writeStatus(res: ServerResponse, status: Status): void {
  writeJSON(res, status.code, status);
}

/** Maps anything thrown in a handler to a Status; non-Status errors are 500s (bugs or I/O). */
export function toStatus(err: unknown): Status {
  if (err instanceof StatusError) return err.status;
  const msg = err instanceof Error ? err.message : String(err);
  return internalError(msg).status;
}
