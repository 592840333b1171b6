/**
 * A small REST client for the Kubernetes API over HTTPS with keep-alive,
 * client QPS limiting (upstream's token bucket: qps + burst), JSON bodies
 * and Status errors surfaced as ApiError.
 */
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { ClientConfig } from './kubeconfig.js';

export class ApiError extends Error {
  constructor(readonly code: number, readonly reason: string, message: string, readonly status?: any) {
    super(message);
  }
}

export const isNotFound = (e: unknown) => e instanceof ApiError && e.code === 404;
export const isConflict = (e: unknown) => e instanceof ApiError && e.code === 409 && e.reason === 'Conflict';
export const isAlreadyExists = (e: unknown) => e instanceof ApiError && e.code === 409 && e.reason === 'AlreadyExists';

/** apierrors.HasStatusCause(err, NamespaceTerminatingCause), or the message namespace admission uses. */
export function isNamespaceTerminating(e: unknown): boolean {
  const st = (e as ApiError | undefined)?.status;
  if ((st?.details?.causes ?? []).some((c: { type?: string }) => c.type === 'NamespaceTerminating')) return true;
  return /because it is being terminated/.test((e as Error)?.message ?? '');
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  accept?: string;
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
  private agent: https.Agent;
  private tokens: number;
  private lastRefill = Date.now();
  private readonly waiters: (() => void)[] = [];
  private refillTimer?: NodeJS.Timeout;

  constructor(readonly config: ClientConfig, private readonly opts: RestClientOptions = {}) {
    this.agent = opts.agent ?? RestClient.agentFor(config);
    this.tokens = opts.burst ?? 100;
  }

  private static agentFor(config: ClientConfig): https.Agent {
    return new https.Agent({
      keepAlive: true, maxSockets: 64, ca: config.caPem, cert: config.certPem, key: config.keyPem,
      rejectUnauthorized: !config.insecureSkipTLSVerify,
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

  /** Sends a request and returns the raw response (for streams). */
  async raw(method: string, path: string, o: RequestOptions = {}): Promise<IncomingMessage> {
    await this.throttle();
    const url = new URL(this.config.server + path);
    for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    const body = o.body === undefined ? undefined : Buffer.from(typeof o.body === 'string' ? o.body : JSON.stringify(o.body));
    const headers: Record<string, string | number> = { Accept: o.accept ?? 'application/json', 'User-Agent': this.opts.userAgent ?? 'k8ts' };
    if (body) { headers['Content-Type'] = o.contentType ?? 'application/json'; headers['Content-Length'] = body.length; }
    if (this.config.token) headers.Authorization = `Bearer ${this.config.token}`;
    return new Promise((resolve, reject) => {
      const req = https.request(url, { method, headers, agent: this.agent }, resolve);
      req.on('error', reject);
      req.end(body);
    });
  }

  async request<T = any>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    const res = await this.raw(method, path, o);
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const code = res.statusCode ?? 0;
    let parsed: any;
    try { parsed = text ? JSON.parse(text) : undefined; } catch { parsed = undefined; }
    if (code >= 200 && code < 300) return (parsed ?? text) as T;
    if (parsed?.kind === 'Status') throw new ApiError(code, parsed.reason ?? '', parsed.message ?? text, parsed);
    throw new ApiError(code, '', `${method} ${path}: HTTP ${code}: ${text.slice(0, 200)}`);
  }

  close(): void {
    if (this.refillTimer) clearTimeout(this.refillTimer);
    if (this.agent !== this.opts.agent) this.agent.destroy();
  }
}
