/**
 * Where services/{id}/proxy goes (upstream's service REST.ResourceLocation,
 * pkg/registry/core/service/storage/storage.go), read from the watch-fed
 * caches behind the server's ServiceResolver:
 *
 *  1. The id is `name`, `name:port`, `scheme:name:port` (400 `invalid
 *     service request "x"` otherwise). No scheme: http.
 *  2. The Service must exist (404). A port number names the Service port
 *     with that number (503 `no service port N found for service "x"` when
 *     none has it); a port name or no port is taken as the port's name.
 *  3. The candidates are the ready endpoints (EndpointSlices labelled
 *     kubernetes.io/service-name; the Endpoints object when there is no
 *     slice). None at all: 503 `no endpoints available for service "x"`.
 *  4. One of those that serve the port's name, at random, on the endpoint's
 *     port (the target port), whose address is global unicast (never the
 *     API server's loopback or a link-local address); none: 503 `no
 *     endpoints available for service "ID"` (upstream names the whole id
 *     there).
 * Upstream reads the Endpoints object only, and 404s `endpoints "x" not
 * found` for a Service that never had one; k8ts prefers EndpointSlices, as
 * kube-proxy does, and names the missing Service.
 */
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { notFound, serviceUnavailable } from '../../api/status.js';
import { isGlobalUnicast } from '../../api/ip-address.js';
import type { SchemeNamePort } from '../../api/scheme-name-port.js';
import type { ServiceResolverSources } from '../service-resolver.js';
import type { ProxyTarget } from './transport.js';

/** One endpoint address and port; the pod behind it (targetRef) when the endpoint names one. */
export interface ServiceEndpoint { ip: string; port: number; portName: string; nodeName?: string; podName?: string }

const podOf = (ref: { kind?: string; name?: string } | undefined) => (ref?.kind === 'Pod' ? ref.name : undefined);

const serviceNameLabel = 'kubernetes.io/service-name';

export function serviceProxyTarget(sources: ServiceResolverSources, namespace: string, id: SchemeNamePort, rawId: string, random: () => number = Math.random): ProxyTarget & { nodeName?: string; podName?: string } {
  const svc = sources.service(namespace, id.name);
  if (!svc) throw notFound({ group: '', resource: 'services' }, id.name);
  let portName = id.port;
  if (/^\d+$/.test(id.port)) {
    const svcPort = (svc.spec?.ports ?? []).find((p) => p.port === Number(id.port));
    if (!svcPort) throw serviceUnavailable(`no service port ${id.port} found for service "${id.name}"`);
    portName = svcPort.name ?? '';
  }
  const all = readyEndpoints(sources, namespace, id.name);
  if (!all.length) throw serviceUnavailable(`no endpoints available for service "${id.name}"`);
  // Upstream proxies only to an Endpoints address, which validation keeps off loopback and
  // link-local; an EndpointSlice can still name one, so such an endpoint is skipped here, unless
  // it names its pod and node: on a simulated node (a hostNetwork pod has the node's 127.0.0.1)
  // it is reached through the kubelet's port-forward, and dialled directly it is refused by the
  // caller (handlers/pod-proxy.ts).
  const serving = all.filter((e) => e.portName === portName && (isGlobalUnicast(e.ip) || (e.nodeName !== undefined && e.podName !== undefined)));
  if (!serving.length) throw serviceUnavailable(`no endpoints available for service "${rawId}"`);
  const pick = serving[Math.floor(random() * serving.length)]!;
  return { scheme: id.scheme || 'http', host: pick.ip, port: pick.port, nodeName: pick.nodeName, podName: pick.podName };
}

/** Every (address, port) of the Service's ready endpoints. */
export function readyEndpoints(sources: ServiceResolverSources, namespace: string, name: string): ServiceEndpoint[] {
  const out: ServiceEndpoint[] = [];
  let sliced = false;
  for (const slice of sources.endpointSlices(namespace)) {
    if (slice.metadata?.labels?.[serviceNameLabel] !== name || slice.addressType === 'FQDN') continue;
    sliced = true;
    appendSlice(out, slice);
  }
  if (sliced) return out;
  for (const subset of sources.endpoints(namespace, name)?.subsets ?? []) {
    for (const p of subset.ports ?? []) {
      for (const a of subset.addresses ?? []) out.push({ ip: a.ip, port: p.port, portName: p.name ?? '', nodeName: a.nodeName, podName: podOf(a.targetRef) });
    }
  }
  return out;
}

function appendSlice(out: ServiceEndpoint[], slice: EndpointSlice): void {
  for (const ep of slice.endpoints) {
    // An unknown readiness counts as ready (EndpointConditions.ready).
    if (ep.conditions?.ready === false) continue;
    for (const p of slice.ports ?? []) {
      if (p.port === undefined) continue;
      for (const ip of ep.addresses) out.push({ ip, port: p.port, portName: p.name ?? '', nodeName: ep.nodeName, podName: podOf(ep.targetRef) });
    }
  }
}
