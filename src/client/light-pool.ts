/**
 * The undici pools behind RestClient.requestLight: the same keep-alive
 * connections to the API server (HTTPS, or plain HTTP on its loopback socket)
 * at a fraction of Node's http client's CPU per request.
 *
 * Two shapes. `onePerConnection`: up to 64 connections (the agent's
 * maxSockets), one request at a time on each, for any request. `pipelined`
 * (HTTP/1.1 pipelining, RFC 9112 section 9.3.2) for a caller that sends a
 * burst of small requests and accepts that a dropped connection fails every
 * request on it, as a dropped HTTP/2 connection fails all its streams in
 * client-go: the scheduler's bindings. There the requests written in one
 * turn of the event loop on one connection go out as one socket write, so
 * they share a TLS record and a syscall on each side (Node's http server
 * reads them in one read and answers them in order), where one request a
 * connection costs each its own (bench/RESULTS.md `sched8-2026-12-06`).
 */
import tls from 'node:tls';
import { isIP, type Socket } from 'node:net';
import type { Pool, buildConnector } from 'undici';
import type { ClientConfig } from './kubeconfig.js';

export interface LightPoolShape {
  connections: number;
  /** Requests in flight on one connection at most. */
  pipelining: number;
}

/**
 * One request at a time on each connection. Not more by default, since Node's http
 * server pauses a connection whose answers back up (a large answer, a slow reader) and
 * resets it if more pipelined bytes come (HPE_PAUSED): only small answers are pipelined.
 */
export const onePerConnection: LightPoolShape = { connections: 64, pipelining: 1 };

/**
 * The scheduler's bindings: up to 128 in flight (its default maxInFlightBinds) on 16
 * connections. Eight answers of ~300 bytes queued on one connection stay far below the
 * 16 KiB at which Node's server pauses it.
 */
export const pipelinedShape: LightPoolShape = { connections: 16, pipelining: 8 };

/** A pool of `shape` to the config's server; undici is loaded here, on first use (~0.1 s of CPU). */
export async function openLightPool(c: ClientConfig, hostname: string, shape: LightPoolShape): Promise<Pool> {
  const { Pool, buildConnector } = await import('undici');
  const connect = c.socketPath ? buildConnector({ socketPath: c.socketPath }) : buildConnector({
    // One secure context for every connection: the CA, certificate and key parsed once.
    secureContext: tls.createSecureContext({ ca: c.caPem, cert: c.certPem, key: c.keyPem }),
    rejectUnauthorized: !c.insecureSkipTLSVerify, servername: isIP(hostname) ? undefined : hostname,
  });
  const origin = c.socketPath ? 'http://localhost' : new URL(c.server).origin;
  return new Pool(origin, { ...shape, connect: shape.pipelining > 1 ? writesPerTurn(connect) : connect });
}

/** A connector whose sockets hold the writes of one turn and send them together. */
function writesPerTurn(connect: buildConnector.connector): buildConnector.connector {
  return (opts, callback) => connect(opts, (err: Error | null, socket: Socket | null) => {
    if (socket) holdWritesForTurn(socket);
    (callback as (e: Error | null, s: Socket | null) => void)(err, socket);
  });
}

/**
 * Corks the socket at its first write (or cork) of a turn and uncorks it once the turn's
 * callbacks and promises ran (process.nextTick after them), as Node's http client does for
 * one request's head and body: the requests undici writes meanwhile, each with its own
 * cork and uncork, leave in one writev, which a TLS socket encrypts as one record.
 */
function holdWritesForTurn(socket: Socket): void {
  let held = false;
  const release = () => { held = false; socket.uncork(); };
  const hold = () => {
    if (held) return;
    held = true;
    cork.call(socket);
    process.nextTick(release);
  };
  const { write, cork } = socket;
  socket.cork = function (this: Socket) { hold(); cork.call(this); };
  socket.write = function (this: Socket, ...args: Parameters<Socket['write']>) { hold(); return write.apply(this, args); } as Socket['write'];
}
