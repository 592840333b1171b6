/**
 * What keeps one connection or one request from taking the server with it:
 * the request URI parsed without ever throwing, a deadline on every request
 * that is not long-running (upstream's WithTimeoutForNonLongRunningRequests,
 * 60 s: a body that stalls half-way gets a 504, not a connection held for
 * ever), bounded header and idle times, and a last-resort answer for any
 * error that escaped a handler.
 */
import type { Server } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Status } from '../api/status.js';
import type { Logger } from '../util/log.js';
import type { RequestInfo } from './request-info.js';
import { answerClientError } from './client-error.js';
import { boundHeaderRead, upstreamServingDeadlines } from '../util/serving-deadlines.js';

export { tlsServerDeadlineOptions } from '../util/serving-deadlines.js';

export interface ConnectionTimeouts {
  /** kube-apiserver --request-timeout: the whole of a non-long-running request. */
  requestMs: number;
  /** From a connection's first byte of a request to the end of its headers (upstream's ReadHeaderTimeout, 32 s). */
  headersMs: number;
  /** From accept to the end of the TLS handshake (Go bounds it by ReadHeaderTimeout too). */
  handshakeMs: number;
  /** How long a keep-alive connection may sit between requests. */
  keepAliveMs: number;
}

export const defaultTimeouts: ConnectionTimeouts = { requestMs: 60_000, ...upstreamServingDeadlines, keepAliveMs: 65_000 };

/**
 * The request-target as a URL, or undefined when it is not one. Origin-form
 * (`/api/v1/pods`) is resolved against a fixed base, so `//`, `//[` and
 * `//:99999/healthz` are paths (as Go's ParseRequestURI reads them), never
 * authorities; absolute-form is accepted as Go's server accepts it.
 */
export function requestURL(raw: string | undefined): URL | undefined {
  const target = raw ?? '/';
  // Go refuses a request-target with a broken %-escape before any handler runs.
  if (/%(?![0-9a-fA-F]{2})/.test(target)) return undefined;
  try {
    if (target.startsWith('/')) return new URL(`https://localhost${target}`);
    const url = new URL(target);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

const longRunningVerbs = new Set(['watch', 'proxy']);
const longRunningSubresources = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/** Upstream's BasicLongRunningRequestCheck: these requests have no deadline. */
export function isLongRunning(info: RequestInfo): boolean {
  return longRunningVerbs.has(info.verb) || (info.subresource !== undefined && longRunningSubresources.has(info.subresource));
}

/** Upstream's timeout filter answer: 504, reason Timeout. */
function requestTimeoutStatus(): Status {
  return {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 504, reason: 'Timeout',
    message: 'Timeout: request did not complete within requested timeout - context deadline exceeded', details: {},
  };
}

/**
 * Arms the request's deadline. When it passes before the response is done,
 * the client gets the 504 if nothing was written yet, and the connection is
 * closed either way (its request body may still be arriving, so it cannot
 * carry another request).
 */
export function deadlineFor(req: IncomingMessage, res: ServerResponse, ms: number): void {
  const timer = setTimeout(() => {
    if (res.writableEnded) return;
    if (res.headersSent) { res.destroy(); return; }
    const body = JSON.stringify(requestTimeoutStatus());
    res.writeHead(504, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
    res.end(body, () => req.socket.destroy());
  }, ms);
  timer.unref();
  res.once('close', () => clearTimeout(timer));
}

/**
 * Before an answer that did not read the whole body (401, 413, a decode error), the rest of the
 * body is read and thrown away for up to `ms`: a client still writing it then gets the answer
 * instead of a broken pipe (Node's client, unlike Go's, drops a response it got while its write
 * failed), and the connection can carry its next request. A body still unfinished by then is
 * not waited for: the answer goes out with Connection: close.
 */
export async function settleBody(req: IncomingMessage, res: ServerResponse, ms: number): Promise<void> {
  if (!req.complete) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      const done = () => { clearTimeout(timer); resolve(); };
      req.once('end', done);
      req.once('close', done);
      req.once('error', done);
      req.resume();
    });
  }
  if (!req.complete && !res.headersSent) res.setHeader('Connection', 'close');
}

/**
 * For an error that escaped serve() itself (a bug): log it, answer 500 if
 * the response has not started, otherwise drop this one connection.
 */
export function lastResort(logger: Logger, req: IncomingMessage, res: ServerResponse, err: unknown): void {
  logger.error('request handler failed', { method: req.method, url: req.url, err: err instanceof Error ? err.stack : String(err) });
  try {
    if (res.headersSent) { res.destroy(); return; }
    const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'InternalError', code: 500, message: 'Internal error occurred: the request could not be served' });
    res.writeHead(500, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
    res.end(body);
  } catch {
    res.destroy();
  }
}

/**
 * Header and keep-alive bounds on every connection (the handshake's is a server option:
 * tlsServerDeadlineOptions), and answers
 * for what the HTTP parser refuses (Node's own defaults, plus a log line).
 * Node's whole-request timer stays off: watches and streams are long-lived,
 * and deadlineFor bounds the others.
 */
export function boundConnections(server: Server, t: ConnectionTimeouts, logger: Logger): void {
  server.keepAliveTimeout = t.keepAliveMs;
  boundHeaderRead(server, t);
  server.timeout = 0;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    logger.debug('client connection error', { code: err.code, err: err.message });
    answerClientError(err, socket);
  });
  server.on('tlsClientError', (err: NodeJS.ErrnoException) => logger.debug('TLS handshake failed', { code: err.code, err: err.message }));
}
