/**
 * pods/portforward (upstream's PortForwardREST with pod.PortForwardLocation,
 * the upgrade-aware proxy and, since 1.30, the WebSocket tunneling handler),
 * proxied to the node's kubelet (/portForward/{namespace}/{pod}):
 *
 *  1. The pod must exist (404) and be bound to a node (400 `pod x does not
 *     have a host assigned`).
 *  2. SPDY/3.1 (X-Stream-Protocol-Version: portforward.k8s.io, kubectl's
 *     fallback): passed on to the kubelet and joined byte for byte; a
 *     refusal goes back as the kubelet wrote it (upstream's
 *     UpgradeAwareHandler), so kubectl says `unable to upgrade connection:
 *     <the kubelet's words>`.
 *  3. WebSocket offering `SPDY/3.1+portforward.k8s.io` (kubectl 1.31+): SPDY
 *     tunneled through WebSocket. The API server makes the SPDY upgrade to
 *     the kubelet with the protocols after the `SPDY/3.1+` prefix; on its
 *     101 it accepts the client with `SPDY/3.1+<the kubelet's choice>` and
 *     carries the SPDY bytes in binary messages both ways (upstream's
 *     streamtunnel.go). A refusal answers the handshake as a Status, so
 *     kubectl falls back to SPDY and shows that error.
 *  4. Any other WebSocket (e.g. @kubernetes/client-node's
 *     v4.channel.k8s.io): `?ports=` becomes the kubelet's `?port=` (upstream
 *     streamParams), and frames pass both ways; a refusal goes back as the
 *     kubelet wrote it, as in 2.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { ws } from '../../util/ws.js';
import { badRequest, StatusError } from '../../api/status.js';
import { tunnelWebSocket } from '../../util/ws-tunnel.js';
import { kubeletErrorStatus } from '../kubelet-client/response.js';
import { isWebSocketRequest } from '../auth/bearer.js';
import { isSPDYRequest, offeredProtocols, proxySPDYToKubelet, proxyWebSocketToKubelet, type PodStreamContext } from './exec.js';

export const spdyTunnelPrefix = 'SPDY/3.1+';

/** The SPDY protocols a tunneling client offers: its `SPDY/3.1+*.k8s.io` subprotocols without the prefix. */
export function tunneledSPDYProtocols(protocols: string[]): string[] {
  return protocols.filter((p) => p.startsWith(spdyTunnelPrefix) && p.endsWith('.k8s.io')).map((p) => p.slice(spdyTunnelPrefix.length));
}

/** PodPortForwardOptions in the kubelet's query: every `ports` value as `port`. */
export function kubeletPortForwardQuery(q: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const p of q.getAll('ports')) for (const one of p.split(',')) if (one.trim()) out.append('port', one.trim());
  return out;
}

export async function handlePortForward(ctx: PodStreamContext): Promise<number> {
  const { info, req } = ctx;
  const name = info.name!;
  if (req.method !== 'GET' && req.method !== 'POST') throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'MethodNotAllowed', code: 405, message: 'the server does not allow this method on the requested resource', details: {} });
  const pod: Pod = await ctx.store.get(info.namespace, name);
  const nodeName = pod.spec?.nodeName;
  if (!nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
  const base = `/portForward/${encodeURIComponent(pod.metadata!.namespace!)}/${encodeURIComponent(name)}`;
  if (isSPDYRequest(req)) return proxySPDYToKubelet(ctx, nodeName, base);
  if (!isWebSocketRequest(req)) throw badRequest('unable to upgrade: pods/portforward needs a WebSocket or SPDY/3.1 upgrade');
  const protocols = offeredProtocols(req);
  const tunneled = tunneledSPDYProtocols(protocols);
  if (tunneled.length) return tunnelSPDY(ctx, nodeName, base, tunneled);
  const query = kubeletPortForwardQuery(ctx.url.searchParams).toString();
  return proxyWebSocketToKubelet(ctx, await ctx.kubelet.endpoint(nodeName), `${base}${query ? `?${query}` : ''}`, protocols);
}

async function tunnelSPDY(ctx: PodStreamContext, nodeName: string, path: string, protocols: string[]): Promise<number> {
  const endpoint = await ctx.kubelet.endpoint(nodeName);
  const answer = await ctx.kubelet.upgradeSPDY(endpoint, path, protocols);
  if (!answer.upgraded) throw kubeletErrorStatus(answer.statusCode, answer.body, 'pods/portforward', ctx.info.name!);
  if (ctx.socket.destroyed) { answer.socket.destroy(); return 101; }
  const chosen = String(answer.res.headers['x-stream-protocol-version'] ?? '').trim();
  // `SPDY/3.1+...` is no RFC 7230 token, which ws refuses to parse: the
  // header is taken out of its sight and the answer's protocol added back.
  delete ctx.req.headers['sec-websocket-protocol'];
  const wss = new (ws().WebSocketServer)({ noServer: true, perMessageDeflate: false, clientTracking: false });
  if (chosen) wss.on('headers', (headers) => { headers.push(`Sec-WebSocket-Protocol: ${spdyTunnelPrefix}${chosen}`); });
  wss.handleUpgrade(ctx.req, ctx.socket, ctx.head, (client) => {
    if (answer.head.length) client.send(answer.head, { binary: true });
    tunnelWebSocket(client, answer.socket);
  });
  return 101;
}

