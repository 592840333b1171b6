/**
 * HTTP/1.1 over TLS written by hand, for requests that no well-behaved client
 * sends: request-targets such as `//[`, bodies shorter than their
 * Content-Length, headers that never end. The response is whatever the server
 * sent until it closed the connection or `waitMs` passed.
 */
import tls from 'node:tls';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { Cluster } from './harness.js';

export interface RawResponse {
  /** Everything received, as text. */
  text: string;
  /** The status code of the first response, or 0 if none came. */
  status: number;
  /** The JSON body of the first response, when it had one. */
  json?: any;
  /** The server closed the connection (rather than the wait running out). */
  closed: boolean;
  ms: number;
}

export interface RawOptions {
  anonymous?: boolean;
  /** How long to wait for the server to answer and close. */
  waitMs?: number;
  /** Resolve as soon as one complete response arrived, without waiting for the close. */
  firstResponse?: boolean;
}

function clientCredentials(kubeconfig: string): { cert: string; key: string } {
  const cfg = parse(readFileSync(kubeconfig, 'utf8'));
  const b64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
  return { cert: b64(cfg.users[0].user['client-certificate-data']), key: b64(cfg.users[0].user['client-key-data']) };
}

export function rawRequest(cluster: Cluster, data: string | Buffer, opts: RawOptions = {}): Promise<RawResponse> {
  const url = new URL(cluster.url);
  const creds = opts.anonymous ? {} : clientCredentials(cluster.kubeconfig);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parseResponse(Buffer.concat(chunks).toString('utf8'), closed, Date.now() - started));
    };
    const socket = tls.connect({ host: url.hostname, port: Number(url.port), rejectUnauthorized: false, ...creds }, () => socket.write(data));
    const timer = setTimeout(() => finish(false), opts.waitMs ?? 10_000);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      if (opts.firstResponse && parseResponse(Buffer.concat(chunks).toString('utf8'), false, 0).complete) finish(false);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' ? finish(true) : reject(e)));
  });
}

function parseResponse(text: string, closed: boolean, ms: number): RawResponse & { complete: boolean } {
  const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
  const head = text.indexOf('\r\n\r\n');
  const len = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, head));
  const body = head >= 0 && len ? text.slice(head + 4, head + 4 + Number(len[1])) : '';
  const complete = head >= 0 && !!len && Buffer.byteLength(body) >= Number(len[1]);
  let json: any;
  try { json = body ? JSON.parse(body) : undefined; } catch { json = undefined; }
  return { text, status: m ? Number(m[1]) : 0, json, closed, ms, complete };
}
