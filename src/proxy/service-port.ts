/**
 * What kube-proxy programs for one port of one Service: its addresses and
 * the endpoints chosen for it, built from the Service and its EndpointSlices
 * (upstream pkg/proxy/serviceport.go, endpoints.go and topology.go's
 * CategorizeEndpoints). Pure functions: no I/O, so the rules are a function
 * of this value alone.
 */
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { servicePortNameBase } from './names.js';

export interface ProxyEndpoint {
  ip: string;
  port: number;
  /** On this node (endpoint.nodeName equals the proxy's hostname). */
  local: boolean;
}

export interface ServicePortInfo {
  /** "ns/name/proto/portname": the key of every chain, set and map element of this port. */
  spn: string;
  protocol: 'tcp' | 'udp' | 'sctp';
  port: number;
  nodePort?: number;
  clusterIP?: string;
  externalIPs: string[];
  loadBalancerIPs: string[];
  /** sessionAffinity ClientIP: seconds an address sticks to its endpoint (default 10800). */
  affinitySeconds?: number;
  internalLocal: boolean;
  externalLocal: boolean;
  /** The endpoints for traffic with the Cluster policy: ready ones, else serving terminating ones. */
  clusterEndpoints: ProxyEndpoint[];
  /** The same choice among this node's endpoints, for the Local policies. */
  localEndpoints: ProxyEndpoint[];
  /**
   * "ip:port" of every serving endpoint, on any node, ready or terminating:
   * the set upstream's UDP conntrack cleanup compares (traffic policies and
   * terminating state do not end a flow; an endpoint that stops serving does).
   */
  servingEndpoints: string[];
}

const isIPv4 = (s: string | undefined): s is string => !!s && /^\d{1,3}(\.\d{1,3}){3}$/.test(s);

interface Candidate extends ProxyEndpoint { ready: boolean; serving: boolean; terminating: boolean }

/**
 * The endpoints of one service port across its slices, de-duplicated by
 * address and port. Conditions follow the EndpointSlice API: a nil `ready`
 * means ready, a nil `serving` means the same as `ready`, a nil
 * `terminating` means not terminating.
 */
function candidates(slices: EndpointSlice[], portName: string, protocol: string, hostname: string): Candidate[] {
  const seen = new Map<string, Candidate>();
  for (const slice of slices) {
    if (slice.addressType !== 'IPv4') continue;
    const p = (slice.ports ?? []).find((sp) => (sp.name ?? '') === portName && (sp.protocol ?? 'TCP') === protocol);
    if (!p?.port) continue;
    for (const ep of slice.endpoints ?? []) {
      const ip = ep.addresses?.[0];
      if (!isIPv4(ip)) continue;
      const ready = ep.conditions?.ready !== false;
      const c: Candidate = {
        ip, port: p.port, local: !!hostname && ep.nodeName === hostname,
        ready, serving: ep.conditions?.serving ?? ready, terminating: ep.conditions?.terminating === true,
      };
      seen.set(`${ip}:${p.port}`, c);
    }
  }
  return [...seen.values()].sort((a, b) => (a.ip === b.ip ? a.port - b.port : a.ip < b.ip ? -1 : 1));
}

/**
 * CategorizeEndpoints' rule: use the ready endpoints; when none is ready,
 * fall back to those still serving while terminating (KEP-1669), so a
 * rolling update that leaves only terminating pods does not drop traffic.
 */
function usable(eps: Candidate[]): ProxyEndpoint[] {
  const ready = eps.filter((e) => e.ready);
  const chosen = ready.length ? ready : eps.filter((e) => e.serving && e.terminating);
  return chosen.map(({ ip, port, local }) => ({ ip, port, local }));
}

/** Whether kube-proxy handles this Service at all: not headless, not ExternalName. */
function proxied(svc: Service): boolean {
  const t = svc.spec?.type ?? 'ClusterIP';
  if (t === 'ExternalName') return false;
  return isIPv4(svc.spec?.clusterIP);
}

/** The ServicePortInfo of each port of `svc` (empty for Services kube-proxy ignores). */
export function servicePorts(svc: Service, slices: EndpointSlice[], hostname: string): ServicePortInfo[] {
  if (!proxied(svc)) return [];
  const spec = svc.spec!;
  const ns = svc.metadata?.namespace ?? 'default';
  const name = svc.metadata?.name ?? '';
  const lb = spec.type === 'LoadBalancer'
    ? (svc.status?.loadBalancer?.ingress ?? []).map((i) => i.ip).filter(isIPv4) : [];
  const affinity = spec.sessionAffinity === 'ClientIP'
    ? spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? 10800 : undefined;
  const external = (spec.type === 'NodePort' || spec.type === 'LoadBalancer');
  return (spec.ports ?? []).map((p) => {
    const protocol = p.protocol ?? 'TCP';
    const all = candidates(slices, p.name ?? '', protocol, hostname);
    return {
      spn: servicePortNameBase(ns, name, protocol, p.name ?? ''),
      protocol: protocol.toLowerCase() as ServicePortInfo['protocol'],
      port: p.port,
      nodePort: external && p.nodePort ? p.nodePort : undefined,
      clusterIP: spec.clusterIP,
      externalIPs: (spec.externalIPs ?? []).filter(isIPv4),
      loadBalancerIPs: lb,
      affinitySeconds: affinity,
      internalLocal: spec.internalTrafficPolicy === 'Local',
      // Upstream: ExternalPolicyForExternalIP applies Local to node ports, external IPs and LB IPs alike.
      externalLocal: spec.externalTrafficPolicy === 'Local' && (external || (spec.externalIPs ?? []).length > 0),
      clusterEndpoints: usable(all),
      localEndpoints: usable(all.filter((e) => e.local)),
      servingEndpoints: all.filter((e) => e.serving).map((e) => `${e.ip}:${e.port}`),
    };
  });
}
