/**
 * A request for an aggregated group version, proxied to its extension API
 * server (kube-aggregator's proxyHandler): the front server has already
 * authenticated and authorized it; the backend learns who asks from the
 * X-Remote-User / X-Remote-Group / X-Remote-Extra-* headers, which it trusts
 * because the connection carries the front-proxy client certificate.
 * Credentials and impersonation headers of the original request are not
 * forwarded (upstream's authentication and impersonation filters remove
 * them). Bodies and responses stream, so watches flow through as they come.
 */
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo } from '../auth/types.js';

const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host']);

/** SetAuthProxyHeaders: the caller's identity as request headers; extra keys path-escaped. */
export function authProxyHeaders(user: UserInfo): Record<string, string | string[]> {
  const h: Record<string, string | string[]> = { 'X-Remote-User': user.name };
  if (user.groups.length) h['X-Remote-Group'] = [...user.groups];
  for (const [k, vs] of Object.entries(user.extra ?? {})) h[`X-Remote-Extra-${encodeURIComponent(k)}`] = [...vs];
  return h;
}

function forwardedHeaders(req: IncomingMessage, user: UserInfo): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || hopByHop.has(k) || k === 'authorization' || k.startsWith('impersonate-') || k.startsWith('x-remote-')) continue;
    out[k] = v;
  }
  return { ...out, ...authProxyHeaders(user) };
}

export interface ProxyTarget {
  host: string;
  port: number;
  tls: https.RequestOptions;
}

/** Proxies `req` to the target; resolves when the answer has been sent (or the client went away). */
export function proxyRequest(req: IncomingMessage, res: ServerResponse, user: UserInfo, target: ProxyTarget, onError: (err: Error) => void): Promise<void> {
  return new Promise((resolve) => {
    const upstream = https.request({
      host: target.host, port: target.port, method: req.method, path: req.url, headers: forwardedHeaders(req, user), agent: false, ...target.tls,
    }, (back) => {
      const headers: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(back.headers)) if (v !== undefined && !hopByHop.has(k)) headers[k] = v;
      res.writeHead(back.statusCode ?? 502, headers);
      back.pipe(res);
      back.on('end', () => resolve());
      back.on('error', () => { res.destroy(); resolve(); });
    });
    upstream.on('error', (err) => {
      onError(err);
      // Upstream's proxy error responder: 503 with the error text.
      if (!res.headersSent) { res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' }); res.end(`${err.message}\n`); } else res.destroy();
      resolve();
    });
    res.on('close', () => { upstream.destroy(); resolve(); });
    req.pipe(upstream);
  });
}
