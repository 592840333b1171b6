/**
 * Warnings that code below the HTTP layer adds to the response being served
 * (upstream's warning.AddWarning on the request context): a
 * ValidatingAdmissionPolicy binding with the Warn action. They join any
 * Warning header already set (unknown-field warnings) within the same
 * bounds (warnings.ts).
 */
import type { ServerResponse } from 'node:http';
import { warningHeaderValues } from './warnings.js';
import { requestContext, runWithContextField } from './request-context.js';

export function runWithWarnings<T>(res: ServerResponse, fn: () => T): T {
  return runWithContextField('warnings', { res, texts: [] }, fn);
}

/** Adds `text` as a `299 - "text"` Warning header of the current response (nothing outside a request). */
export function addWarning(text: string): void {
  const scope = requestContext()?.warnings;
  if (!scope || scope.res.headersSent || scope.texts.includes(text)) return;
  scope.texts.push(text);
  if (!scope.before) {
    const prev = scope.res.getHeader('Warning');
    scope.before = prev === undefined ? [] : Array.isArray(prev) ? prev : [String(prev)];
  }
  scope.res.setHeader('Warning', [...scope.before, ...warningHeaderValues(scope.texts)]);
}
