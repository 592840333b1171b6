/**
 * A small REST client for the Kubernetes API over HTTPS (or plain HTTP on the
 * API server's loopback socket, for its own process's control loops) with keep-alive,
 * client QPS limiting (upstream's token bucket: qps + burst), JSON bodies
 * and Status errors surfaced as ApiError.
 */
import https from 'node:https';
import tls from 'node:tls';
import http, { type IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';
import type { Dispatcher, Pool } from 'undici';
import type { ClientConfig } from './kubeconfig.js';
import { LoopbackAgent, PooledAgent } from './agent.js';
import { onePerConnection, openLightPool, pipelinedShape } from './light-pool.js';
import { skipManagedFields } from './skip-managed-fields.js';

export class ApiError extends Error {
  constructor(readonly code: number, readonly reason: string, message: string, readonly status?: any) {
    super(message);
  }
}

export const isNotFound = (e: unknown) => e instanceof ApiError && e.code === 404;
export const isConflict = (e: unknown) => e instanceof ApiError && e.code === 409 && e.reason === 'Conflict';
export const isAlreadyExists = (e: unknown) => e instanceof ApiError && e.code === 409 && e.reason === 'AlreadyExists';

/**
 * apierrors.HasStatusCause(err, NamespaceTerminatingCause), or the message namespace admission uses.
 * A StatusCause's type travels as `reason` in JSON (Go: `Type CauseType json:"reason"`).
 */
export function isNamespaceTerminating(e: unknown): boolean {
  const st = (e as ApiError | undefined)?.status;
  if ((st?.details?.causes ?? []).some((c: { reason?: string }) => c.reason === 'NamespaceTerminating')) return true;
  return /because it is being terminated/.test((e as Error)?.message ?? '');
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  accept?: string;
  /**
   * Only success or the error is wanted (client-go's Do().Error()): a 2xx answer's body is not
   * decoded and the call resolves to undefined. requestLight only.
   */
  discardSuccessBody?: boolean;
  /**
   * May share its connection with other pipelined requests in flight (light-pool.ts): for
   * bursts of small requests with small answers, whose caller takes a dropped connection's
   * failure of all of them (the scheduler's bindings). requestLight only.
   */
  pipelined?: boolean;
  /**
   * A 2xx answer's object is decoded without metadata.managedFields (skip-managed-fields.ts), for
   * a caller that never reads them: the simulated nodes keep each pod status write's and Lease
   * renewal's answer only to write the next one from it, which leaves managedFields out anyway.
   */
  skipManagedFields?: boolean;
}

export interface RestClientOptions {
  /** Requests per second (0: unlimited). Upstream's default for controllers is 50 with burst 100. */
  qps?: number;
  burst?: number;
  userAgent?: string;
  /**
   * Connections shared with other clients of the same server and CA (the
   * dashboard's per-request clients, each with a caller's token): kept open
   * across them, and left open by close(). The config's client certificate
   * is then not used.
   */
  agent?: https.Agent;
}

export class RestClient {
  private agent: http.Agent;
  private tokens: number;
  private lastRefill = Date.now();
  private readonly waiters: (() => void)[] = [];
  private refillTimer?: NodeJS.Timeout;

  constructor(readonly config: ClientConfig, private readonly opts: RestClientOptions = {}) {
    this.agent = opts.agent ?? RestClient.agentFor(config);
    this.tokens = opts.burst ?? 100;
  }

  private static agentFor(config: ClientConfig): http.Agent {
    if (config.socketPath) return new LoopbackAgent({ keepAlive: true, maxSockets: 64 });
    // One secure context for every connection: without it Node parses the CA, certificate and key
    // again for each new connection (a burst of 64 costs the scheduler ~0.5 s of CPU).
    const secureContext = tls.createSecureContext({ ca: config.caPem, cert: config.certPem, key: config.keyPem });
    return new PooledAgent({
      keepAlive: true, maxSockets: 64, ca: config.caPem, cert: config.certPem, key: config.keyPem,
      rejectUnauthorized: !config.insecureSkipTLSVerify, secureContext,
    });
  }

  /**
   * Switches to a new client certificate (the kubelet's rotation): new
   * requests use it, and every open connection of the old one is closed, so
   * long-running watches reconnect with it too (upstream's connrotation dialer).
   */
  setClientCertificate(certPem: string, keyPem: string): void {
    const old = this.agent;
    (this.config as ClientConfig).certPem = certPem;
    (this.config as ClientConfig).keyPem = keyPem;
    this.agent = RestClient.agentFor(this.config);
    old.destroy();
    this.closeLight();
  }

  /** Client-side rate limiting, so thousands of simulated nodes cannot flood the server. */
  private async throttle(): Promise<void> {
    const qps = this.opts.qps ?? 0;
    if (!qps) return;
    const burst = this.opts.burst ?? Math.max(1, qps * 2);
    const now = Date.now();
    this.tokens = Math.min(burst, this.tokens + ((now - this.lastRefill) / 1000) * qps);
    this.lastRefill = now;
    if (this.tokens >= 1 && this.waiters.length === 0) { this.tokens -= 1; return; }
    await new Promise<void>((resolve) => { this.waiters.push(resolve); this.scheduleRefill(qps); });
  }

  private scheduleRefill(qps: number): void {
    if (this.refillTimer) return;
    this.refillTimer = setTimeout(() => {
      this.refillTimer = undefined;
      const now = Date.now();
      this.tokens += ((now - this.lastRefill) / 1000) * qps;
      this.lastRefill = now;
      while (this.tokens >= 1 && this.waiters.length) { this.tokens -= 1; this.waiters.shift()!(); }
      if (this.waiters.length) this.scheduleRefill(qps);
    }, Math.max(1, Math.ceil(1000 / qps)));
  }

  /**
   * Host, port and path of a request, as `new URL(server + path)` with the query
   * set on it gives them; the server's part is parsed once, not per request.
   */
  private requestTarget(path: string, query: RequestOptions['query']): { hostname: string; port: string; path: string } {
    if (!this.server || this.server.raw !== this.config.server) {
      const u = new URL(this.config.server);
      this.server = { raw: this.config.server, hostname: u.hostname.replace(/^\[(.*)\]$/, '$1'), port: u.port, base: u.pathname.replace(/\/$/, '') };
    }
    const { hostname, port, base } = this.server;
    const hasQuery = query && Object.values(query).some((v) => v !== undefined && v !== '');
    if (!hasQuery && /^\/[A-Za-z0-9._~\-/:@]*$/.test(path) && !path.includes("/.")) return { hostname, port, path: base + path };
    const url = new URL(this.config.server + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    return { hostname, port, path: url.pathname + url.search };
  }

  private server?: { raw: string; hostname: string; port: string; base: string };

  private fileToken?: { value: string; readAt: number };

  /** The static token, or the token file's contents, read again once a minute. */
  private bearerToken(): string | undefined {
    const file = this.config.tokenFile;
    if (!file) return this.config.token;
    if (!this.fileToken || Date.now() - this.fileToken.readAt > 60_000) {
      try { this.fileToken = { value: readFileSync(file, 'utf8').trim(), readAt: Date.now() }; } catch { /* keep the last one */ }
    }
    return this.fileToken?.value ?? this.config.token;
  }

  /** Sends a request and returns the raw response (for streams). */
  async raw(method: string, path: string, o: RequestOptions = {}): Promise<IncomingMessage> {
    await this.throttle();
    const target = this.requestTarget(path, o.query);
    const body = encodeBody(o);
    const headers: Record<string, string | number> = this.requestHeaders(o);
    if (body !== undefined) headers['Content-Length'] = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    for (let sent = 1; ; sent++) {
      const out = await new Promise<IncomingMessage | 'replay'>((resolve, reject) => {
        const socketPath = this.config.socketPath;
        const req = socketPath ? http.request({ ...target, socketPath, method, headers, agent: this.agent }, resolve)
          : https.request({ ...target, method, headers, agent: this.agent }, resolve);
        req.on('error', (e) => (sent < maxReplays && req.reusedSocket && isReplayable(method) && isConnectionDrop(e) ? resolve('replay') : reject(e)));
        req.end(body);
      });
      if (out !== 'replay') return out;
    }
  }

  async request<T = any>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    let res = await this.raw(method, path, o);
    // client-go's retry: a 429, or a 5xx carrying Retry-After, is sent again after the seconds the
    // server asks for, up to 10 times (the body is a buffer, so it can always be sent again).
    for (let retries = 0; retries < maxRetries; retries++) {
      const wait = retryAfterMs(res.statusCode ?? 0, res.headers['retry-after']);
      if (wait === undefined) break;
      res.resume();
      await new Promise((r) => setTimeout(r, wait));
      res = await this.raw(method, path, o);
    }
    return decodeResponse<T>(method, path, res.statusCode ?? 0, await readText(res), o.skipManagedFields);
  }

  private light?: Promise<Pool>;
  private pipelinedLight?: Promise<Pool>;
  /** Light requests in flight through request() while the pool is not open. */
  private lightBypassed = 0;

  /**
   * request(), sent through an undici Pool rather than Node's http client:
   * the same keep-alive connections on the wire, at a fraction of the
   * client's CPU per request (bench/binding-transport.ts), for bursts of
   * small requests: the scheduler's bindings. One request at a time on each
   * connection, or pipelined ones sharing connections (`o.pipelined`,
   * light-pool.ts). The same throttle, headers, Retry-After retries and
   * Status errors. A request whose connection drops fails (undici's
   * SocketError, UND_ERR_SOCKET) and is not sent again: a POST may already
   * have been applied. A client given a shared agent (no client certificate
   * of its own) uses request().
   */
  async requestLight<T = any>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    // undici's HTTP parser is WebAssembly, which the node agents run without (cli/agent-node-flags.ts):
    // there every request goes through Node's client (a kubelet's burst of Events crashed it on start).
    if (this.opts.agent || !webAssemblyAvailable) return this.request<T>(method, path, o);
    // Until a burst opens the pool, request(): a scheduler binding a few pods now and then (k8ts up's
    // add-ons) never loads undici, which costs ~4.6 MiB of its isolate's heap, kept for good.
    if (this.light === undefined && this.lightBypassed < lightPoolBurst) {
      this.lightBypassed++;
      try { return await this.request<T>(method, path, o); } finally { this.lightBypassed--; }
    }
    const body = encodeBody(o);
    this.light ??= this.lightPool(onePerConnection); // opened: no more bypass (it connects only when used)
    // Pipelined requests go in a pool of their own, so no other request waits behind them.
    const pool = await (o.pipelined ? (this.pipelinedLight ??= this.lightPool(pipelinedShape)) : this.light);
    for (let retries = 0; ; retries++) {
      if (this.opts.qps) await this.throttle(); // unlimited: no await, no microtask turn per request
      const res = await dispatchText(pool, {
        method: method as Dispatcher.HttpMethod, path: this.requestTarget(path, o.query).path, headers: this.requestHeaders(o), body,
        // undici pipelines only requests it may send again (the caller said it takes the risk), and
        // none behind a request it takes for a slow one ("blocking", by default every one but a HEAD).
        ...(o.pipelined ? { idempotent: true, blocking: false } : {}),
      });
      const wait = retries < maxRetries ? retryAfterMs(res.statusCode, res.retryAfter) : undefined;
      if (wait === undefined) {
        if (o.discardSuccessBody && res.statusCode >= 200 && res.statusCode < 300) return undefined as T;
        return decodeResponse<T>(method, path, res.statusCode, bodyText(res.chunks), o.skipManagedFields);
      }
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  private lightPool(shape: typeof onePerConnection): Promise<Pool> {
    return openLightPool(this.config, this.requestTarget('/', undefined).hostname, shape);
  }

  /** The headers of every request but Host and Content-Length (raw() adds the length; undici both). */
  private requestHeaders(o: RequestOptions): Record<string, string> {
    const headers: Record<string, string> = { Accept: o.accept ?? 'application/json', 'User-Agent': this.opts.userAgent ?? 'k8ts' };
    if (o.body !== undefined) headers['Content-Type'] = o.contentType ?? 'application/json';
    const token = this.bearerToken();
    if (token) headers.Authorization = `Bearer ${token}`;
    return headers;
  }

  /** Closes the light pool's connections: a request still on one fails, as with https.Agent.destroy(). */
  private closeLight(): void {
    for (const light of [this.light, this.pipelinedLight]) light?.then((p) => p.destroy(), () => undefined).catch(() => undefined);
    this.light = this.pipelinedLight = undefined;
  }

  close(): void {
    if (this.refillTimer) clearTimeout(this.refillTimer);
    if (this.agent !== this.opts.agent) this.agent.destroy();
    this.closeLight();
    // A closed client opens no new pool: a later light request fails rather than leave connections open.
    const closed = Promise.reject(new Error('client closed'));
    closed.catch(() => undefined);
    this.light = this.pipelinedLight = closed;
  }
}

/**
 * A request body as sent: an object is JSON, and a text body stays text: Node writes the request
 * head and a string body as one chunk (OutgoingMessage._send joins them), where a Buffer is one
 * more chunk of the socket's write.
 */
function encodeBody(o: RequestOptions): string | Buffer | undefined {
  return o.body === undefined ? undefined : typeof o.body === 'string' || Buffer.isBuffer(o.body) ? o.body : JSON.stringify(o.body);
}

/**
 * One request through undici's dispatch(), its response's body collected:
 * Pool.request() would wrap the body in a stream per response, which cost
 * about 0.015 ms more per binding (bench/binding-transport.ts). An error
 * before or during the response (a dropped connection) rejects.
 */
function dispatchText(pool: Pool, opts: Dispatcher.DispatchOptions): Promise<{ statusCode: number; retryAfter?: string | string[]; chunks: Buffer[] }> {
  return new Promise((resolve, reject) => {
    let statusCode = 0;
    let retryAfter: string | string[] | undefined;
    const chunks: Buffer[] = [];
    pool.dispatch(opts, {
      // Present so undici takes this for a handler of its current interface (it checks for onRequestStart).
      onRequestStart() { /* nothing to do before the response */ },
      onResponseStart(_c, code, headers) { statusCode = code; retryAfter = headers['retry-after']; },
      onResponseData(_c, chunk) { chunks.push(chunk); },
      onResponseEnd() { resolve({ statusCode, retryAfter, chunks }); },
      onResponseError(_c, e) { reject(e); },
    });
  });
}

/** A response body's chunks as text. */
const bodyText = (chunks: Buffer[]) => (chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8'));

/** A response's body as the caller's value (a success's without managedFields when asked), or the ApiError of its Status. */
function decodeResponse<T>(method: string, path: string, code: number, text: string, withoutManagedFields = false): T {
  let parsed: any;
  const ok = code >= 200 && code < 300;
  try {
    parsed = text ? JSON.parse(ok && withoutManagedFields ? skipManagedFields(text, true) : text) : undefined;
  } catch {
    try { parsed = text ? JSON.parse(text) : undefined; } catch { parsed = undefined; }
  }
  if (ok) return (parsed ?? text) as T;
  if (parsed?.kind === 'Status') throw new ApiError(code, parsed.reason ?? '', parsed.message ?? text, parsed);
  throw new ApiError(code, '', `${method} ${path}: HTTP ${code}: ${text.slice(0, 200)}`);
}

/**
 * The response body as text. Listeners rather than `for await`: the async
 * iterator costs a promise and an end-of-stream watcher per response, which
 * showed in the CPU of clients sending thousands of small requests a second.
 */
function readText(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.once('end', () => resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    res.once('error', reject);
    // A connection lost mid-body: 'close' without 'end'; the iterator rejected with this error too.
    res.once('close', () => { if (!res.complete) reject(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' })); });
  });
}

/**
 * Go's transport (net/http shouldRetryRequest) sends a request again, on another connection, when
 * it failed on a kept-alive connection the server had closed meanwhile, for methods that may be
 * replayed (isReplayable: GET, HEAD, OPTIONS, TRACE): an idle connection the server closes just as
 * the client takes it is a race no timeout removes (a loaded server's or client's loop runs the
 * close late). Node's client leaves it to the caller (http docs, `request.reusedSocket`); the scale
 * run's client ended on one (bench/RESULTS.md `meminf-2026-12-06`). A request on a fresh connection
 * is not sent again, and neither is a POST, PUT, PATCH or DELETE: the server may have applied it.
 */
const isReplayable = (method: string) => method === 'GET' || method === 'HEAD' || method === 'OPTIONS' || method === 'TRACE';

/** A connection the peer closed or reset under a request (Node: 'socket hang up' and 'read ECONNRESET' are both ECONNRESET). */
const isConnectionDrop = (e: NodeJS.ErrnoException) => e.code === 'ECONNRESET' || e.code === 'EPIPE';

/** Sends of one request at most: each replay takes another pooled connection, or a new one. */
const maxReplays = 8;

/** client-go's default maxRetries of a request. */
const maxRetries = 10;

/**
 * How many light requests may be in flight at once before requestLight opens its undici pool: a
 * burst (the scheduler binding a Deployment's pods) gets the pool's lower CPU per request from its
 * ninth request on; fewer go through request(), and an idle cluster's scheduler never loads undici.
 */
export const lightPoolBurst = 8;

/** Whether this isolate has WebAssembly (not under `--no-expose-wasm`), which undici needs. */
const webAssemblyAvailable = typeof WebAssembly !== 'undefined';

/** How long to wait before sending again, for a response client-go retries (checkWait): 429, or 5xx with Retry-After. */
function retryAfterMs(code: number, header: string | string[] | undefined): number | undefined {
  if (code !== 429 && code < 500) return undefined;
  const seconds = header === undefined ? NaN : Number(Array.isArray(header) ? header[0] : header);
  if (!Number.isInteger(seconds) || seconds < 0) return undefined;
  return seconds * 1000;
}
