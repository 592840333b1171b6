/**
 * Warnings that code below the HTTP layer adds to the response being served
 * (upstream's warning.AddWarning on the request context): a
 * ValidatingAdmissionPolicy binding with the Warn action. They join any
 * Warning header already set (unknown-field warnings) within the same
 * bounds (warnings.ts).
 */
import { warningHeaderValues } from './warnings.js';
import type { RequestContext } from './request-context.js';

/** Adds `text` as a `299 - "text"` Warning header of the request's response (nothing outside a request). */
export function addWarning(ctx: RequestContext | undefined, text: string): void {
  const scope = ctx?.warnings;
  if (!scope || scope.res.headersSent || scope.texts.includes(text)) return;
  scope.texts.push(text);
  if (!scope.before) {
    const prev = scope.res.getHeader('Warning');
    scope.before = prev === undefined ? [] : Array.isArray(prev) ? prev : [String(prev)];
  }
  scope.res.setHeader('Warning', [...scope.before, ...warningHeaderValues(scope.texts)]);
}
