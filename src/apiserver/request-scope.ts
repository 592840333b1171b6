/**
 * The RequestInfo of the request being served, for admission plugins that
 * run below the HTTP layer and must know which subresource was asked for
 * (NodeRestriction tells a pod's status write from an eviction), as
 * upstream's admission attributes carry it.
 */
import type { RequestInfo } from './request-info.js';
import { requestContext, runWithContextField } from './request-context.js';

export function runInRequestScope<T>(info: RequestInfo, fn: () => T): T {
  return runWithContextField('info', info, fn);
}

/** The request's RequestInfo; undefined outside a request. */
export function currentRequestInfo(): RequestInfo | undefined {
  return requestContext()?.info;
}
