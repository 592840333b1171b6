/**
 * What admission webhooks need of the HTTP request being served that the store's
 * admission hooks do not carry: the query (dryRun, fieldManager: the AdmissionReview's
 * dryRun and options) and the response, where the webhooks' warnings go as Warning
 * headers (upstream's warning recorder in the request context). Both come in the
 * request context (request-context.ts), passed down with the write.
 */
import { warningHeaderValues } from '../../warnings.js';
import type { ServerResponse } from 'node:http';
import type { WebhookRequestScope } from '../../request-context.js';

export type { WebhookRequestScope };

/** Appends warning texts to the response's Warning headers (a webhook's `warnings`). */
export function addWarnings(res: ServerResponse | undefined, texts: readonly string[]): void {
  if (!res || !texts.length || res.headersSent) return;
  const before = res.getHeader('Warning');
  const existing = Array.isArray(before) ? before.map(String) : before === undefined ? [] : [String(before)];
  res.setHeader('Warning', [...existing, ...warningHeaderValues(texts)]);
}
