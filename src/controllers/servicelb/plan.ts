/**
 * The built-in service load balancer's decision (the k3s ServiceLB idea):
 * a Service of type LoadBalancer that names no other implementation
 * (spec.loadBalancerClass unset, as upstream's service controller requires
 * before it acts) is reachable on every node's address, where kube-proxy
 * answers for its ingress IPs, so its ingress is the nodes' InternalIPs
 * (ExternalIPs for nodes without one), sorted, with ipMode VIP: the address
 * is handled by kube-proxy on the node, as for a cloud VIP.
 */
import type { LoadBalancerIngress, Node, Service } from 'kubernetes-types/core/v1.js';

export const handlesService = (svc: Service) => svc.spec?.type === 'LoadBalancer' && !svc.spec.loadBalancerClass;

/** A node's address for load-balanced traffic: its first IPv4 InternalIP, else ExternalIP. */
function nodeAddress(node: Node): string | undefined {
  const addrs = node.status?.addresses ?? [];
  const v4 = (t: string) => addrs.find((a) => a.type === t && /^\d{1,3}(\.\d{1,3}){3}$/.test(a.address))?.address;
  return v4('InternalIP') ?? v4('ExternalIP');
}

/** The ingress a handled Service should carry; [] for one that is not (its status is left to others). */
export function desiredIngress(svc: Service, nodes: Node[]): LoadBalancerIngress[] {
  if (!handlesService(svc)) return [];
  const ips = [...new Set(nodes.filter((n) => !n.spec?.unschedulable).map(nodeAddress).filter((a): a is string => !!a))].sort();
  return ips.map((ip) => ({ ip, ipMode: 'VIP' }));
}

export const sameIngress = (a: LoadBalancerIngress[] = [], b: LoadBalancerIngress[] = []) =>
  a.length === b.length && a.every((x, i) => x.ip === b[i]!.ip && (x.ipMode ?? 'VIP') === (b[i]!.ipMode ?? 'VIP') && !x.hostname && !b[i]!.hostname);
