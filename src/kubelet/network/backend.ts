/**
 * Which way a node reaches another node's pods (flannel's two main backends):
 *
 *  1. host-gw: a route to the peer's podCIDR via the peer's InternalIP. It
 *     works only when that address is on a directly connected subnet (the
 *     kernel's route to it has no gateway), as flannel's host-gw requires.
 *  2. vxlan: the peer's podCIDR through the overlay device, onlink via the
 *     peer's VTEP address, with a permanent neighbour entry (VTEP address →
 *     the peer's VTEP MAC) and an fdb entry (that MAC → the peer's InternalIP).
 *     It needs the peer's MAC from its Node annotation.
 *  3. auto: host-gw where the peer is directly connected, vxlan otherwise
 *     (flannel's vxlan backend with DirectRouting).
 *
 * A peer without a podCIDR or an InternalIP gets no route (it has no pods
 * yet); a peer that needs vxlan but has not published its MAC waits for it.
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import { parseIPv4CIDR, vtepAddressOf, formatCIDR } from './cidr.js';

export type PodNetworkBackend = 'host-gw' | 'vxlan' | 'auto';
export const podNetworkBackends: readonly PodNetworkBackend[] = ['host-gw', 'vxlan', 'auto'];

/** Flannel's annotations, under k8ts's prefix (a real flannel on the same cluster must not read them as its own). */
export const backendDataAnnotation = 'podnet.k8ts.io/backend-data';
export const backendTypeAnnotation = 'podnet.k8ts.io/backend-type';
export const publicIPAnnotation = 'podnet.k8ts.io/public-ip';

export type PeerRoute =
  | { kind: 'host-gw'; node: string; dst: string; via: string }
  | { kind: 'vxlan'; node: string; dst: string; vtep: string; mac: string; nodeIP: string };

export interface RoutePlan { routes: PeerRoute[]; waiting: { node: string; reason: string }[] }

export const podCIDROf = (n: Node): string | undefined => n.spec?.podCIDRs?.[0] ?? n.spec?.podCIDR;
export const internalIPOf = (n: Node): string | undefined => n.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;

/** The peer's VTEP MAC from flannel's backend-data JSON ({"VNI":1,"VtepMAC":"..."}). */
export function vtepMACOf(n: Node): string | undefined {
  const raw = n.metadata?.annotations?.[backendDataAnnotation];
  if (!raw) return undefined;
  try {
    const mac = (JSON.parse(raw) as { VtepMAC?: unknown }).VtepMAC;
    return typeof mac === 'string' && /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i.test(mac) ? mac.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

export function planPeerRoutes(selfName: string, nodes: Node[], backend: PodNetworkBackend, directlyConnected: (ip: string) => boolean): RoutePlan {
  const plan: RoutePlan = { routes: [], waiting: [] };
  for (const n of nodes) {
    const name = n.metadata?.name ?? '';
    if (name === selfName) continue;
    const cidr = parseIPv4CIDR(podCIDROf(n) ?? '');
    const ip = internalIPOf(n);
    if (!cidr || !ip) continue;
    const dst = formatCIDR(cidr);
    const direct = directlyConnected(ip);
    if (backend === 'host-gw' || (backend === 'auto' && direct)) {
      if (direct) plan.routes.push({ kind: 'host-gw', node: name, dst, via: ip });
      else plan.waiting.push({ node: name, reason: `host-gw: ${ip} is not on a directly connected network (use --pod-network-backend vxlan or auto)` });
      continue;
    }
    const mac = vtepMACOf(n);
    if (mac) plan.routes.push({ kind: 'vxlan', node: name, dst, vtep: vtepAddressOf(cidr), mac, nodeIP: ip });
    else plan.waiting.push({ node: name, reason: `vxlan: the node has not published its VTEP MAC (${backendDataAnnotation})` });
  }
  return plan;
}

/** What this node has published of its overlay endpoint (part of the sync key: a lost annotation is written again). */
export const vxlanPublished = (self: Node, nodeIP: string): string =>
  `${self.metadata?.annotations?.[backendDataAnnotation] ?? ''} ${self.metadata?.annotations?.[publicIPAnnotation] === nodeIP}`;
