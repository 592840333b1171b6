/**
 * The dashboard's part of the API server's port (wired by cli as a
 * non-API handler): `/dashboard/` serves the page's static files, and
 * `/dashboard/api/placement/namespaces/NS/pods/NAME` answers every filter's
 * verdict on every node for that pod (placement.ts);
 * `/dashboard/api/exec-check/...` says why an exec WebSocket was refused
 * (exec-check.ts). The handler has no
 * credentials of its own: it calls the API with the caller's bearer token,
 * so what a user sees here is exactly what RBAC lets them read.
 */
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Clientset, ApiError } from '../client/index.js';
import { methodNotAllowed, pageNotFound, type Status } from '../api/status.js';
import { loadStaticFiles, type StaticFile } from './static-files.js';
import { readPlacement } from './read-placement.js';
import { checkExec, execCheckPath, type ExecCheckTarget } from './exec-check.js';
import { acceptsGzip, gzipBody, gzipMinBytes } from '../util/http-gzip.js';

export const dashboardPrefix = '/dashboard/';

export interface DashboardOptions {
  /** The API server as the dashboard's server side reaches it (its own URL and CA). */
  apiServer: () => { server: string; caPem?: string };
  /** The built page (dist/web). */
  webRoot: string;
}

const placementPath = /^\/dashboard\/api\/placement\/namespaces\/([^/]+)\/pods\/([^/]+)$/;

export function dashboardHandler(opts: DashboardOptions) {
  // Read (and gzipped) at the first page request or at warm(), whichever comes first: not on the start path.
  let files: Promise<Map<string, StaticFile>> | undefined;
  const loaded = () => files ??= loadStaticFiles(opts.webRoot);
  // One pool of keep-alive connections to the API for every caller's requests (the token is per request).
  let agent: https.Agent | undefined;
  const shared = () => agent ??= new https.Agent({ keepAlive: true, maxSockets: 16, ca: opts.apiServer().caPem });
  return {
    prefix: dashboardPrefix,
    /** Starts reading the page's files (the API server calls it once it is ready). */
    warm(): void { loaded().catch(() => { files = undefined; }); },
    async serve(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
      req.resume();
      if (req.method !== 'GET' && req.method !== 'HEAD') return writeStatus(res, methodNotAllowed().status);
      if (url.pathname === '/dashboard') { res.writeHead(301, { Location: dashboardPrefix }); res.end(); return; }
      const m = placementPath.exec(url.pathname);
      if (m) return servePlacement(opts, shared(), req, res, decodeURIComponent(m[1]), decodeURIComponent(m[2]));
      const x = execCheckPath.exec(url.pathname);
      if (x) return serveExecCheck(opts, req, res, { namespace: decodeURIComponent(x[1]), name: decodeURIComponent(x[2]), container: url.searchParams.get('container') ?? undefined });
      if (url.pathname.startsWith(`${dashboardPrefix}api/`)) return writeStatus(res, pageNotFound().status);
      // Anything else is the single page (its own routes live in the URL's hash).
      const name = url.pathname.slice(dashboardPrefix.length) || 'index.html';
      const page = await loaded();
      const file = page.get(name) ?? (name.includes('.') ? undefined : page.get('index.html'));
      if (!file) return writeStatus(res, pageNotFound().status);
      sendFile(req, res, file);
    },
  };
}

function sendFile(req: IncomingMessage, res: ServerResponse, file: StaticFile): void {
  const headers: Record<string, string | number> = {
    'Content-Type': file.type, ETag: file.etag, 'Cache-Control': 'no-cache', Vary: 'Accept-Encoding',
    // The page runs only its own bundled script and talks only to this origin (its exec WebSocket included). Styles may be
    // inline: xterm.js writes its cell sizes and colours into <style> elements it creates; a style runs no script.
    'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
    'X-Content-Type-Options': 'nosniff',
  };
  if (req.headers['if-none-match'] === file.etag) { res.writeHead(304, headers); res.end(); return; }
  const gzip = acceptsGzip(req.headers['accept-encoding']);
  const body = gzip ? file.gzip : file.body;
  if (gzip) headers['Content-Encoding'] = 'gzip';
  headers['Content-Length'] = body.length;
  res.writeHead(200, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
}

async function servePlacement(opts: DashboardOptions, agent: https.Agent, req: IncomingMessage, res: ServerResponse, namespace: string, name: string): Promise<void> {
  const auth = /^Bearer\s+(\S+)$/i.exec(String(req.headers.authorization ?? ''));
  const clients = new Clientset({ ...opts.apiServer(), token: auth?.[1] }, { userAgent: 'k8ts-dashboard', agent });
  try {
    const placement = await readPlacement(clients, namespace, name);
    const text = JSON.stringify(placement);
    // Every node's verdicts: at 5,000 nodes hundreds of KiB of repeated filter names, gzip's best case.
    const gzip = acceptsGzip(req.headers['accept-encoding']) && text.length >= gzipMinBytes;
    const body = gzip ? await gzipBody(text) : text;
    res.writeHead(200, {
      'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store',
      ...(gzip ? { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' } : {}),
    });
    res.end(body);
  } catch (err) {
    // The API's own answer (401, 403, 404 ...) goes back as it came.
    if (err instanceof ApiError && err.status?.kind === 'Status') return writeStatus(res, err.status as Status);
    throw err;
  } finally {
    clients.close();
  }
}

/** The caller's bearer token on the same handshake the page made (exec-check.ts). */
async function serveExecCheck(opts: DashboardOptions, req: IncomingMessage, res: ServerResponse, t: ExecCheckTarget): Promise<void> {
  const { server, caPem } = opts.apiServer();
  const auth = /^Bearer\s+(\S+)$/i.exec(String(req.headers.authorization ?? ''));
  writeStatus(res, await checkExec(server, t, { headers: auth ? { Authorization: `Bearer ${auth[1]}` } : {}, tls: { ca: caPem } }));
}

function writeStatus(res: ServerResponse, status: Status): void {
  const body = JSON.stringify(status);
  res.writeHead(status.code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
