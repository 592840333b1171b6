/**
 * The authenticated user of the request being served, for the code that runs
 * on its behalf below the HTTP layer: admission plugins (NodeRestriction,
 * ServiceAccount, the CSR's requester) read it here instead of every store
 * signature carrying it, as upstream's request context carries user.Info.
 */
import type { UserInfo } from './auth/types.js';
import { requestContext, runWithContextField } from './request-context.js';

export function runAsRequestUser<T>(user: UserInfo, fn: () => T): T {
  return runWithContextField('user', user, fn);
}

/** The request's user; undefined outside a request (bootstrap writes, in-process loops). */
export function requestUser(): UserInfo | undefined {
  return requestContext()?.user;
}
