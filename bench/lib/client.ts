/**
 * An HTTPS client for the benchmark: node:https with a keep-alive Agent whose
 * maxSockets is the concurrency, authenticated with the admin client
 * certificate from admin.conf.
 */
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { parse as parseYAML } from 'yaml';

export interface Credentials { server: string; ca: string; cert: string; key: string }

export interface Reply {
  status: number;
  /** Empty when the caller asked to discard the body. */
  body: Buffer;
  bytes: number;
  /** Request start to the last byte of the response. */
  ms: number;
}

export interface RequestOptions {
  body?: string | Buffer;
  accept?: string;
  contentType?: string;
  /** Count the bytes but keep none (large lists). */
  discard?: boolean;
  /** More request headers (Impersonate-User, say). */
  headers?: Record<string, string>;
}

const requestTimeoutMs = 300_000;

export function readAdminCredentials(kubeconfigPath: string): Credentials {
  const cfg = parseYAML(readFileSync(kubeconfigPath, 'utf8'));
  const b64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
  return {
    server: cfg.clusters[0].cluster.server,
    ca: b64(cfg.clusters[0].cluster['certificate-authority-data']),
    cert: b64(cfg.users[0].user['client-certificate-data']),
    key: b64(cfg.users[0].user['client-key-data']),
  };
}

export class ApiClient {
  private readonly agent: https.Agent;
  private readonly base: URL;

  constructor(creds: Credentials, maxSockets: number) {
    this.base = new URL(creds.server);
    this.agent = new https.Agent({ keepAlive: true, maxSockets, ca: creds.ca, cert: creds.cert, key: creds.key });
  }

  request(method: string, path: string, opts: RequestOptions = {}): Promise<Reply> {
    const started = process.hrtime.bigint();
    return new Promise((resolve, reject) => {
      const req = https.request({
        agent: this.agent, method, host: this.base.hostname, port: this.base.port, path,
        headers: headersFor(opts), timeout: requestTimeoutMs,
      }, (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (c: Buffer) => { bytes += c.length; if (!opts.discard) chunks.push(c); });
        res.on('end', () => resolve({
          status: res.statusCode ?? 0, body: Buffer.concat(chunks), bytes,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in ${requestTimeoutMs} ms`)));
      req.on('error', reject);
      req.end(opts.body);
    });
  }

  /** Like request, but a status other than `want` is an error. */
  async expect(want: number, method: string, path: string, opts: RequestOptions = {}): Promise<Reply> {
    const r = await this.request(method, path, opts);
    if (r.status !== want) throw new Error(`${method} ${path}: HTTP ${r.status} (want ${want}): ${r.body.toString().slice(0, 500)}`);
    return r;
  }

  /**
   * Opens a watch; resolves once the response headers arrived. `onData` gets
   * the raw chunks of the newline-delimited event stream.
   */
  openStream(path: string, onData: (chunk: Buffer) => void): Promise<{ close(): void }> {
    return new Promise((resolve, reject) => {
      const req = https.request({ agent: this.agent, method: 'GET', host: this.base.hostname, port: this.base.port, path }, (res) => {
        if (res.statusCode !== 200) { reject(new Error(`watch ${path}: HTTP ${res.statusCode}`)); res.resume(); return; }
        res.on('data', onData);
        res.on('error', () => { /* closed by us */ });
        resolve({ close: () => req.destroy() });
      });
      req.on('error', reject);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

function headersFor(opts: RequestOptions): Record<string, string | number> {
  const h: Record<string, string | number> = { Accept: opts.accept ?? 'application/json', ...opts.headers };
  if (opts.body !== undefined) {
    h['Content-Type'] = opts.contentType ?? 'application/json';
    h['Content-Length'] = Buffer.byteLength(opts.body);
  }
  return h;
}
