/**
 * Opens a stream on an HTTP/2 session (session.request) without node:http2's most expensive
 * line. Node 20's ClientHttp2Session.request wraps the stream's start in
 * `new AsyncResource('PendingRequest').bind(...)`, and AsyncResource.prototype.bind defines a
 * deprecated `asyncResource` accessor on every bound function: two util.deprecate() wrappers,
 * each an ObjectSetPrototypeOf on a fresh function. Measured on this machine that is three
 * quarters of request(): about 40 µs against 9 µs without it (/tmp micro-benchmark, one session,
 * requests one after another), and the largest single entry of a pod create's profile on the
 * etcd backend (every create is one Txn, one stream).
 *
 * For the synchronous duration of request() alone, bind is the plain one: the same
 * runInAsyncScope(fn, thisArg, ...args), so the stream still starts in the async scope it was
 * asked from, only without the deprecated accessor, which http2 never reads. No other code runs
 * while the swap is in place (request() does not yield), and it is undone in `finally`.
 */
import { AsyncResource } from 'node:async_hooks';
import type http2 from 'node:http2';

const describedBind = AsyncResource.prototype.bind;

function plainBind(this: AsyncResource, fn: (...args: any[]) => unknown, thisArg?: unknown) {
  return this.runInAsyncScope.bind(this, fn, thisArg);
}

export function openStream(session: http2.ClientHttp2Session, headers: http2.OutgoingHttpHeaders, options?: http2.ClientSessionRequestOptions): http2.ClientHttp2Stream {
  const proto = AsyncResource.prototype as { bind: typeof describedBind };
  // Someone else's bind (a tracer's) is left alone.
  if (proto.bind !== describedBind) return session.request(headers, options);
  proto.bind = plainBind as typeof describedBind;
  try {
    return session.request(headers, options);
  } finally {
    proto.bind = describedBind;
  }
}
