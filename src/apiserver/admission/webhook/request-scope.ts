/**
 * What admission webhooks need of the HTTP request being served that the store's
 * admission hooks do not carry: the query (dryRun, fieldManager: the AdmissionReview's
 * dryRun and options) and the response, where the webhooks' warnings go as Warning
 * headers (upstream's warning recorder in the request context).
 */
import { warningHeaderValues } from '../../warnings.js';
import { requestContext, runWithContextField, type WebhookRequestScope } from '../../request-context.js';

export type { WebhookRequestScope };

export function runInWebhookScope<T>(scope: WebhookRequestScope, fn: () => T): T {
  return runWithContextField('webhook', scope, fn);
}

export function currentWebhookScope(): WebhookRequestScope | undefined {
  return requestContext()?.webhook;
}

/** `?dryRun=All` on the request being served. */
export function requestIsDryRun(): boolean {
  return currentWebhookScope()?.url.searchParams.getAll('dryRun').includes('All') ?? false;
}

/** Appends warning texts to the response's Warning headers (a webhook's `warnings`). */
export function addWarnings(texts: readonly string[]): void {
  const res = currentWebhookScope()?.res;
  if (!res || !texts.length || res.headersSent) return;
  const before = res.getHeader('Warning');
  const existing = Array.isArray(before) ? before.map(String) : before === undefined ? [] : [String(before)];
  res.setHeader('Warning', [...existing, ...warningHeaderValues(texts)]);
}
