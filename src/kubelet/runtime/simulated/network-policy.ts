/**
 * NetworkPolicy on the simulated pod network (what a policy-enforcing CNI
 * plugin does on a real node; src/netpol programs it with nftables on real
 * nodes). A TCP connection from one simulated pod to another, after a
 * Service's cluster IP was sent to an endpoint (policies see the pod's
 * address and target port, as upstream's plugins see the packet after
 * kube-proxy's DNAT), is allowed when both ends allow it
 * (networking.k8s.io/v1 NetworkPolicySpec):
 *  1. A pod is isolated for a direction when a policy of its namespace
 *     selects it (spec.podSelector; `{}` selects all) and lists that
 *     direction in spec.policyTypes (absent: Ingress, plus Egress when the
 *     policy has egress rules). A pod no policy isolates allows everything.
 *  2. An isolated pod allows a connection when one rule of one of those
 *     policies matches it: its peers (`from` for ingress, `to` for egress;
 *     none listed: every peer) and its ports (none listed: every port).
 *  3. A peer with podSelector only selects pods of the policy's namespace;
 *     with namespaceSelector only, every pod of the namespaces it matches;
 *     with both, those pods in those namespaces; an ipBlock the addresses in
 *     its CIDR outside its excepts.
 *  4. A port is the target port, a number (up to endPort when set) or a
 *     name the destination pod gives one of its container ports; the
 *     protocol defaults to TCP, the only one simulated.
 * A connection a policy does not allow is dropped, not refused: the client
 * waits out its timeout (busybox wget: `download timed out`).
 */
import { duplexPair, type Duplex } from 'node:stream';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy, NetworkPolicyPeer, NetworkPolicyPort } from 'kubernetes-types/networking/v1.js';
import { matchesSelector, selectorFromLabelSelector } from '../../../api/labels.js';

/** One end of a connection: its pod and address. */
export interface PolicyEnd { pod: Pod; ip: string }

export interface PolicyInputs {
  /** The NetworkPolicies of a namespace. */
  policies(namespace: string): NetworkPolicy[];
  /** A namespace's labels (undefined: no such namespace, which no namespaceSelector matches). */
  namespaceLabels(name: string): Record<string, string> | undefined;
}

type Direction = 'ingress' | 'egress';

/** Rule 1's defaulting of spec.policyTypes, as the API server does it. */
function isolates(np: NetworkPolicy, dir: Direction): boolean {
  const types = np.spec?.policyTypes?.length ? np.spec.policyTypes : (np.spec?.egress?.length ? ['Ingress', 'Egress'] : ['Ingress']);
  return types.includes(dir === 'ingress' ? 'Ingress' : 'Egress');
}

function selects(selector: Parameters<typeof selectorFromLabelSelector>[0] | undefined, labels: Record<string, string> | undefined): boolean {
  try {
    return matchesSelector(selectorFromLabelSelector(selector ?? {}), labels ?? {});
  } catch {
    return false; // an unparsable selector selects nothing
  }
}

const ipv4 = (ip: string): number | undefined => {
  const parts = ip.split('.').map(Number);
  return parts.length === 4 && parts.every((p) => Number.isInteger(p) && p >= 0 && p <= 255) ? ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0 : undefined;
};

function inCIDR(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/');
  const a = ipv4(ip);
  const b = ipv4(base ?? '');
  const n = Number(bits ?? 32);
  if (a === undefined || b === undefined || !(n >= 0 && n <= 32)) return false;
  const mask = n === 0 ? 0 : (~0 << (32 - n)) >>> 0;
  return ((a & mask) >>> 0) === ((b & mask) >>> 0);
}

/** Rule 3: does `peer` (of a policy in `policyNamespace`) select `end`? */
function peerSelects(peer: NetworkPolicyPeer, policyNamespace: string, end: PolicyEnd, inputs: PolicyInputs): boolean {
  if (peer.ipBlock) return inCIDR(end.ip, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((c) => inCIDR(end.ip, c));
  const ns = end.pod.metadata?.namespace ?? 'default';
  const inNamespace = peer.namespaceSelector ? selects(peer.namespaceSelector, inputs.namespaceLabels(ns)) : ns === policyNamespace;
  return inNamespace && (!peer.podSelector || selects(peer.podSelector, end.pod.metadata?.labels));
}

/** Rule 4: does the rule's port entry cover `port` of the destination pod? */
function portMatches(p: NetworkPolicyPort, port: number, destination: Pod): boolean {
  if ((p.protocol ?? 'TCP') !== 'TCP') return false;
  if (p.port === undefined) return true;
  if (typeof p.port === 'number') return port === p.port || (p.endPort !== undefined && port > p.port && port <= p.endPort);
  return [...(destination.spec?.containers ?? []), ...(destination.spec?.initContainers ?? [])]
    .some((c) => (c.ports ?? []).some((cp) => cp.name === p.port && cp.containerPort === port && (cp.protocol ?? 'TCP') === 'TCP'));
}

/** Rules 1 and 2 for one end: `self` is the end the policies are about, `peer` the other one. */
function allowedBy(dir: Direction, self: PolicyEnd, peer: PolicyEnd, port: number, destination: Pod, inputs: PolicyInputs): boolean {
  const ns = self.pod.metadata?.namespace ?? 'default';
  const isolating = inputs.policies(ns).filter((np) => isolates(np, dir) && selects(np.spec?.podSelector, self.pod.metadata?.labels));
  if (!isolating.length) return true;
  const rules = (np: NetworkPolicy) => (dir === 'ingress' ? (np.spec?.ingress ?? []).map((r) => ({ peers: r.from, ports: r.ports })) : (np.spec?.egress ?? []).map((r) => ({ peers: r.to, ports: r.ports })));
  return isolating.some((np) => rules(np).some((rule) => {
    const peers = rule.peers;
    const peerOK = !peers?.length || peers.some((p) => peerSelects(p, ns, peer, inputs));
    return peerOK && (!rule.ports?.length || rule.ports.some((p) => portMatches(p, port, destination)));
  }));
}

/** Whether a TCP connection from `from` to `to`'s `port` passes both ends' policies. */
export function connectionAllowed(from: PolicyEnd, to: PolicyEnd, port: number, inputs: PolicyInputs): boolean {
  return allowedBy('egress', from, to, port, to.pod, inputs) && allowedBy('ingress', to, from, port, to.pod, inputs);
}

/** A connection whose packets a policy drops: it never connects nor answers, until the client gives up and destroys it. */
export function droppedConnection(): Duplex {
  const [client] = duplexPair();
  return client;
}
