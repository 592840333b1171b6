/**
 * An https.Agent whose connection-pool name is computed once per target, and whose idle
 * connections close before the server's (keepSocketAlive below).
 *
 * Node's https.Agent names its pools by every TLS option of a request
 * (getName: host, port, then the CA, client certificate and key PEMs, ...),
 * and merges the agent's own options into each request's, so every request
 * builds that multi-kilobyte string again, in addRequest and again when its
 * socket is freed, and hashes it to find the pool. A scheduler binding
 * thousands of pods a second spent a few percent of its CPU there. The name
 * is the same for the same target and options: it is built once and the
 * same string returned after (its hash cached by V8), so pools are exactly
 * the ones Node would pick.
 */
import https from 'node:https';
import http, { type ClientRequest, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/** A pooled socket as Node's agent sees it: the request it carried last, with its response. */
type IdleSocket = Duplex & { setTimeout(ms: number): unknown; _httpMessage?: { res?: IncomingMessage } };

/** How much sooner than the server says an idle connection is closed (Node's own margin). */
const keepAliveMarginMs = 1000;

export class PooledAgent extends https.Agent {
  private readonly names = new Map<string, string>();
  /** The last target's name: a client sends nearly every request to one server. */
  private last?: { host: unknown; port: unknown; localAddress: unknown; family: unknown; servername: unknown; socketPath: unknown; name: string };

  /**
   * A connection going idle in the pool is closed a second before the server would close it, by the
   * server's `Keep-Alive: timeout=N` (the API server's 65 s). Node's agent reads that hint only to
   * shorten a timeout of its own, and this agent has none (sockets of watches must not time out),
   * so an idle connection stayed in the pool for ever; one the server had closed could be handed
   * to the next request just as the close arrived, which then failed with ECONNRESET or "socket
   * hang up" (the scale run, bench/RESULTS.md `meminf-2026-12-06`). Only idle sockets get the timer:
   * the agent destroys a free socket that times out, and a request clears it when it takes one.
   */
  override keepSocketAlive(socket: Duplex): boolean {
    // Typed void by @types/node; Node's answers whether the socket may be kept (http.Agent docs).
    const kept: unknown = super.keepSocketAlive(socket);
    return kept !== false && closeBeforeServer(socket, this.options.timeout);
  }

  /** A request taking an idle socket: its idle timer goes (a watch may be quiet for minutes). */
  override reuseSocket(socket: Duplex, request: ClientRequest): void {
    super.reuseSocket(socket, request);
    if (!this.options.timeout) (socket as IdleSocket).setTimeout(0);
  }

  override getName(options: https.RequestOptions = {}): string {
    // What differs between requests of one client: the target. The TLS options come from the agent.
    const o = options as https.RequestOptions & { servername?: string };
    const l = this.last;
    if (l && l.host === o.host && l.port === o.port && l.localAddress === o.localAddress && l.family === o.family
      && l.servername === o.servername && l.socketPath === o.socketPath) return l.name;
    const key = `${o.host}:${o.port}:${o.localAddress ?? ''}:${o.family ?? ''}:${o.servername ?? ''}:${o.socketPath ?? ''}`;
    let name = this.names.get(key);
    if (name === undefined) {
      name = super.getName(options);
      // A client talks to a handful of servers; a name per target stays small.
      if (this.names.size < 64) this.names.set(key, name);
    }
    this.last = { host: o.host, port: o.port, localAddress: o.localAddress, family: o.family, servername: o.servername, socketPath: o.socketPath, name };
    return name;
  }
}

/** Arms an idle socket's timer to close it keepAliveMarginMs before the server's Keep-Alive timeout says it would. */
function closeBeforeServer(socket: Duplex, agentTimeout: number | undefined): true {
  const s = socket as IdleSocket;
  const hint = s._httpMessage?.res?.headers['keep-alive'];
  const seconds = typeof hint === 'string' ? Number(/^timeout=(\d+)/.exec(hint)?.[1]) : NaN;
  if (seconds > 0 && !agentTimeout) s.setTimeout(Math.max(1, seconds * 1000 - keepAliveMarginMs));
  return true;
}

/**
 * PooledAgent's idle-connection rules for plain HTTP on a Unix socket (the API server's loopback
 * socket, cli/loopback-clients.ts): no TLS options, so Node's pool name is short and not cached.
 */
export class LoopbackAgent extends http.Agent {
  // Made without a timeout option (rest.ts), as PooledAgent's are.
  override keepSocketAlive(socket: Duplex): boolean {
    const kept: unknown = super.keepSocketAlive(socket);
    return kept !== false && closeBeforeServer(socket, undefined);
  }

  override reuseSocket(socket: Duplex, request: ClientRequest): void {
    super.reuseSocket(socket, request);
    (socket as IdleSocket).setTimeout(0);
  }
}
