/**
 * What the request being served carries below the HTTP layer (upstream's
 * request context): its user, its RequestInfo, what admission webhooks need
 * of it and where warnings go. Made once per request (server.ts) and passed
 * down as a parameter: to the handlers (HandlerContext.request), the store
 * calls they make (CreateOptions.context, ...) and from the store to
 * admission (StoreHooks), which reads it. No AsyncLocalStorage holds it:
 * while one is in use Node 20 runs its async hooks for every promise, tick
 * and stream of the process (test/unit/async-hooks-off.test.ts checks that
 * serving requests enables none).
 *
 * The registry declares the type and carries it without knowing its fields
 * (registry/request-context.ts); they are declared here.
 */
import type { ServerResponse } from 'node:http';
import type { UserInfo } from './auth/types.js';
import type { RequestInfo } from './request-info.js';
import type { RequestContext } from '../registry/request-context.js';

export type { RequestContext };

/** Warnings added below the HTTP layer (request-warnings.ts): the response, the texts so far, the header before them. */
export interface WarningScope { res: ServerResponse; texts: string[]; before?: string[] }

/** What admission webhooks read of the HTTP request (admission/webhook/request-scope.ts). */
export interface WebhookRequestScope { url: URL; res: ServerResponse }

declare module '../registry/request-context.js' {
  interface RequestContext {
    user?: UserInfo;
    info?: RequestInfo;
    webhook?: WebhookRequestScope;
    warnings?: WarningScope;
  }
}
