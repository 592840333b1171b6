/**
 * Connection deadlines of a TLS server, as Go's http.Server enforces them for
 * kube-apiserver (k8s.io/apiserver secure_serving.go): ReadHeaderTimeout 32 s
 * ("just shy of requestTimeoutUpperBound"), and since Go bounds the TLS
 * handshake by the smallest of its read/write timeouts, the handshake too. A
 * connection that never starts TLS, stalls half-way through the handshake, or
 * never finishes its request headers is closed after that, instead of Node's
 * 120 s handshake default.
 */
import type { Server } from 'node:http';

/** Upstream's ReadHeaderTimeout for the secure port. */
export const readHeaderTimeoutMs = 32_000;

export interface ServingDeadlines {
  /** The TLS handshake, from accept (Go: the handshake's read deadline). */
  handshakeMs: number;
  /** From a request's first byte (the connection's first after the handshake) to the end of its headers. */
  headersMs: number;
}

export const upstreamServingDeadlines: ServingDeadlines = { handshakeMs: readHeaderTimeoutMs, headersMs: readHeaderTimeoutMs };

/**
 * Options for https.createServer: the handshake timeout, and how often Node looks for
 * connections past their header deadline (a quarter of it, so one is closed within 1.25x).
 */
export function tlsServerDeadlineOptions(d: ServingDeadlines): { handshakeTimeout: number; connectionsCheckingInterval: number } {
  return { handshakeTimeout: d.handshakeMs, connectionsCheckingInterval: Math.min(30_000, Math.max(250, Math.floor(d.headersMs / 4))) };
}

/** The header deadline on a created server; Node's whole-request timer stays off (streams are long-lived). */
export function boundHeaderRead(server: Server, d: ServingDeadlines): void {
  server.headersTimeout = d.headersMs;
  server.requestTimeout = 0;
}
