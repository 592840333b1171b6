/**
 * The API server's side of talking to kubelets (upstream's KubeletClientConfig
 * and NodeConnectionInfoGetter, pkg/kubelet/client):
 *
 *  1. It authenticates with its own client certificate
 *     (apiserver-kubelet-client.crt: kube-apiserver-kubelet-client,
 *     system:masters), which kubelets check against the cluster CA.
 *  2. It verifies the kubelet's serving certificate only when given a CA for
 *     it (kube-apiserver --kubelet-certificate-authority); without one it
 *     does not, as upstream does, since kubelets serve self-signed
 *     certificates by default.
 *  3. The node's address and port come from its status (api/kubelet-endpoint).
 *  4. A kubelet that cannot be reached is an error in Go's words
 *     (`Get "https://...": dial tcp ...: connect: connection refused`).
 *  5. Connections are kept alive; a GET that meets a reset on a reused one
 *     (the kubelet closed it idle just as the request went out) is sent again
 *     on another, as Go's transport does, instead of failing `kubectl logs`.
 */
import https from 'node:https';
import type { WebSocket } from 'ws';
import { ws as wsPackage } from '../../util/ws.js';
import { dialUpgrade, type UpgradeAnswer } from '../../util/upgrade-proxy.js';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Node } from 'kubernetes-types/core/v1.js';
import { kubeletEndpoint, type KubeletEndpoint } from '../../api/kubelet-endpoint.js';
import { StatusError } from '../../api/status.js';
import type { Registry } from '../../registry/registry.js';

export interface KubeletClientConfig {
  certPem: string;
  keyPem: string;
  /** --kubelet-certificate-authority: verify kubelets' serving certificates against it. */
  caPem?: string;
}

export interface KubeletClient {
  /** Where the node's kubelet listens; 404 when the node does not exist. */
  endpoint(nodeName: string): Promise<KubeletEndpoint>;
  request(target: KubeletTarget): Promise<IncomingMessage>;
  /**
   * A WebSocket to the kubelet (exec, attach) with the API server's client
   * certificate, offering `protocols`; resolves once open, paused. A refused
   * handshake rejects with the kubelet's status and body (KubeletRefusal).
   */
  webSocket(endpoint: KubeletEndpoint, path: string, protocols: string[]): Promise<WebSocket>;
  /**
   * A SPDY/3.1 upgrade of `path` on the kubelet, offering `protocols`
   * (X-Stream-Protocol-Version): the upgraded connection, or the kubelet's
   * refusal; a kubelet that cannot be reached rejects in Go's words.
   */
  upgradeSPDY(endpoint: KubeletEndpoint, path: string, protocols: string[]): Promise<UpgradeAnswer>;
  close(): void;
}

export interface KubeletTarget {
  endpoint: KubeletEndpoint;
  method: string;
  /** Path and query, e.g. /containerLogs/ns/pod/c?follow=true. */
  path: string;
  headers?: OutgoingHttpHeaders;
  body?: NodeJS.ReadableStream;
  insecureSkipTLSVerify?: boolean;
  /** Aborts the request (the client went away). */
  signal?: AbortSignal;
}

/** A Status with no reason: kubectl prints `Error from server: <message>`, as for upstream's untyped errors. */
export function unknownError(message: string, code = 500): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code });
}

const hostPort = (e: KubeletEndpoint) => `${e.host.includes(':') ? `[${e.host}]` : e.host}:${e.port}`;

/** Go's net/http error text for a failed round trip. */
export function roundTripError(method: string, url: string, e: KubeletEndpoint, err: NodeJS.ErrnoException): string {
  const verb = method.charAt(0) + method.slice(1).toLowerCase();
  const dial = `dial tcp ${hostPort(e)}`;
  const why = err.code === 'ECONNREFUSED' ? `${dial}: connect: connection refused`
    : err.code === 'ETIMEDOUT' ? `${dial}: i/o timeout`
      : err.code === 'EHOSTUNREACH' ? `${dial}: connect: no route to host`
        : err.message;
  return `${verb} ${JSON.stringify(url)}: ${why}`;
}

/** Methods Go's transport may send twice (net/http isReplayable, for requests without a body). */
const idempotent = (method: string) => ['GET', 'HEAD', 'OPTIONS', 'TRACE'].includes(method.toUpperCase());

/** The kubelet answered an upgrade with something other than 101. */
export class KubeletRefusal extends Error {
  constructor(readonly statusCode: number, readonly body: string, readonly contentType = 'text/plain; charset=utf-8') { super(body); }
}

export function createKubeletClient(registry: Registry, cfg: KubeletClientConfig): KubeletClient {
  const agentOpts = { keepAlive: true, maxSockets: 256, cert: cfg.certPem, key: cfg.keyPem, ALPNProtocols: ['http/1.1'] };
  const verifying = new https.Agent({ ...agentOpts, ca: cfg.caPem, rejectUnauthorized: !!cfg.caPem });
  const insecure = cfg.caPem ? new https.Agent({ ...agentOpts, rejectUnauthorized: false }) : verifying;
  return {
    async endpoint(nodeName) {
      const node: Node = await registry.store('', 'v1', 'nodes')!.get(undefined, nodeName);
      const ep = kubeletEndpoint(node);
      if ('error' in ep) throw unknownError(ep.error);
      return ep;
    },
    request(t) {
      const url = `https://${hostPort(t.endpoint)}${t.path}`;
      const attempt = (resolve: (res: IncomingMessage) => void, reject: (err: Error) => void): void => {
        let answered = false;
        const req = https.request(url, {
          method: t.method, headers: t.headers, agent: t.insecureSkipTLSVerify ? insecure : verifying, signal: t.signal,
          // A kubelet whose certificate names no address it is reached at is still the node's (upstream checks the CA only when it has one).
          checkServerIdentity: () => undefined,
        }, (res) => { answered = true; resolve(res); });
        req.on('error', (err: NodeJS.ErrnoException) => {
          if (err.name === 'AbortError') return reject(err);
          // A kept-alive connection the kubelet closed as this request went out on it: Go's transport sends an
          // idempotent request again on another connection (shouldRetryRequest); each stale one fails once, so this ends.
          if (!answered && req.reusedSocket && !t.body && idempotent(t.method) && !t.signal?.aborted) return attempt(resolve, reject);
          reject(unknownError(roundTripError(t.method, url, t.endpoint, err)));
        });
        if (t.body) t.body.pipe(req); else req.end();
      };
      return new Promise(attempt);
    },
    webSocket(endpoint, path, protocols) {
      const url = `wss://${hostPort(endpoint)}${path}`;
      const ws = new (wsPackage().WebSocket)(url, protocols, {
        cert: cfg.certPem, key: cfg.keyPem, ca: cfg.caPem, rejectUnauthorized: !!cfg.caPem, checkServerIdentity: (() => undefined) as unknown as () => boolean,
        perMessageDeflate: false, handshakeTimeout: 30_000,
      });
      return new Promise((resolve, reject) => {
        // Paused until the caller wires its listeners (bridgeWebSockets resumes it).
        ws.once('open', () => { ws.pause(); resolve(ws); });
        ws.once('unexpected-response', (_req, res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => { reject(new KubeletRefusal(res.statusCode ?? 500, Buffer.concat(chunks).toString(), res.headers['content-type'])); ws.terminate(); });
          res.on('error', () => reject(new KubeletRefusal(res.statusCode ?? 500, '')));
        });
        ws.once('error', (err: NodeJS.ErrnoException) => reject(unknownError(roundTripError('GET', url.replace(/^wss/, 'https'), endpoint, err))));
      });
    },
    async upgradeSPDY(endpoint, path, protocols) {
      const url = `https://${hostPort(endpoint)}${path}`;
      try {
        return await dialUpgrade(url, {
          method: 'POST',
          headers: { Connection: 'Upgrade', Upgrade: 'SPDY/3.1', ...(protocols.length ? { 'X-Stream-Protocol-Version': protocols } : {}) },
          tls: { cert: cfg.certPem, key: cfg.keyPem, ca: cfg.caPem, rejectUnauthorized: !!cfg.caPem, checkServerIdentity: () => undefined },
        });
      } catch (err) {
        throw unknownError(roundTripError('POST', url, endpoint, err as NodeJS.ErrnoException));
      }
    },
    close() {
      verifying.destroy();
      insecure.destroy();
    },
  };
}
