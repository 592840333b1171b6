/**
 * Server-side field validation (fieldValidation=Strict|Warn|Ignore; Warn is
 * the default as upstream): unknown fields fail the request or become
 * Warning headers.
 */
import type { ServerResponse } from 'node:http';
import { badRequest } from '../api/status.js';
import { findUnknownFields } from '../api/schema/index.js';

export function checkFields(key: string, obj: unknown, mode: string | undefined, res: ServerResponse): void {
  if (mode === 'Ignore') return;
  const unknown = findUnknownFields(key, obj);
  if (!unknown.length) return;
  if (mode === 'Strict') {
    throw badRequest(`strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(', ')}`);
  }
  res.setHeader('Warning', unknown.map((f) => `299 - ${JSON.stringify(`unknown field "${f}"`)}`));
}
