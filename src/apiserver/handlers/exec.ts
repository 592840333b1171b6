/**
 * pods/exec and pods/attach (upstream's ExecREST/AttachREST with
 * pod.ExecLocation/AttachLocation and the upgrade-aware proxy), for the
 * WebSocket clients kubectl 1.30+ are (`v5.channel.k8s.io`):
 *
 *  1. The pod must exist (404); the container is the one named, or the
 *     only one (400 in upstream's words otherwise, as for logs); a pod on
 *     no node: 400 `pod x does not have a host assigned`.
 *  2. Only WebSocket upgrades are served. A SPDY upgrade (kubectl's fallback
 *     when the WebSocket handshake fails) gets a 400 after the same checks,
 *     so kubectl shows the real reason the first attempt failed.
 *  3. The API server opens a WebSocket to the node's kubelet
 *     (/exec/{ns}/{pod}/{container}?command=..&input=1&output=1&error=1&tty=1,
 *     upstream's streamParams names) with its kubelet client certificate,
 *     offering the client's subprotocols; a kubelet refusal becomes a Status
 *     as for logs (kubelet-client/response.ts).
 *  4. Then it accepts the client's upgrade with the protocol the kubelet
 *     chose, and frames pass both ways unchanged until either side closes.
 * Errors before the upgrade are answered as ordinary HTTP Status replies.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { badRequest, StatusError } from '../../api/status.js';
import { streamContainer } from '../../api/podlogs.js';
import type { Store } from '../../registry/store.js';
import type { Logger } from '../../util/log.js';
import { bridgeWebSockets } from '../../util/ws-bridge.js';
import { KubeletRefusal, type KubeletClient } from '../kubelet-client/client.js';
import { kubeletErrorStatus } from '../kubelet-client/response.js';
import type { RequestInfo } from '../request-info.js';
import { isWebSocketRequest } from '../auth/bearer.js';

const truthy = (v: string | null) => v !== null && ['true', '1', 'True'].includes(v);

/** PodExecOptions/PodAttachOptions in the kubelet's query names (upstream's streamParams). */
export function kubeletStreamQuery(q: URLSearchParams, exec: boolean): URLSearchParams {
  const out = new URLSearchParams();
  if (exec) for (const c of q.getAll('command')) out.append('command', c);
  if (truthy(q.get('stdin'))) out.set('input', '1');
  if (truthy(q.get('stdout'))) out.set('output', '1');
  if (truthy(q.get('stderr'))) out.set('error', '1');
  if (truthy(q.get('tty'))) out.set('tty', '1');
  return out;
}

export interface PodStreamContext {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  url: URL;
  info: RequestInfo;
  store: Store;
  kubelet: KubeletClient;
  logger: Logger;
}

/**
 * Serves one exec/attach upgrade; resolves once the client is upgraded and
 * bridged, rejects (a StatusError) when it must be answered with an error.
 */
export async function handlePodStream(ctx: PodStreamContext): Promise<void> {
  const { info, url, req } = ctx;
  const sub = info.subresource as 'exec' | 'attach';
  const name = info.name!;
  if (req.method !== 'GET' && req.method !== 'POST') throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'MethodNotAllowed', code: 405, message: `the server does not allow this method on the requested resource`, details: {} });
  const pod: Pod = await ctx.store.get(info.namespace, name);
  const container = streamContainer(pod, url.searchParams.get('container') ?? undefined);
  const nodeName = pod.spec?.nodeName;
  if (!nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
  if (!isWebSocketRequest(req)) throw badRequest(`pods/${sub} is served over WebSocket only (v5.channel.k8s.io); SPDY is not supported`);
  const protocols = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (!protocols.length) throw badRequest('no WebSocket subprotocol offered: expected v5.channel.k8s.io');
  const endpoint = await ctx.kubelet.endpoint(nodeName);
  const query = kubeletStreamQuery(url.searchParams, sub === 'exec').toString();
  const path = `/${sub}/${encodeURIComponent(pod.metadata!.namespace!)}/${encodeURIComponent(name)}/${encodeURIComponent(container)}${query ? `?${query}` : ''}`;
  let upstream;
  try {
    upstream = await ctx.kubelet.webSocket(endpoint, path, protocols);
  } catch (e) {
    if (e instanceof KubeletRefusal) throw kubeletErrorStatus(e.statusCode, e.body, `pods/${sub}`, name);
    throw e;
  }
  if (ctx.socket.destroyed) { upstream.terminate(); return; }
  const chosen = upstream.protocol;
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, clientTracking: false, handleProtocols: () => chosen || false });
  upstream.on('error', (e) => ctx.logger.debug('kubelet stream failed', { pod: `${info.namespace}/${name}`, err: e.message }));
  wss.handleUpgrade(req, ctx.socket, ctx.head, (client) => {
    client.on('error', (e) => ctx.logger.debug('client stream failed', { pod: `${info.namespace}/${name}`, err: e.message }));
    bridgeWebSockets(client, upstream);
  });
}
