/**
 * One request through pods/proxy or services/proxy to the address the
 * location resolver chose (upstream's UpgradeAwareHandler with the wrapped
 * proxy transport, apimachinery util/proxy upgradeaware.go and transport.go):
 *
 *  1. A GET or HEAD of the bare `.../proxy` (no path at all) is answered
 *     301 to `.../proxy/` with the query, so relative links resolve below the
 *     proxy (upstream's proxyRedirectsforRootPath, issue 4958).
 *  2. The request goes to `scheme://host:port/{path}?{query}` with its
 *     method, headers and body streamed; hop-by-hop headers (RFC 7230 §6.1,
 *     and those the Connection header names) and the caller's credentials
 *     (Authorization, Impersonate-*: the authentication and impersonation
 *     filters remove them upstream) stay behind; Host is the caller's, as
 *     upstream sends it. X-Forwarded-For gets the
 *     caller's address, X-Forwarded-Uri the path on the API server.
 *  3. https targets are not verified (upstream's proxy transport sets
 *     InsecureSkipVerify: pods serve what certificates they like).
 *  4. The answer comes back as it is, streamed: status, headers (hop-by-hop
 *     and CORS headers dropped, as corsRemovingTransport does) and body; a
 *     redirect's Location on the target's own host is rewritten to go
 *     through the proxy again (Transport.rewriteURL).
 *  5. A target that cannot be reached: 503 `error trying to reach service:
 *     dial tcp IP:PORT: connect: connection refused` (Go's words); a dial
 *     that hangs gives up after 30 s (upstream's dialer timeout).
 *  6. Connections to pods are kept alive and reused (createProxyAgents).
 *  7. An HTML page's links are rewritten to lead through the proxy
 *     (html-rewrite.ts); every other body streams through unchanged.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { serviceUnavailable } from '../../api/status.js';
import { answerRewrittenHTML, isRewritableHTML } from './html-rewrite.js';

export interface ProxyTarget {
  scheme: 'http' | 'https';
  /** An IP address, IPv6 without brackets. */
  host: string;
  /** Empty: the scheme's default port. */
  port: number | undefined;
  /**
   * How to reach the address when the API server cannot dial it itself (a
   * pod on a simulated node: through its kubelet's port-forward,
   * simulated.ts); HTTP is spoken over the connection it gives.
   */
  dial?: () => Promise<Duplex>;
}

export interface ProxyForward {
  req: IncomingMessage;
  res: ServerResponse;
  target: ProxyTarget;
  /** The path below `.../proxy` ('' when the request stopped at `proxy`), still %-encoded. */
  path: string;
  /** `?query` or ''. */
  search: string;
  /** The API server path the target's root stands for: `/api/v1/namespaces/ns/pods/x:80/proxy`. */
  prefix: string;
}

const dialTimeoutMs = 30_000;

/** host:port as Go's net.JoinHostPort writes it (the host alone without a port). */
export const joinHostPort = (host: string, port: number | undefined) =>
  port === undefined ? host : `${host.includes(':') ? `[${host}]` : host}:${port}`;

const hopByHop = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'transfer-encoding', 'te', 'trailer', 'upgrade'];
// Host stays: upstream's proxy sends the caller's Host on (UseLocationHost is off for pods and services).
const requestDropped = new Set([...hopByHop, 'authorization']);
const responseDropped = new Set([...hopByHop, 'access-control-allow-credentials', 'access-control-allow-headers', 'access-control-allow-methods', 'access-control-allow-origin']);

/** Headers minus `dropped`, minus those the Connection header names, minus impersonation. */
export function proxiedHeaders(h: IncomingHttpHeaders, dropped: Set<string>): OutgoingHttpHeaders {
  const named = new Set(String(h.connection ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean));
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined || dropped.has(k) || named.has(k) || k.startsWith('impersonate-')) continue;
    out[k] = v;
  }
  return out;
}

/** Transport.rewriteURL: a Location on the target (or relative to its root) goes through the proxy again. */
export function rewriteLocation(location: string, target: ProxyTarget, prefix: string, requestHost?: string): string {
  let url: URL;
  try { url = new URL(location, 'http://relative.invalid'); } catch { return location; }
  const absolute = /^[a-z][a-z0-9+.-]*:/i.test(location) || location.startsWith('//');
  const targetHost = target.port === undefined && target.host.includes(':') ? `[${target.host}]` : joinHostPort(target.host, target.port);
  if (absolute && url.host !== targetHost && url.host !== requestHost) return location;
  if (!absolute && !location.startsWith('/')) return location;
  const rest = `${url.search}${url.hash}`;
  if (url.pathname.startsWith(prefix)) return `${url.pathname}${rest}`;
  return `${prefix}${url.pathname === '/' ? '/' : url.pathname}${rest}`;
}

/** Go's net.OpError text for a failed dial. */
export function dialError(host: string, port: number, err: NodeJS.ErrnoException): string {
  const dial = `dial tcp ${host}:${port}`;
  switch (err.code) {
    case 'ECONNREFUSED': return `${dial}: connect: connection refused`;
    case 'EHOSTUNREACH': return `${dial}: connect: no route to host`;
    case 'ENETUNREACH': return `${dial}: connect: network is unreachable`;
    case 'ETIMEDOUT': return `${dial}: i/o timeout`;
    case 'ECONNRESET': return `read tcp ${host}:${port}: read: connection reset by peer`;
    default: return `${dial}: ${err.message}`;
  }
}

const defaultPort = (t: ProxyTarget) => t.port ?? (t.scheme === 'https' ? 443 : 80);

/**
 * Kept-alive connections to pods, as upstream's proxy transport pools them;
 * closed with the server. Few idle sockets a pod: a pod that goes away takes
 * its idle sockets with it.
 */
export interface ProxyAgents { http: http.Agent; https: https.Agent; close(): void }

export function createProxyAgents(): ProxyAgents {
  const opts = { keepAlive: true, maxFreeSockets: 4 };
  const a = { http: new http.Agent(opts), https: new https.Agent({ ...opts, rejectUnauthorized: false, checkServerIdentity: () => undefined }) };
  return { ...a, close: () => { a.http.destroy(); a.https.destroy(); } };
}

export function forwardRequest(f: ProxyForward, agents?: ProxyAgents): Promise<void> {
  const { req, res } = f;
  if (f.path === '' && (req.method === 'GET' || req.method === 'HEAD')) {
    req.resume();
    res.writeHead(301, { Location: `${f.prefix}/${f.search}` });
    res.end();
    return Promise.resolve();
  }
  const headers = proxiedHeaders(req.headers, requestDropped);
  const from = req.socket.remoteAddress;
  if (from) headers['x-forwarded-for'] = headers['x-forwarded-for'] ? `${String(headers['x-forwarded-for'])}, ${from}` : from;
  headers['x-forwarded-uri'] = `${f.prefix}${f.path || '/'}`;
  return send(f, headers, agents);
}

const idempotent = new Set(['GET', 'HEAD', 'OPTIONS']);
const hasBody = (req: IncomingMessage) => req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * One attempt; a kept-alive socket the pod closed while it was idle fails
 * before any answer: a request without a body and idempotent is sent again
 * on a new connection, as Go's transport retries it.
 */
function send(f: ProxyForward, headers: OutgoingHttpHeaders, agents: ProxyAgents | undefined): Promise<void> {
  const { req, res, target } = f;
  const port = defaultPort(target);
  const secure = target.scheme === 'https';
  return new Promise((resolve, reject) => {
    const dial = target.dial;
    const out = dial
      // A connection of its own a request (no agent): HTTP over what dial() gives.
      ? http.request({
        host: target.host, port, method: req.method, path: `${f.path || '/'}${f.search}`, headers,
        createConnection: (_o, cb) => { dial().then((s) => cb(null, s as never), (e: Error) => cb(e, undefined as never)); return undefined as never; },
      })
      : (secure ? https : http).request({
        host: target.host, port, method: req.method, path: `${f.path || '/'}${f.search}`, headers,
        agent: agents ? (secure ? agents.https : agents.http) : false,
        ...(secure ? { rejectUnauthorized: false, checkServerIdentity: () => undefined } : {}),
      });
    const dialTimer = setTimeout(() => out.destroy(Object.assign(new Error('i/o timeout'), { code: 'ETIMEDOUT' })), dialTimeoutMs);
    out.once('socket', (s) => { if (s.connecting) s.once('connect', () => clearTimeout(dialTimer)); else clearTimeout(dialTimer); });
    const abandon = () => { if (!res.writableFinished) out.destroy(); };
    res.once('close', abandon);
    out.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(dialTimer);
      if (res.headersSent) { res.destroy(); resolve(); return; }
      if (out.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE') && idempotent.has(req.method ?? '') && !hasBody(req)) {
        res.off('close', abandon);
        send(f, headers, undefined).then(resolve, reject);
        return;
      }
      req.resume();
      reject(serviceUnavailable(`error trying to reach service: ${dialError(target.host, port, err)}`));
    });
    out.on('response', (upstream) => {
      clearTimeout(dialTimer);
      const back = proxiedHeaders(upstream.headers, responseDropped);
      const status = upstream.statusCode ?? 502;
      const relink = (u: string) => rewriteLocation(u, target, f.prefix, req.headers.host);
      if (typeof upstream.headers.location === 'string') back.location = relink(upstream.headers.location);
      if (isRewritableHTML(req.method, status, upstream.headers)) {
        answerRewrittenHTML(upstream, res, status, back, relink).then(resolve, () => { res.destroy(); resolve(); });
        return;
      }
      res.writeHead(status, back);
      upstream.on('error', () => res.destroy());
      upstream.pipe(res);
      upstream.once('end', () => resolve());
      res.once('close', () => resolve());
    });
    if (req.readableEnded) out.end(); else req.pipe(out);
  });
}
