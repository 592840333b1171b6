/**
 * What a simulated client puts on the wire and how it reads the answer, the
 * same for a request over the pod network (pod-network.ts) and one to the
 * API server (in-cluster-apiserver.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { HttpRequest, HttpResponse } from './http-commands.js';

/** What curl sends of its own. */
const curlHeaders = { 'User-Agent': 'curl/8.5.0', Accept: '*/*' };

/**
 * The request's headers: Host, the client's own (curl's unless the caller
 * names them), the caller's, and for a body (curl -d) its length and,
 * unless the caller named one, curl's form type.
 */
export function clientRequestHeaders(req: HttpRequest): Record<string, string> {
  const typed = Object.keys(req.headers).some((k) => k.toLowerCase() === 'content-type');
  const bodyHeaders = req.body ? { 'Content-Length': String(req.body.length), ...(typed ? {} : { 'Content-Type': 'application/x-www-form-urlencoded' }) } : {};
  return { Host: req.url.host, ...(req.clientHeaders ?? curlHeaders), ...req.headers, ...bodyHeaders };
}

/** The whole answer: status line, headers as sent, body. */
export function readResponse(res: IncomingMessage): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', httpVersion: res.httpVersion, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }));
    res.on('error', reject);
  });
}
