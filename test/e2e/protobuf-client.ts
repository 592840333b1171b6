/**
 * HTTPS requests with binary bodies and a chosen Accept header, as client-go's
 * typed clients send them (`application/vnd.kubernetes.protobuf,application/json`).
 */
import https from 'node:https';
import type { Cluster } from './harness.js';
import { adminCredentials } from './helpers.js';

export const protobufType = 'application/vnd.kubernetes.protobuf';
export const typedAccept = `${protobufType},application/json`;

export interface BinaryResponse { status: number; headers: Record<string, unknown>; body: Buffer }

export async function binaryRequest(cluster: Cluster, path: string, opts: { method?: string; body?: Buffer | string; contentType?: string; accept?: string; headers?: Record<string, string> } = {}): Promise<BinaryResponse> {
  const { status, headers, chunks } = await binaryRequestChunks(cluster, path, opts);
  return { status, headers, body: Buffer.concat(chunks) };
}

/**
 * binaryRequest, its body left as the chunks received: a caller measuring
 * the server meanwhile (a bystander in this process) joins them afterwards,
 * since joining hundreds of MiB holds this process's loop for a while.
 */
export function binaryRequestChunks(cluster: Cluster, path: string, opts: Parameters<typeof binaryRequest>[2] = {}): Promise<{ status: number; headers: BinaryResponse['headers']; chunks: Buffer[] }> {
  const headers: Record<string, string | number> = { Accept: opts.accept ?? typedAccept, ...opts.headers };
  if (opts.body !== undefined) {
    headers['Content-Type'] = opts.contentType ?? protobufType;
    headers['Content-Length'] = Buffer.byteLength(opts.body);
  }
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, cluster.url), { method: opts.method ?? 'GET', headers, ...adminCredentials(cluster.kubeconfig), agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, chunks }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A protobuf watch: the frames received so far, decoded by `decode`, and a way to wait for one. */
export function binaryStream(cluster: Cluster, path: string): Promise<{ status: number; headers: Record<string, unknown>; data: () => Buffer; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, cluster.url), { headers: { Accept: typedAccept }, ...adminCredentials(cluster.kubeconfig), agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', () => { /* closed by close() */ });
      resolve({ status: res.statusCode ?? 0, headers: res.headers, data: () => Buffer.concat(chunks), close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}
