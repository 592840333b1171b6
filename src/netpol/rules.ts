/**
 * One NetworkPolicy direction as nft rules (the body of its policy chain).
 * A rule of the policy allows a packet when one of its peers AND one of its
 * ports match (NetworkPolicyIngressRule/EgressRule):
 *  1. `from`/`to` absent or empty: every peer; `ports` absent or empty: every port.
 *  2. Peers are addresses: pods by selector (a set per distinct selector,
 *     selection.ts) or an ipBlock cidr minus its `except` list.
 *  3. A numeric port matches the destination port (with endPort: the range
 *     port..endPort); a port without a number matches every port of its protocol.
 *  4. A named port is resolved per destination pod, as upstream says ("the
 *     named port on the pod"): the packet matches when (destination address,
 *     protocol, port) is one of a pod's containerPorts of that name.
 *  5. Protocols: TCP (the default), UDP, SCTP.
 * Each matching rule says `accept`, which ends this direction's base chain
 * (the other direction is checked by its own base chain). A policy with no
 * rules in a direction it isolates has an empty chain: it allows nothing.
 */
import type { NetworkPolicyPeer, NetworkPolicyPort } from 'kubernetes-types/networking/v1.js';
import type { Direction } from './names.js';

export interface RuleContext {
  /** The set holding the addresses of the pods a selector peer selects. */
  peerSet(peer: NetworkPolicyPeer): string;
  /** The set of (address . protocol . port) of the pods naming a port so. */
  namedPortSet(portName: string): string;
}

interface Rule { peers?: NetworkPolicyPeer[]; ports?: NetworkPolicyPort[] }

export function policyRules(dir: Direction, rules: Rule[], ctx: RuleContext): string[] {
  const out: string[] = [];
  for (const rule of rules) {
    const peers = rule.peers?.length ? rule.peers.map((p) => peerMatch(dir, p, ctx)).filter((m): m is string => m !== undefined) : [''];
    const ports = rule.ports?.length ? rule.ports.map((p) => portMatch(p, ctx)) : [''];
    for (const peer of peers) for (const port of ports) out.push([peer, port, 'accept'].filter(Boolean).join(' '));
  }
  return [...new Set(out)];
}

/** Rule 2; the peer is the source of an ingress packet and the destination of an egress one. */
function peerMatch(dir: Direction, peer: NetworkPolicyPeer, ctx: RuleContext): string | undefined {
  const field = dir === 'ingress' ? 'ip saddr' : 'ip daddr';
  if (peer.ipBlock) {
    const { cidr, except } = peer.ipBlock;
    if (cidr.includes(':')) return undefined; // IPv6 blocks cannot match IPv4 traffic
    const v4except = (except ?? []).filter((e) => !e.includes(':'));
    return `${field} ${cidr}${v4except.length ? ` ${field} != { ${v4except.join(', ')} }` : ''}`;
  }
  if (!peer.podSelector && !peer.namespaceSelector) return undefined; // invalid (validation rejects it): matches nothing
  return `${field} @${ctx.peerSet(peer)}`;
}

const protocols: Record<string, string> = { TCP: 'tcp', UDP: 'udp', SCTP: 'sctp' };

/** Rules 3–5. */
function portMatch(p: NetworkPolicyPort, ctx: RuleContext): string {
  const proto = protocols[p.protocol ?? 'TCP'] ?? 'tcp';
  if (p.port === undefined || p.port === null) return `meta l4proto ${proto}`;
  if (typeof p.port === 'string' && !/^\d+$/.test(p.port)) {
    return `meta l4proto ${proto} ip daddr . meta l4proto . th dport @${ctx.namedPortSet(p.port)}`;
  }
  const port = Number(p.port);
  const range = p.endPort !== undefined && p.endPort !== null && p.endPort > port ? `${port}-${p.endPort}` : `${port}`;
  return `meta l4proto ${proto} th dport ${range}`;
}
