/**
 * What admission webhooks need of the HTTP request being served that the store's
 * admission hooks do not carry: the query (dryRun, fieldManager: the AdmissionReview's
 * dryRun and options) and the response, where the webhooks' warnings go as Warning
 * headers (upstream's warning recorder in the request context).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';
import { warningHeaderValues } from '../../warnings.js';

export interface WebhookRequestScope { url: URL; res: ServerResponse }

const current = new AsyncLocalStorage<WebhookRequestScope>();

export function runInWebhookScope<T>(scope: WebhookRequestScope, fn: () => T): T {
  return current.run(scope, fn);
}

export function currentWebhookScope(): WebhookRequestScope | undefined {
  return current.getStore();
}

/** `?dryRun=All` on the request being served. */
export function requestIsDryRun(): boolean {
  return current.getStore()?.url.searchParams.getAll('dryRun').includes('All') ?? false;
}

/** Appends warning texts to the response's Warning headers (a webhook's `warnings`). */
export function addWarnings(texts: readonly string[]): void {
  const res = current.getStore()?.res;
  if (!res || !texts.length || res.headersSent) return;
  const before = res.getHeader('Warning');
  const existing = Array.isArray(before) ? before.map(String) : before === undefined ? [] : [String(before)];
  res.setHeader('Warning', [...existing, ...warningHeaderValues(texts)]);
}
