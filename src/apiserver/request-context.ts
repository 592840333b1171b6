/**
 * What the request being served carries below the HTTP layer (upstream's
 * request context): its user, its RequestInfo, what admission webhooks need
 * of it and where warnings go. One AsyncLocalStorage holds all of it, entered
 * once per request: Node's async hooks copy every enabled storage onto each
 * promise the request creates, so four storages cost four copies per promise
 * (about 2% of a pod create's CPU) where one does.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';
import type { UserInfo } from './auth/types.js';
import type { RequestInfo } from './request-info.js';

/** Warnings added below the HTTP layer (request-warnings.ts): the response, the texts so far, the header before them. */
export interface WarningScope { res: ServerResponse; texts: string[]; before?: string[] }

/** What admission webhooks read of the HTTP request (admission/webhook/request-scope.ts). */
export interface WebhookRequestScope { url: URL; res: ServerResponse }

export interface RequestContext {
  user?: UserInfo;
  info?: RequestInfo;
  webhook?: WebhookRequestScope;
  warnings?: WarningScope;
}

const current = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with `context` as the request's: the server's one entry per request. */
export function runInRequestContext<T>(context: RequestContext, fn: () => T): T {
  return current.run(context, fn);
}

/** Runs `fn` with the current context plus `field` set to `value` (a copy: the outer context is unchanged). */
export function runWithContextField<K extends keyof RequestContext, T>(field: K, value: RequestContext[K], fn: () => T): T {
  return current.run({ ...current.getStore(), [field]: value }, fn);
}

/** The request's context; undefined outside a request (bootstrap writes, in-process loops). */
export function requestContext(): RequestContext | undefined {
  return current.getStore();
}
