/**
 * apiRequest (helpers.ts) for answers too large to be one string: the body
 * comes back as the bytes received (a Status of millions of causes is
 * hundreds of MiB, near V8's limit on a string's length).
 */
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { Cluster } from './harness.js';
import { adminCredentials } from './helpers.js';

export interface BytesResponse { status: number; headers: IncomingHttpHeaders; body: Buffer }

export function bytesRequest(cluster: Cluster, path: string, opts: { method?: string; body?: Buffer; contentType?: string } = {}): Promise<BytesResponse> {
  const headers: Record<string, string | number> = { Accept: 'application/json' };
  if (opts.body) {
    headers['Content-Type'] = opts.contentType ?? 'application/json';
    headers['Content-Length'] = opts.body.length;
  }
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, cluster.url), { method: opts.method ?? 'GET', headers, ...adminCredentials(cluster.kubeconfig), agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}
