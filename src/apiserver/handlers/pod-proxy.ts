/**
 * pods/{id}/proxy/{path} and services/{id}/proxy/{path} (upstream's pod
 * and service ProxyREST): any of GET, HEAD, POST, PUT, PATCH, DELETE and
 * OPTIONS goes to the address the location resolver picks
 * (proxy/pod-location.ts, proxy/service-location.ts), straight from the API
 * server to the pod's IP as upstream dials it, and the answer comes back
 * streamed (proxy/transport.ts).
 *
 *  1. The id's form is checked first (400 `invalid pod request "x"` /
 *     `invalid service request "x"`), then the object is read (404).
 *  2. An address on a simulated node is reached through the node's
 *     kubelet port-forward when it serves a kubelet API (`k8ts up`), else
 *     refused at once (503; proxy/simulated.ts).
 * Authorization has already seen `pods/proxy` or `services/proxy` with the
 * method's verb (get, create, update, patch, delete) and the id as the name.
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { badRequest, methodNotAllowed, serviceUnavailable } from '../../api/status.js';
import { splitSchemeNamePort } from '../../api/scheme-name-port.js';
import type { ServiceResolverSources } from '../service-resolver.js';
import { podProxyTarget } from '../proxy/pod-location.js';
import { isGlobalUnicast } from '../../api/ip-address.js';
import { serviceProxyTarget } from '../proxy/service-location.js';
import { splitProxyPath } from '../proxy/path.js';
import { targetOnNode } from '../proxy/simulated.js';
import { forwardRequest, type ProxyAgents, type ProxyTarget } from '../proxy/transport.js';
import type { KubeletClient } from '../kubelet-client/client.js';
import type { HandlerContext } from './context.js';

export interface ProxyDeps {
  /** A node by name, from the watch-fed cache: is it simulated? */
  node(name: string): Node | undefined | Promise<Node | undefined>;
  /** The caches behind the server's ServiceResolver; without them services/proxy answers 503. */
  services?: ServiceResolverSources;
  /** Kept-alive connections to pods (a new connection a request without). */
  agents?: ProxyAgents;
  /** Reaches pods on simulated nodes through their kubelet's port-forward; without it they are refused. */
  kubelet?: KubeletClient;
}

const verbs = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export async function handleResourceProxy(ctx: HandlerContext, deps: ProxyDeps): Promise<void> {
  const { req } = ctx;
  let resolved: ResolvedProxy;
  try {
    if (!verbs.has(req.method ?? '')) throw methodNotAllowed();
    resolved = await resolveProxy(ctx, deps);
  } catch (e) {
    req.resume();
    throw e;
  }
  return forwardRequest({ req, res: ctx.res, target: resolved.target, path: resolved.path, search: ctx.url.search, prefix: resolved.prefix }, deps.agents);
}

export interface ResolvedProxy { target: ProxyTarget; prefix: string; path: string }

/** The target and the path below `proxy`; throws the StatusError the caller answers with. */
export async function resolveProxy(ctx: Pick<HandlerContext, 'info' | 'url' | 'store'>, deps: ProxyDeps): Promise<ResolvedProxy> {
  const where = splitProxyPath(ctx.url.pathname, ctx.info.apiPrefix ?? 'api');
  if (!where) throw badRequest(`not a proxy path: ${ctx.url.pathname}`);
  const target = ctx.info.resource === 'pods' ? await podTarget(ctx, deps) : await serviceTarget(ctx, deps);
  return { target, ...where };
}

async function podTarget(ctx: Pick<HandlerContext, 'info' | 'store'>, deps: ProxyDeps): Promise<ProxyTarget> {
  const id = splitSchemeNamePort(ctx.info.name!);
  if (!id) throw badRequest(`invalid pod request ${JSON.stringify(ctx.info.name)}`);
  const pod: Pod = await ctx.store.get(ctx.info.namespace, id.name);
  const target = podProxyTarget(pod, id);
  const nodeName = pod.spec?.nodeName;
  if (!nodeName) return target;
  return targetOnNode(await deps.node(nodeName), target, { namespace: pod.metadata!.namespace!, name: pod.metadata!.name }, deps.kubelet);
}

async function serviceTarget(ctx: Pick<HandlerContext, 'info'>, deps: ProxyDeps): Promise<ProxyTarget> {
  const id = splitSchemeNamePort(ctx.info.name!);
  if (!id) throw badRequest(`invalid service request ${JSON.stringify(ctx.info.name)}`);
  if (!deps.services) throw serviceUnavailable('this API server has no service endpoint cache');
  const target = serviceProxyTarget(deps.services, ctx.info.namespace!, id, ctx.info.name!);
  const reached = target.nodeName ? targetOnNode(await deps.node(target.nodeName), target, { namespace: ctx.info.namespace!, name: target.podName }, deps.kubelet) : target;
  // Dialled directly, an address that is not global unicast (this server's loopback) is never reached.
  if (!reached.dial && !isGlobalUnicast(reached.host)) throw serviceUnavailable(`no endpoints available for service "${ctx.info.name}"`);
  return reached;
}
