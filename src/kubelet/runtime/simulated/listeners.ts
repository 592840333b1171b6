/**
 * What listens in a simulated pod (the KWOK idea: port-forward answered by
 * the simulator): no process runs, so a connection to a container port
 * (kubectl port-forward, pods/proxy, services/proxy through the kubelet)
 * reaches a small in-process HTTP responder that answers as the container's
 * image would, for the images the Kubernetes tutorials use:
 *
 *  - nginx (docker.io/library/nginx:*, and registry.k8s.io/nginx-slim of
 *    the StatefulSet tutorial), port 80: the files under
 *    /usr/share/nginx/html of the container's file view (its writable
 *    layer and volumes: what `kubectl cp` or a shell's `>` put there;
 *    index.html for a directory), else the image's stock "Welcome to
 *    nginx!" page for / and /index.html — unless a volume is mounted over
 *    the document root, which hides the image's page (403 for a directory
 *    without index.html, as nginx answers) — and nginx's 404 page
 *    elsewhere, with `Server: nginx/<version>` (the tag's version, else
 *    1.27.3);
 *  - httpd (docker.io/library/httpd:*), port 80: Apache's "It works!";
 *  - gcr.io/google-samples/kubernetes-bootcamp and
 *    jocatalin/kubernetes-bootcamp, port 8080:
 *    `Hello Kubernetes bootcamp! | Running on: POD | v=N` (N from the tag);
 *  - gcr.io/google-samples/hello-app (and its us-docker.pkg.dev twin),
 *    port $PORT or 8080: `Hello, world!\nVersion: X.0.0\nHostname: POD\n`;
 *  - registry.k8s.io/echoserver (k8s.gcr.io, gcr.io/google_containers),
 *    port 8080: the request echoed back, as echoserver 1.10 prints it;
 *  - registry.k8s.io/hpa-example, port 80: `OK!` (hpa-example.ts);
 *  - registry.k8s.io/serve_hostname (the Debug Services page's
 *    `hostnames`), port 9376: the pod's hostname, without a newline.
 * Any other image or port has nothing listening: the connection is refused
 * (ECONNREFUSED), as a port nobody listens on.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { posix } from 'node:path';
import type { Duplex } from 'node:stream';
import { duplexPair } from '../../../util/duplex-pair.js';
import { hpaExampleListener, hpaExampleRepos } from './hpa-example.js';
import { nginxAccessLog, nginxImageVersion } from './nginx-log.js';
import { sampleServiceListener } from './sample-services.js';
import type { HttpOutcome, HttpRequest } from './http-commands.js';
import { bootcampRequestLog, bootcampVersion, nginxDocRoot as docRoot, nginxWelcomePage, repoAndTag } from './image-contents.js';

/** Who a connection reaches: the container's pod hostname and environment, the client's address. */
export interface ListenerContext {
  hostname: string;
  env: Map<string, string>;
  /** The address the connection comes from (127.0.0.1 for a port-forward: upstream's forwarder dials localhost in the pod). */
  remoteAddress: string;
  /** The container's files (layer and volumes) and its mount points, read when a request comes; absent: the image's own files only. */
  files?(): Promise<ListenerFiles>;
  /** The instance's stdout (its log), for a server that logs its requests; absent: nothing is logged. */
  stdout?: ListenerStdout;
  /** The CPU a request costs (usage.ts): the answer waits until it is done; absent: answered at once. */
  compute?(): Promise<void>;
  /** When the instance started and the clock (a server whose answer changes with its uptime: agnhost liveness). */
  startedAt?: Date;
  now?(): Date;
  /** A connection from the container to HOST:PORT as its libc and the pod network resolve and route it; undefined: not reached. */
  connect?(host: string, port: number): Promise<Duplex | undefined>;
  /** What the server keeps in memory, for this container instance alone (a redis's keys): a restart starts empty. */
  memory?: Map<string, unknown>;
}

export interface ListenerStdout {
  /** When the instance started (the server's start time). */
  startedAt: Date;
  now(): Date;
  /** The number of this request: 1 for the instance's first. */
  nextRequest(): number;
  write(text: string): void;
}

export interface ListenerFiles {
  readBytes(path: string): Buffer | undefined;
  listDir(path: string): string[] | undefined;
  /** Mount paths of the container's volumes. */
  mountPaths: string[];
  /** An HTTP request from the container through the pod's network (a proxying server: sample-services.ts). */
  http?(req: HttpRequest): Promise<HttpOutcome>;
}

type Responder = (req: IncomingMessage, res: ServerResponse, ctx: ListenerContext) => void;

/** A server of an image: HTTP requests go to respond; a server of another protocol (redis, mysql) takes the connection itself (serve). */
export interface ImageListener {
  ports(env: Map<string, string>): number[];
  respond?: Responder;
  serve?(socket: Duplex, ctx: ListenerContext): void;
  /** Called when the container instance starts, for what the server reads then (redis-server its config file). */
  start?(ctx: Pick<ListenerContext, 'files' | 'memory'>): void;
  /** The server is what the pod's command or args name (agnhost's subcommands): it is the container's main process, its log the container's. */
  namedByCommand?: boolean;
  /** What the server logs as it starts, where it differs from the image's entrypoint's (image-contents.ts). */
  startLog?(startedAt: Date): string;
}

const nginxDefaultVersion = '1.27.3';



/** When the stock page was built into the image, for Last-Modified and the ETag (nginx's `"mtime-length"`). */
const pageModified = new Date(Date.UTC(2024, 10, 26, 15, 55, 0));

const stockIndex = Buffer.from(nginxWelcomePage);
const mimeTypes: Record<string, string> = { html: 'text/html', htm: 'text/html', txt: 'text/plain', css: 'text/css', js: 'application/javascript', json: 'application/json', png: 'image/png', svg: 'image/svg+xml' };

/** nginx's error page for a status. */
function nginxError(req: IncomingMessage, res: ServerResponse, server: string, status: 403 | 404): void {
  const title = status === 403 ? '403 Forbidden' : '404 Not Found';
  const body = `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>${server}</center>\r\n</body>\r\n</html>\r\n`;
  res.writeHead(status, { Server: server, 'Content-Type': 'text/html', 'Content-Length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/**
 * A file of the container's document root (index.html for a directory):
 * its bytes, 'forbidden' for a directory without one, 'image' when only the
 * image's files can answer (nothing written there, no volume over the root).
 */
async function docRootFile(urlPath: string, ctx: ListenerContext): Promise<Buffer | 'forbidden' | 'image' | undefined> {
  const files = await ctx.files?.().catch(() => undefined);
  if (!files) return 'image';
  const path = posix.join(docRoot, decodeURIComponent(urlPath));
  if (path !== docRoot && !path.startsWith(`${docRoot}/`)) return undefined;
  const dir = files.listDir(path);
  const data = dir ? files.readBytes(posix.join(path, 'index.html')) : files.readBytes(path);
  // The image's own index.html, unchanged: served as the stock page (its Last-Modified and ETag).
  if (data && (path === docRoot || path === `${docRoot}/index.html`) && data.equals(stockIndex)) return 'image';
  if (data) return data;
  const hidden = files.mountPaths.some((m) => docRoot === m || docRoot.startsWith(m === '/' ? m : `${m}/`));
  if (hidden) return dir ? 'forbidden' : undefined;
  return 'image';
}

function nginx(version: string, accessLog = false): ImageListener {
  const server = `nginx/${version}`;
  return {
    ports: () => [80],
    respond: (req, res, ctx) => {
      const path = (req.url ?? '/').split('?')[0]!;
      // The official image's access log is its stdout (nginx-log.ts).
      if (accessLog && ctx.stdout) logAccess(req, res, ctx.remoteAddress, ctx.stdout);
      void docRootFile(path, ctx).then((file) => {
        if (file instanceof Buffer) {
          const type = mimeTypes[(path.endsWith('/') ? 'index.html' : path).split('.').pop() ?? ''] ?? 'application/octet-stream';
          res.writeHead(200, { Server: server, 'Content-Type': type, 'Content-Length': file.length, 'Accept-Ranges': 'bytes' });
          res.end(req.method === 'HEAD' ? undefined : file);
        } else if (file === 'forbidden') nginxError(req, res, server, 403);
        else if (file === 'image' && (path === '/' || path === '/index.html')) stockPage(req, res, server);
        else nginxError(req, res, server, 404);
      }, () => res.destroy());
    },
  };
}

/** Writes nginx's access-log line once the response is sent: the body's bytes are counted as they go out (writeHead's headers are not readable back). */
function logAccess(req: IncomingMessage, res: ServerResponse, remoteAddress: string, stdout: ListenerStdout): void {
  let bytes = 0;
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
  res.end = ((chunk?: unknown) => {
    if (typeof chunk === 'string' || chunk instanceof Buffer) bytes += Buffer.byteLength(chunk);
    return end(chunk);
  }) as ServerResponse['end'];
  res.on('finish', () => stdout.write(nginxAccessLog(req, res.statusCode, bytes, remoteAddress, stdout.now())));
}

/** The image's own index.html. */
function stockPage(req: IncomingMessage, res: ServerResponse, server: string): void {
  res.writeHead(200, {
    Server: server, 'Content-Type': 'text/html', 'Content-Length': Buffer.byteLength(nginxWelcomePage),
    'Last-Modified': pageModified.toUTCString(), ETag: `"${Math.floor(pageModified.getTime() / 1000).toString(16)}-${Buffer.byteLength(nginxWelcomePage).toString(16)}"`,
    'Accept-Ranges': 'bytes',
  });
  res.end(req.method === 'HEAD' ? undefined : nginxWelcomePage);
}

const text = (res: ServerResponse, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(200, { 'Content-Type': 'text/plain', ...headers });
  res.end(body);
};

/** kubernetes-bootcamp's server.js (image-contents.ts): the same answer for every request, and a log line per request. */
const bootcamp = (version: string): ImageListener => ({
  ports: () => [8080],
  respond: (_req, res, ctx) => {
    text(res, `Hello Kubernetes bootcamp! | Running on: ${ctx.hostname} | v=${version}\n`);
    const out = ctx.stdout;
    if (out) out.write(bootcampRequestLog(ctx.hostname, out.nextRequest(), out.startedAt, out.now()));
  },
});

/** hello-app's main.go: listens on $PORT (8080 by default). */
const helloApp = (version: string): ImageListener => ({
  ports: (env) => [Number(env.get('PORT')) || 8080],
  respond: (_req, res, ctx) => text(res, `Hello, world!\nVersion: ${version}\nHostname: ${ctx.hostname}\n`, { 'Content-Type': 'text/plain; charset=utf-8' }),
});

const httpd: ImageListener = {
  ports: () => [80],
  respond: (_req, res) => {
    const body = '<html><body><h1>It works!</h1></body></html>\n';
    res.writeHead(200, { Server: 'Apache/2.4.62 (Unix)', 'Content-Type': 'text/html', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  },
};

/** serve_hostname (test/images/serve-hostname): HTTP on 9376, the hostname and nothing else (`fmt.Fprintf(w, "%s", hostname)`). */
const serveHostname: ImageListener = {
  ports: () => [9376],
  respond: (_req, res, ctx) => text(res, ctx.hostname, { 'Content-Type': 'text/plain; charset=utf-8' }),
};

/** echoserver 1.10's page: the pod's name and the request as it arrived. */
const echoserver: ImageListener = {
  ports: () => [8080],
  respond: (req, res, ctx) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const [path, query = ''] = (req.url ?? '/').split(/\?(.*)/s);
      const headers = Object.entries(req.headers).map(([k, v]) => `\t${k}=${Array.isArray(v) ? v.join(',') : v}\n`).join('');
      const body = Buffer.concat(chunks).toString('utf8');
      res.writeHead(200, { Server: 'echoserver', 'Content-Type': 'text/plain' });
      res.end(`\n\nHostname: ${ctx.hostname}\n\nPod Information:\n\t-no pod information available-\n\nServer values:\n\tserver_version=nginx: 1.13.3 - lua: 10008\n\n` +
        `Request Information:\n\tclient_address=${ctx.remoteAddress}\n\tmethod=${req.method}\n\treal path=${path}\n\tquery=${query}\n\trequest_version=${req.httpVersion}\n` +
        `\trequest_scheme=http\n\trequest_uri=http://${req.headers.host ?? ''}${req.url ?? '/'}\n\nRequest Headers:\n${headers}\nRequest Body:\n${body ? body : '\t-no body in request-'}\n`);
    });
  },
};

/** The listener of a container's image, or undefined when the simulator knows of none. */
export function imageListener(image: string): ImageListener | undefined {
  const { repo, tag } = repoAndTag(image);
  const number = /^v?(\d+)(?:\.\d+)*$/.exec(tag);
  switch (repo) {
    // nginx-slim (the StatefulSet tutorial's) is a small build of nginx: its tag is the image's own version, not nginx's.
    case 'registry.k8s.io/nginx-slim':
    case 'k8s.gcr.io/nginx-slim':
    case 'gcr.io/google_containers/nginx-slim': return nginx(nginxDefaultVersion);
    case 'docker.io/library/nginx': return nginx(nginxImageVersion(tag), true);
    case 'docker.io/library/httpd': return httpd;
    case 'gcr.io/google-samples/kubernetes-bootcamp':
    case 'docker.io/jocatalin/kubernetes-bootcamp': return bootcamp(bootcampVersion(tag));
    case 'gcr.io/google-samples/hello-app':
    case 'us-docker.pkg.dev/google-samples/containers/gke/hello-app': return helloApp(`${number?.[1] ?? '1'}.0.0`);
    case 'registry.k8s.io/echoserver':
    case 'k8s.gcr.io/echoserver':
    case 'gcr.io/google_containers/echoserver': return echoserver;
    case 'registry.k8s.io/serve_hostname':
    case 'k8s.gcr.io/serve_hostname':
    case 'gcr.io/google_containers/serve_hostname': return serveHostname;
    default: return hpaExampleRepos.includes(repo) ? hpaExampleListener : sampleServiceListener(repo);
  }
}

/** The ports a container's image listens on (none when the simulator knows no listener for it). */
export function listeningPorts(image: string, env: Map<string, string>): number[] {
  return imageListener(image)?.ports(env) ?? [];
}

let server: http.Server | undefined;
const contexts = new WeakMap<object, { listener: ImageListener; ctx: ListenerContext }>();

/** One HTTP server for every simulated connection, never listening: connections are handed to it. */
function responderServer(): http.Server {
  server ??= http.createServer((req, res) => {
    const c = contexts.get(req.socket);
    if (!c?.listener.respond) { res.destroy(); return; }
    const { listener, ctx } = c;
    if (!ctx.compute) { listener.respond!(req, res, ctx); return; }
    void ctx.compute().then(() => { if (!res.destroyed) listener.respond!(req, res, ctx); });
  });
  return server;
}

/** A connection to `image`'s listener (or to `listener`): the caller's end; the other end is served in-process. */
export function connectListener(image: string | ImageListener, ctx: ListenerContext): Duplex | undefined {
  const listener = typeof image === 'string' ? imageListener(image) : image;
  if (!listener) return undefined;
  const [client, served] = duplexPair();
  Object.assign(served, { remoteAddress: ctx.remoteAddress, remotePort: 0 });
  if (listener.serve) { listener.serve(served, ctx); return client; }
  contexts.set(served, { listener, ctx });
  responderServer().emit('connection', served);
  return client;
}

/** A connection that is refused, as Node's net reports it (for callers that map ECONNREFUSED to Go's words). */
export function refusedConnection(port: number): Duplex {
  const [client] = duplexPair();
  process.nextTick(() => client.destroy(Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${port}`), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect', address: '127.0.0.1', port })));
  return client;
}
