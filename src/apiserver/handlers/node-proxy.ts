/**
 * nodes/{name}/proxy/{path} (upstream's node ProxyREST and ResourceLocation):
 * the request, any method, goes to the node's kubelet at /{path} with its
 * query, and the kubelet's answer comes back as it is (status, headers,
 * body, streamed).
 *
 *  1. The name may carry a scheme and a port (`https:node:10250`). Without a
 *     port, or with the kubelet's, the request goes to the kubelet with the
 *     API server's kubelet client certificate.
 *  2. Another port is reached without credentials, and only on an address
 *     that may be proxied to: never loopback or link-local (upstream's
 *     IsProxyableHostname, 400 "address not allowed").
 *  3. A node that cannot be reached: 500 "error trying to reach service: ...".
 * Upgrades (websockets, SPDY) are not proxied yet.
 */
import { isIP } from 'node:net';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { badRequest, StatusError } from '../../api/status.js';
import { unknownError, type KubeletClient } from '../kubelet-client/client.js';
import type { HandlerContext } from './context.js';
import { splitSchemeNamePort } from '../../api/scheme-name-port.js';
import { ipClass, type IPClass } from '../../api/ip-address.js';

/** Hop-by-hop headers (RFC 7230 §6.1) and the caller's credentials stay behind. */
const dropped = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'authorization', 'host', 'content-length']);

function forwardHeaders(h: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(h)) if (!dropped.has(k) && v !== undefined) out[k] = v;
  if (h['content-length'] !== undefined) out['content-length'] = h['content-length'];
  return out;
}

/** Upstream's IsProxyableIP, on the address's value (api/ip-address.ts): `0::1` is the loopback as `::1` is. */
const notProxyable = new Set<IPClass | undefined>(['unspecified', 'loopback', 'link-local', 'link-local-multicast', 'interface-local-multicast']);

function isProxyable(host: string): boolean {
  return !isIP(host) || !notProxyable.has(ipClass(host));
}

export async function handleNodeProxy(ctx: HandlerContext, kubelet: KubeletClient): Promise<void> {
  const { req, res, info } = ctx;
  const id = splitSchemeNamePort(info.name!);
  if (!id) { req.resume(); throw badRequest(`invalid node request ${JSON.stringify(info.name)}`); }
  let endpoint;
  try {
    endpoint = await kubelet.endpoint(id.name);
  } catch (e) { req.resume(); throw e; }
  const otherPort = id.port !== '' && id.port !== String(endpoint.port);
  if (otherPort) {
    req.resume();
    if (!isProxyable(endpoint.host)) throw badRequest('address not allowed');
    throw badRequest(`proxying to port ${id.port} of node ${id.name} is not supported yet`);
  }
  const rest = ctx.url.pathname.split('/').slice(info.apiPrefix === 'api' ? 6 : 7).join('/');
  const path = `/${rest}${ctx.url.search}`;
  const abort = new AbortController();
  res.once('close', () => abort.abort());
  let upstream;
  try {
    upstream = await kubelet.request({ endpoint, method: req.method ?? 'GET', path, headers: forwardHeaders(req.headers), body: req, signal: abort.signal });
  } catch (e) {
    if (abort.signal.aborted) return;
    if (e instanceof StatusError && e.status.reason === undefined) throw unknownError(`error trying to reach service: ${e.message.replace(/^\w+ "[^"]*": /, '')}`);
    throw e;
  }
  const headers: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(upstream.headers)) if (!dropped.has(k) && v !== undefined) headers[k] = v as string | string[];
  if (upstream.headers['content-length'] !== undefined) headers['content-length'] = upstream.headers['content-length'];
  res.writeHead(upstream.statusCode ?? 502, headers);
  upstream.on('error', () => res.destroy());
  upstream.pipe(res);
}
