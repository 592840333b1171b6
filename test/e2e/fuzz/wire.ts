/**
 * Raw HTTPS requests for the fuzz suite: the path goes out byte for byte
 * (no URL normalisation, so `//`, `..` and bad escapes reach the server),
 * with or without the admin client certificate, and with a client-side
 * deadline: a server that never answers is a finding (a hang), not a wait.
 */
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { Cluster } from '../harness.js';

export interface WireRequest {
  method: string;
  /** Path and query exactly as sent on the request line. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  anonymous: boolean;
}

export type WireResult =
  | { kind: 'response'; status: number; headers: Record<string, string | string[] | undefined>; body: string; raw: Buffer; ms: number }
  | { kind: 'hang'; ms: number }
  | { kind: 'error'; message: string; ms: number };

export interface Wire {
  send(req: WireRequest): Promise<WireResult>;
  close(): void;
}

/** Node refuses request lines with bytes outside 0x21-0xFF; those go out %-escaped, as any client would send them. */
export function requestLine(path: string): string {
  let out = '';
  for (const ch of path) {
    const c = ch.codePointAt(0)!;
    out += c > 0x20 && c < 0x7f ? ch : escapeChar(ch);
  }
  return out.startsWith('/') || out.startsWith('*') ? out : `/${out}`;
}

function escapeChar(ch: string): string {
  try {
    return encodeURIComponent(ch);
  } catch {
    return '%EF%BF%BD'; // a lone surrogate: U+FFFD, as a browser would send it
  }
}

/** encodeURIComponent that takes any string: a lone surrogate becomes U+FFFD instead of an URIError. */
export const encode = (s: string) => encodeURIComponent(s.replace(/[\ud800-\udfff]/gu, '\ufffd'));

/** Header values may hold tab, printable ASCII and bytes 0x80-0xFF only; anything else would be refused by Node before sending. */
export const headerValue = (v: string) => v.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');

export function wireFor(cluster: Cluster, deadlineMs: number): Wire {
  const cfg = parse(readFileSync(cluster.kubeconfig, 'utf8'));
  const b64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
  const admin = {
    ca: b64(cfg.clusters[0].cluster['certificate-authority-data']),
    cert: b64(cfg.users[0].user['client-certificate-data']),
    key: b64(cfg.users[0].user['client-key-data']),
  };
  const { hostname, port } = new URL(cluster.url);
  // Connections are kept alive (a TLS handshake per case would halve the cases run); the CA
  // is checked but not the host name, since some cases send a foreign Host header.
  const authenticated = new https.Agent({ keepAlive: true, maxSockets: 1, ...admin, checkServerIdentity: () => undefined });
  const anonymous = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
  return {
    close: () => { authenticated.destroy(); anonymous.destroy(); },
    send: (r) => new Promise((resolve) => {
      const started = Date.now();
      const ms = () => Date.now() - started;
      let settled = false;
      const settle = (v: WireResult) => { if (!settled) { settled = true; clearTimeout(timer); resolve(v); } };
      const headers: Record<string, string | number> = {};
      for (const [k, v] of Object.entries(r.headers)) headers[k] = headerValue(v);
      if (r.body !== undefined) headers['Content-Length'] = Buffer.byteLength(r.body);
      // A kept-alive connection the server closed while it was idle fails the request written on it at once
      // (ECONNRESET / socket hang up, nothing answered): like Go's client and Node's documented
      // req.reusedSocket pattern, the request is sent again once, on a new connection. A failure on a fresh
      // connection, or a second one, is a finding.
      const attempt = (retried: boolean): void => {
      const req = https.request({ hostname, port, method: r.method, path: requestLine(r.path), headers, agent: r.anonymous ? anonymous : authenticated }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          settle({ kind: 'response', status: res.statusCode ?? 0, headers: res.headers, body: raw.toString('utf8'), raw, ms: ms() });
        });
        res.on('error', (e) => settle({ kind: 'error', message: `response: ${e.message}`, ms: ms() }));
      });
      req.on('error', (e: NodeJS.ErrnoException) => {
        if (!retried && req.reusedSocket && !settled && (e.code === 'ECONNRESET' || e.message === 'socket hang up')) { attempt(true); return; }
        settle({ kind: 'error', message: e.message, ms: ms() });
      });
      current = req;
      req.end(r.body);
      };
      let current: ReturnType<typeof https.request> | undefined;
      const timer = setTimeout(() => { settle({ kind: 'hang', ms: ms() }); current?.destroy(); }, deadlineMs);
      attempt(false);
    }),
  };
}
