/**
 * `k8ts dashboard`'s server: plain HTTP on loopback, as `kubectl proxy`.
 * Every request first passes request-filter.ts (Host, then cross-site); then
 *  - `/dashboard/config` tells the page that credentials are supplied here
 *    (so it shows no login) and the context's namespace;
 *  - `/dashboard/api/placement/...` is answered here (read-placement.ts with
 *    the kubeconfig's credentials), so it works against any API server;
 *  - `/dashboard/api/exec-check/...` (why an exec WebSocket was refused) is
 *    answered here too, with the kubeconfig's credentials;
 *  - the rest of `/dashboard/` is the page's static files (handler.ts);
 *  - everything else (the Kubernetes API, watches, exec) is forwarded.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { Counter, Registry } from 'prom-client';
import { Clientset, ApiError, type ClientConfig } from '../../client/index.js';
import type { Logger } from '../../util/log.js';
import { dashboardHandler, dashboardPrefix } from '../handler.js';
import { readPlacement } from '../read-placement.js';
import { checkExec, execCheckPath } from '../exec-check.js';
import { acceptHostPatterns, refuseRequest } from './request-filter.js';
import { createForwarder } from './forward.js';

export interface DashboardProxyOptions {
  /** The kubeconfig's cluster and user (client certificate or token). */
  config: ClientConfig;
  /** The kubeconfig context's name and namespace, shown to the page. */
  context?: string;
  namespace?: string;
  address: string;
  port: number;
  /** Regular expressions a request's Host (without port) must match (kubectl proxy's --accept-hosts). */
  acceptHosts: string[];
  webRoot: string;
  logger: Logger;
  registry?: Registry;
}

export interface DashboardProxy { url: string; port: number; close(): Promise<void> }

const placementPath = /^\/dashboard\/api\/placement\/namespaces\/([^/]+)\/pods\/([^/]+)$/;

export async function startDashboardProxy(opts: DashboardProxyOptions): Promise<DashboardProxy> {
  const { logger } = opts;
  const accept = acceptHostPatterns(opts.acceptHosts);
  const metrics = proxyMetrics(opts.registry ?? new Registry());
  const clients = new Clientset(opts.config, { userAgent: 'k8ts-dashboard' });
  const forwarder = createForwarder(opts.config, (err, req) => logger.warn('API server unreachable', { method: req.method, path: req.url, err }));
  // The static files only: this handler's API calls would carry a bearer token, the proxy's carry the kubeconfig's user.
  const page = dashboardHandler({ apiServer: () => ({ server: opts.config.server, caPem: opts.config.caPem }), webRoot: opts.webRoot });
  const refused = (req: IncomingMessage): boolean => {
    const r = refuseRequest(req.method ?? 'GET', req.headers, accept);
    if (!r.refused) return false;
    metrics.refused.inc({ reason: r.reason });
    logger.warn('request refused', { reason: r.reason, value: r.detail, method: req.method, path: req.url });
    return true;
  };
  const server = http.createServer((req, res) => {
    if (refused(req)) { forbidden(res); return; }
    metrics.requests.inc({ route: route(req) });
    serve(req, res).catch((err) => {
      logger.error('request failed', { method: req.method, path: req.url, err });
      if (!res.headersSent) writeJSON(res, 500, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: String(err), code: 500 });
      else res.destroy();
    });
  });
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    if (url.pathname === '/dashboard/config') {
      req.resume();
      return writeJSON(res, 200, { kind: 'DashboardConfig', credentials: 'kubeconfig', context: opts.context, namespace: opts.namespace });
    }
    const m = placementPath.exec(url.pathname);
    if (m && (req.method === 'GET' || req.method === 'HEAD')) return servePlacement(clients, res, decodeURIComponent(m[1]), decodeURIComponent(m[2]));
    const x = execCheckPath.exec(url.pathname);
    if (x && req.method === 'GET') {
      req.resume();
      const c = opts.config;
      const status = await checkExec(c.server, { namespace: decodeURIComponent(x[1]), name: decodeURIComponent(x[2]), container: url.searchParams.get('container') ?? undefined },
        { headers: c.token ? { Authorization: `Bearer ${c.token}` } : {}, tls: { ca: c.caPem, cert: c.certPem, key: c.keyPem, rejectUnauthorized: !c.insecureSkipTLSVerify } });
      return writeJSON(res, status.code, status);
    }
    if ((url.pathname === '/dashboard' || url.pathname.startsWith(dashboardPrefix)) && !url.pathname.startsWith(`${dashboardPrefix}api/`)) return page.serve(req, res, url);
    forwarder.forward(req, res);
  };
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (refused(req)) { socket.end('HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 10\r\nConnection: close\r\n\r\nForbidden\n'); return; }
    metrics.requests.inc({ route: 'upgrade' });
    void forwarder.forwardUpgrade(req, socket, head);
  });
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(opts.port, opts.address, () => resolve()); });
  page.warm();
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const host = opts.address.includes(':') ? `[${opts.address}]` : opts.address;
  return {
    url: `http://${host}:${port}${dashboardPrefix}`, port,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      // Open watches would hold close() for ever: end them (the page lists and watches again when it can).
      server.closeAllConnections();
      forwarder.close();
      clients.close();
    }),
  };
}

/** As kubectl proxy's filter answers a request it rejects. */
function forbidden(res: ServerResponse): void {
  res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end('Forbidden\n');
}

async function servePlacement(clients: Clientset, res: ServerResponse, namespace: string, name: string): Promise<void> {
  try {
    writeJSON(res, 200, await readPlacement(clients, namespace, name));
  } catch (err) {
    // The API's own answer (403, 404 ...) goes back as it came.
    if (err instanceof ApiError && err.status?.kind === 'Status') return writeJSON(res, err.status.code ?? err.code, err.status);
    throw err;
  }
}

function writeJSON(res: ServerResponse, code: number, obj: unknown): void {
  const body = JSON.stringify(obj);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
  res.end(body);
}

function route(req: IncomingMessage): string {
  const path = req.url ?? '/';
  return path.startsWith('/dashboard') ? 'dashboard' : 'api';
}

function proxyMetrics(registry: Registry) {
  return {
    requests: new Counter({ name: 'k8ts_dashboard_proxy_requests_total', help: 'Requests accepted, by route (dashboard: served here; api: forwarded; upgrade)', labelNames: ['route'], registers: [registry] }),
    refused: new Counter({ name: 'k8ts_dashboard_proxy_refused_total', help: 'Requests refused, by rule (host, origin, fetch-site)', labelNames: ['reason'], registers: [registry] }),
  };
}
