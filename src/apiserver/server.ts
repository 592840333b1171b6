/**
 * The HTTPS API server: authentication, non-resource endpoints (health,
 * version, metrics, discovery, openapi) and dispatch of resource requests to
 * the registry's stores.
 */
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { findResource } from '../api/resources.js';
import { methodNotAllowed, pageNotFound, unauthorized, notAcceptable } from '../api/status.js';
import type { Registry } from '../registry/registry.js';
import type { Logger } from '../util/log.js';
import type { UserInfo } from './auth/index.js';
import { parseRequestInfo, RequestInfo } from './request-info.js';
import { negotiate } from './negotiate.js';
import { writeJSON, writeStatus, toStatus } from './respond.js';
import { aggregatedContentType, aggregatedDiscovery, apiGroupDoc, apiGroupList, apiResourceList, apiVersions } from './discovery.js';
import { openapiV3Document, openapiV3Index } from './openapi/index.js';
import { reportedVerb, type ApiMetrics } from './metrics.js';
import type { HandlerContext } from './handlers/context.js';
import { handleCreate, handleDelete, handleDeleteCollection, handleGet, handleList, handlePatch, handleUpdate } from './handlers/crud.js';
import { handleWatch } from './handlers/watch.js';
import { handleApproval, handleBinding, handleEviction, handleFinalize, handleScale } from './handlers/subresources.js';
import { versionInfo } from './version.js';
import { answerClientError } from './client-error.js';

export interface ApiServerOptions {
  registry: Registry;
  tls: https.ServerOptions;
  authenticate: (req: IncomingMessage) => Promise<UserInfo | undefined>;
  metrics: ApiMetrics;
  logger: Logger;
  /** Reports readiness for /readyz (storage open, bootstrap objects written). */
  ready: () => boolean;
}

export interface ApiServer {
  listen(port: number, host: string): Promise<AddressInfo>;
  close(): Promise<void>;
}

const anonymousPaths = new Set(['/healthz', '/livez', '/readyz', '/version', '/healthz/', '/livez/', '/readyz/']);

export function createApiServer(opts: ApiServerOptions): ApiServer {
  const server = https.createServer(opts.tls, (req, res) => { void serve(opts, req, res); });
  server.on('clientError', answerClientError);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  // Watches are long-lived; upstream closes them itself, never on an idle timer.
  server.requestTimeout = 0;
  server.timeout = 0;
  return {
    listen: (port, host) => new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve(server.address() as AddressInfo));
    }),
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

async function serve(opts: ApiServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = process.hrtime.bigint();
  const url = new URL(req.url ?? '/', 'https://localhost');
  const info = parseRequestInfo(req.method ?? 'GET', url);
  res.on('finish', () => {
    const labels = { verb: reportedVerb(req, info), resource: info.resource ?? '', subresource: info.subresource ?? '' };
    opts.metrics.requests.inc({ ...labels, code: String(res.statusCode) });
    // A watch lasts as long as the client wants: its duration is not a latency.
    if (info.verb !== 'watch') opts.metrics.latency.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
  });
  try {
    if (!anonymousPaths.has(url.pathname)) {
      const user = await opts.authenticate(req);
      if (!user) { req.resume(); return writeStatus(res, unauthorized().status); }
    }
    if (!info.isResourceRequest) return await serveNonResource(opts, req, res, url, info);
    await serveResource(opts, req, res, url, info);
  } catch (err) {
    const status = toStatus(err);
    if (status.code >= 500) opts.logger.error('request failed', { method: req.method, path: url.pathname, err: (err as Error)?.stack ?? String(err) });
    if (res.headersSent) { res.end(); return; }
    writeStatus(res, status);
  }
}

async function serveNonResource(opts: ApiServerOptions, req: IncomingMessage, res: ServerResponse, url: URL, info: RequestInfo): Promise<void> {
  const p = url.pathname.replace(/\/$/, '') || '/';
  if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed();
  switch (p) {
    case '/healthz': case '/livez': return text(res, 200, 'ok');
    case '/readyz': return opts.ready() ? text(res, 200, 'ok') : text(res, 500, '[-]storage not ready\nreadyz check failed');
    case '/version': return writeJSON(res, 200, versionInfo());
    case '/metrics': return text(res, 200, await opts.metrics.registry.metrics(), opts.metrics.registry.contentType);
    case '/openapi/v3': return writeJSON(res, 200, openapiV3Index());
    case '/api': return discovery(res, req, () => aggregatedDiscovery(true), () => apiVersions(hostOf(req)));
    case '/apis': return discovery(res, req, () => aggregatedDiscovery(false), () => apiGroupList());
  }
  if (p.startsWith('/openapi/v3/')) {
    const doc = openapiV3Document(p.slice('/openapi/v3/'.length));
    if (!doc) throw pageNotFound();
    res.setHeader('Etag', `"${doc.hash}"`);
    return text(res, 200, doc.body, 'application/json');
  }
  if (info.apiPrefix === 'api' && info.version && !info.parts.length) {
    const list = apiResourceList('', info.version);
    if (list) return writeJSON(res, 200, list);
  }
  if (info.apiPrefix === 'apis' && info.group && !info.version) {
    const g = apiGroupDoc(info.group);
    if (g) return writeJSON(res, 200, g);
  }
  if (info.apiPrefix === 'apis' && info.version && !info.parts.length) {
    const list = apiResourceList(info.group, info.version);
    if (list) return writeJSON(res, 200, list);
  }
  throw pageNotFound();
}

function discovery(res: ServerResponse, req: IncomingMessage, aggregated: () => unknown, legacy: () => unknown): void {
  const r = negotiate(req.headers.accept);
  if (r === 'aggregated-discovery') return writeJSON(res, 200, aggregated(), aggregatedContentType);
  if (r === 'table' || r === 'partial') throw notAcceptable('only application/json is supported here');
  writeJSON(res, 200, legacy());
}

const hostOf = (req: IncomingMessage) => String(req.headers.host ?? 'localhost:6443');

function text(res: ServerResponse, code: number, body: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(code, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

async function serveResource(opts: ApiServerOptions, req: IncomingMessage, res: ServerResponse, url: URL, info: RequestInfo): Promise<void> {
  const resource = info.resource!;
  // POST /namespaces/ns/bindings is the same as POST pods/x/binding.
  if (resource === 'bindings' && info.group === '' && info.verb === 'create' && info.namespace) {
    const store = opts.registry.store('', 'v1', 'pods')!;
    const ctx = context(opts, req, res, url, info, store);
    const body = await peekBindingName(req);
    return handleBinding({ ...ctx, req: body.req }, body.name);
  }
  const rinfo = findResource(info.group, info.version, resource);
  const store = rinfo && opts.registry.store(info.group, info.version, resource);
  if (!rinfo || !store) { req.resume(); throw pageNotFound(); }
  if ((info.namespace !== undefined && !rinfo.namespaced) || (rinfo.namespaced && !info.namespace && !['list', 'watch'].includes(info.verb))) {
    req.resume();
    throw pageNotFound();
  }
  const ctx = context(opts, req, res, url, info, store);
  const sub = info.subresource;
  if (sub) {
    if (!rinfo.subresources.some((s) => s.name === sub)) { req.resume(); throw pageNotFound(); }
    switch (sub) {
      case 'scale': return handleScale(ctx);
      case 'binding': return handleBinding(ctx, info.name!);
      case 'eviction': return handleEviction(ctx);
      case 'approval': return handleApproval(ctx);
      case 'finalize': return handleFinalize(ctx);
    }
  }
  if (!allowed(rinfo.verbs, info.verb, sub)) { req.resume(); throw methodNotAllowed(); }
  switch (info.verb) {
    case 'get': return handleGet(ctx);
    case 'list': return handleList(ctx);
    case 'watch': return handleWatch(ctx);
    case 'create': return info.name ? (req.resume(), notAllowed()) : handleCreate(ctx);
    case 'update': return handleUpdate(ctx);
    case 'patch': return handlePatch(ctx);
    case 'delete': return handleDelete(ctx);
    case 'deletecollection': return handleDeleteCollection(ctx);
    default: req.resume(); throw methodNotAllowed();
  }
}

function notAllowed(): never { throw methodNotAllowed(); }

function allowed(verbs: string[], verb: string, sub?: string): boolean {
  if (sub === 'status') return ['get', 'update', 'patch'].includes(verb);
  return verbs.includes(verb);
}

function context(opts: ApiServerOptions, req: IncomingMessage, res: ServerResponse, url: URL, info: RequestInfo, store: HandlerContext['store']): HandlerContext {
  return {
    req, res, url, info, store, registry: opts.registry, rendering: negotiate(req.headers.accept), now: new Date(),
    logger: opts.logger, watchGauge: { inc: () => opts.metrics.watchers.inc(), dec: () => opts.metrics.watchers.dec() },
  };
}

/** Reads a Binding body to learn the pod name, then hands the body on as a fresh stream. */
async function peekBindingName(req: IncomingMessage): Promise<{ name: string; req: IncomingMessage }> {
  const { Readable } = await import('node:stream');
  const { readBody, decodeBody, mediaType } = await import('./body.js');
  const buf = await readBody(req);
  const obj = decodeBody(buf, mediaType(req));
  const replay = Readable.from([buf]) as unknown as IncomingMessage;
  replay.headers = req.headers;
  return { name: obj?.metadata?.name ?? '', req: replay };
}
