/**
 * The kubelet's own API (upstream pkg/kubelet/server), on its TLS port
 * (--port, 10250):
 *
 *  1. Every request, upgrades included, passes the auth filter first
 *     (auth-filter.ts): a client certificate the client CA issued or a bearer
 *     token the API server's TokenReview knows, else 401 "Unauthorized"; then
 *     a SubjectAccessReview for `nodes/<subresource>` of this node
 *     (attributes.ts), else 403 "Forbidden (user=..., ...)". So only the API
 *     server's kubelet client, cluster admins and whoever RBAC grants
 *     nodes/proxy, nodes/log, nodes/stats or nodes/metrics get through.
 *  2. GET /healthz: "ok". GET /pods: the pods bound to this node, a PodList.
 *     GET /containerLogs/{namespace}/{pod}/{container}: a container's log
 *     (containerlogs.ts).
 *  3. Other paths: Go's "404 page not found"; other methods: 405.
 *  4. Upgrades (WebSocket or SPDY/3.1) of /exec/..., /attach/... (exec.ts)
 *     and /portForward/... (portforward.ts), after the same filter;
 *     any other upgrade is refused.
 * The API server reaches it for pods/log, nodes/proxy, pods/exec,
 * pods/attach and pods/portforward. GET /stats/summary and /metrics/resource
 * (stats.ts) serve the node's and its pods' CPU and memory, GET /metrics
 * (metrics.ts) its feature gates.
 */
import { boundHeaderRead, tlsServerDeadlineOptions, upstreamServingDeadlines } from '../../util/serving-deadlines.js';
import { servingHandshakeOptions } from '../../util/tls-serving.js';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../../util/log.js';
import type { KubeletHost } from './host.js';
import { createKubeletAuthenticator } from './authn.js';
import { createWebhookAuthorizer } from './authz.js';
import { authenticateAndAuthorize, type KubeletAuth } from './auth-filter.js';
import type { KubeletReviewer } from './reviews.js';
import { serveContainerLogs } from './containerlogs.js';
import { writeJSON, writeText } from './respond.js';
import { serveStream } from './exec.js';
import { servePortForward } from './portforward.js';
import { isStatsPath, serveStats } from './stats.js';
import { serveMetrics } from './metrics.js';
import { rejectUpgrade } from '../../util/upgrade-response.js';

export interface KubeletServerOptions {
  /** The kubelet it serves; may be set later (setHost), so the port is known before the node registers. */
  host?: KubeletHost;
  /** The node's name: the `nodes/<name>` every request is authorized against. */
  nodeName: string;
  /** PEM bundle of the CAs whose client certificates authenticate callers. */
  clientCAPem: string;
  /** Authentication and authorization (createKubeletAuth); nodes of one process may share one, and so its caches. */
  auth: KubeletAuth;
  certPem: string;
  keyPem: string;
  logger: Logger;
}

export interface KubeletServer {
  listen(port: number, address: string): Promise<AddressInfo>;
  setHost(host: KubeletHost): void;
  close(): Promise<void>;
}

/** Certificates of the client CA and bearer tokens (TokenReview), authorized by SubjectAccessReview; reviews go through `reviewer`. */
export function createKubeletAuth(clientCAPem: string, reviewer: KubeletReviewer): KubeletAuth {
  return { authenticate: createKubeletAuthenticator(clientCAPem, reviewer), authorize: createWebhookAuthorizer(reviewer) };
}

export function createKubeletServer(options: KubeletServerOptions): KubeletServer {
  const opts = { ...options };
  const server = https.createServer({
    cert: opts.certPem, key: opts.keyPem, ca: opts.clientCAPem, requestCert: true, rejectUnauthorized: false,
    ...servingHandshakeOptions(), ALPNProtocols: ['http/1.1'],
    // kube-apiserver's handshake and header deadlines (32 s); upstream's kubelet has only a 4 h ReadTimeout.
    ...tlsServerDeadlineOptions(upstreamServingDeadlines),
  }, (req, res) => {
    serve(opts, req, res).catch((e) => {
      opts.logger.error('kubelet server request failed', { url: req.url, err: (e as Error)?.stack ?? String(e) });
      if (!res.headersSent) writeText(res, 500, 'Internal Server Error'); else res.destroy();
    });
  });
  // Upgraded connections (exec, port-forward sessions) are no longer the HTTP server's: close() ends them itself.
  const upgraded = new Set<Duplex>();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
    socket.on('error', () => socket.destroy());
    serveUpgrade(opts, req, socket, head).catch((e) => {
      opts.logger.error('kubelet upgrade request failed', { url: req.url, err: (e as Error)?.stack ?? String(e) });
      rejectUpgrade(socket, 500, 'Internal Server Error');
    });
  });
  boundHeaderRead(server, upstreamServingDeadlines);
  server.on('tlsClientError', (err) => opts.logger.debug('kubelet TLS handshake failed', { err: err.message }));
  return {
    listen: (port, address) => new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, address, () => { server.off('error', reject); resolve(server.address() as AddressInfo); });
    }),
    setHost: (host) => { opts.host = host; },
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
      for (const socket of upgraded) socket.destroy();
    }),
  };
}

async function serveUpgrade(opts: KubeletServerOptions, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
  const url = requestURL(req);
  if (!url) return rejectUpgrade(socket, 400, '400 Bad Request');
  const auth = await authenticateAndAuthorize(opts.auth, opts.nodeName, req, url.pathname, opts.logger);
  if (!auth.ok) return rejectUpgrade(socket, auth.code, auth.body);
  const segs = url.pathname.split('/').filter(Boolean);
  const route = segs[0];
  if (route !== 'exec' && route !== 'attach' && route !== 'portForward') return rejectUpgrade(socket, 404, '404 page not found\n');
  if (!['GET', 'POST'].includes(req.method ?? '')) return rejectUpgrade(socket, 405, '405: Method Not Allowed');
  const host = opts.host;
  if (!host) return rejectUpgrade(socket, 503, 'the kubelet is starting');
  const call = { host, logger: opts.logger, req, socket, head, url };
  return route === 'portForward' ? servePortForward(call, segs.slice(1)) : serveStream(call, route, segs.slice(1));
}

/** The request's URL as routed and authorized; undefined when it does not parse. */
function requestURL(req: IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? '/', 'https://kubelet');
  } catch {
    return undefined;
  }
}

async function serve(opts: KubeletServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = requestURL(req);
  if (!url) { req.resume(); return writeText(res, 400, '400 Bad Request'); }
  const auth = await authenticateAndAuthorize(opts.auth, opts.nodeName, req, url.pathname, opts.logger);
  if (!auth.ok) { req.resume(); return writeText(res, auth.code, auth.body); }
  const segs = url.pathname.split('/').filter(Boolean);
  const route = isStatsPath(segs) ? 'stats' : segs[0] ?? '';
  if (!['healthz', 'metrics', 'pods', 'containerLogs', 'stats'].includes(route) || (route !== 'containerLogs' && route !== 'stats' && segs.length > 1)) {
    return writeText(res, 404, '404 page not found\n');
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') { req.resume(); return writeText(res, 405, '405: Method Not Allowed'); }
  if (route === 'healthz') return writeText(res, 200, 'ok');
  if (route === 'metrics') return serveMetrics(res);
  const host = opts.host;
  if (!host) return writeText(res, 503, 'the kubelet is starting');
  switch (route) {
    case 'pods': return writeJSON(res, 200, { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: host.pods() });
    case 'containerLogs': return serveContainerLogs(host, opts.logger, req, res, url, segs.slice(1));
    case 'stats': return void serveStats(host, res, segs).catch((e) => {
      opts.logger.error('kubelet stats failed', { err: (e as Error)?.stack ?? String(e) });
      if (!res.headersSent) writeText(res, 500, 'Internal Server Error'); else res.destroy();
    });
  }
}
