/**
 * pods/exec and pods/attach (upstream's ExecREST/AttachREST with
 * pod.ExecLocation/AttachLocation and the upgrade-aware proxy), for the
 * WebSocket clients kubectl 1.30+ are (`v5.channel.k8s.io`):
 *
 *  1. The pod must exist (404); the container is the one named, or the
 *     only one (400 in upstream's words otherwise, as for logs); a pod on
 *     no node: 400 `pod x does not have a host assigned`.
 *  2. A SPDY/3.1 upgrade (clients without WebSocket, and kubectl's fallback
 *     when the WebSocket handshake fails) goes on to the kubelet as a SPDY
 *     upgrade with the client's X-Stream-Protocol-Version list; after the
 *     kubelet's 101 bytes pass unchanged both ways (upstream's
 *     UpgradeAwareHandler).
 *  3. For a WebSocket, the API server opens a WebSocket to the node's kubelet
 *     (/exec/{ns}/{pod}/{container}?command=..&input=1&output=1&error=1&tty=1,
 *     upstream's streamParams names) with its kubelet client certificate,
 *     offering the client's subprotocols.
 *  4. Then it accepts the client's upgrade with the protocol the kubelet
 *     chose, and frames pass both ways unchanged until either side closes.
 *  A kubelet's refusal (a container that has exited, say) is answered as
 *  upstream's: on a v5 caller's error channel, else as the kubelet wrote it
 *  (stream-refusal.ts). Errors before the kubelet is asked are ordinary HTTP
 *  Status replies.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { ws } from '../../util/ws.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { badRequest, StatusError } from '../../api/status.js';
import { streamContainer } from '../../api/podlogs.js';
import type { Store } from '../../registry/store.js';
import type { Logger } from '../../util/log.js';
import { bridgeWebSockets } from '../../util/ws-bridge.js';
import { KubeletRefusal, type KubeletClient } from '../kubelet-client/client.js';
import { answerRefusal } from './stream-refusal.js';
import type { RequestInfo } from '../request-info.js';
import { isWebSocketRequest } from '../auth/bearer.js';
import { spliceUpgrade } from '../../util/upgrade-proxy.js';
import type { KubeletEndpoint } from '../../api/kubelet-endpoint.js';

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
 * Serves one exec/attach upgrade; resolves with the HTTP status the client
 * got (101, or the kubelet's refusal passed on), rejects (a StatusError)
 * when it must be answered with an error.
 */
export async function handlePodStream(ctx: PodStreamContext): Promise<number> {
  const { info, url, req } = ctx;
  const sub = info.subresource as 'exec' | 'attach';
  const name = info.name!;
  if (req.method !== 'GET' && req.method !== 'POST') throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'MethodNotAllowed', code: 405, message: `the server does not allow this method on the requested resource`, details: {} });
  const pod: Pod = await ctx.store.get(info.namespace, name);
  const container = streamContainer(pod, url.searchParams.get('container') ?? undefined);
  const nodeName = pod.spec?.nodeName;
  if (!nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
  const query = kubeletStreamQuery(url.searchParams, sub === 'exec').toString();
  const path = `/${sub}/${encodeURIComponent(pod.metadata!.namespace!)}/${encodeURIComponent(name)}/${encodeURIComponent(container)}${query ? `?${query}` : ''}`;
  if (isSPDYRequest(req)) return proxySPDYToKubelet(ctx, nodeName, path);
  if (!isWebSocketRequest(req)) throw badRequest(`unable to upgrade: pods/${sub} needs a WebSocket or SPDY/3.1 upgrade`);
  const protocols = offeredProtocols(req);
  if (!protocols.length) throw badRequest('no WebSocket subprotocol offered: expected v5.channel.k8s.io');
  const endpoint = await ctx.kubelet.endpoint(nodeName);
  return proxyWebSocketToKubelet(ctx, endpoint, path, protocols);
}

export const offeredProtocols = (req: IncomingMessage): string[] => String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);

export const isSPDYRequest = (req: IncomingMessage): boolean => (req.headers.upgrade ?? '').toLowerCase().startsWith('spdy/');

/** The client's X-Stream-Protocol-Version list (one header or several, comma-separated). */
export function streamProtocolVersions(req: IncomingMessage): string[] {
  const raw = req.headersDistinct['x-stream-protocol-version'] ?? [];
  return raw.flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
}

const ttyRequested = (ctx: PodStreamContext) => truthy(ctx.url.searchParams.get('tty'));

/** SPDY end to end: the kubelet's 101 (or refusal) answers the client, then bytes pass unchanged. */
export async function proxySPDYToKubelet(ctx: PodStreamContext, nodeName: string, path: string): Promise<number> {
  const endpoint = await ctx.kubelet.endpoint(nodeName);
  const answer = await ctx.kubelet.upgradeSPDY(endpoint, path, streamProtocolVersions(ctx.req));
  if (!answer.upgraded) {
    answerRefusal({ ...ctx, protocols: [], tty: ttyRequested(ctx) }, new KubeletRefusal(answer.statusCode, answer.body, answer.headers['content-type']));
    return answer.statusCode;
  }
  if (ctx.socket.destroyed) { answer.socket.destroy(); return 101; }
  spliceUpgrade(ctx.socket, ctx.head, answer);
  return 101;
}

/** A WebSocket to the kubelet offering the client's protocols; the client is accepted with the kubelet's choice. */
export async function proxyWebSocketToKubelet(ctx: PodStreamContext, endpoint: KubeletEndpoint, path: string, protocols: string[]): Promise<number> {
  const pod = `${ctx.info.namespace}/${ctx.info.name}`;
  let upstream;
  try {
    upstream = await ctx.kubelet.webSocket(endpoint, path, protocols);
  } catch (e) {
    if (!(e instanceof KubeletRefusal)) throw e;
    answerRefusal({ ...ctx, protocols, tty: ttyRequested(ctx) }, e);
    return protocols.includes('v5.channel.k8s.io') ? 101 : e.statusCode;
  }
  if (ctx.socket.destroyed) { upstream.terminate(); return 101; }
  const chosen = upstream.protocol;
  const wss = new (ws().WebSocketServer)({ noServer: true, perMessageDeflate: false, clientTracking: false, handleProtocols: () => chosen || false });
  upstream.on('error', (e) => ctx.logger.debug('kubelet stream failed', { pod, err: e.message }));
  wss.handleUpgrade(ctx.req, ctx.socket, ctx.head, (client) => {
    client.on('error', (e) => ctx.logger.debug('client stream failed', { pod, err: e.message }));
    bridgeWebSockets(client, upstream);
  });
  return 101;
}
