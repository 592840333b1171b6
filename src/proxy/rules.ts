/**
 * The nftables objects of one service port, as upstream's nftables proxier
 * writes them (pkg/proxy/nftables/proxier.go syncProxyRules):
 *
 *  - the verdict map `service-ips` sends (clusterIP|externalIP|LB IP, proto,
 *    port) to the port's chain and `service-nodeports` sends (proto, nodePort)
 *    on the node's addresses to its `external-` chain: a packet costs one map
 *    lookup however many Services there are;
 *  - `service-` picks one of the cluster endpoints at random (a `numgen`
 *    rule per endpoint up to 16, `numgen random mod N vmap` above), after
 *    the session-affinity sets;
 *  - `local-` does the same among this node's endpoints (the Local policies);
 *  - `external-` marks external traffic for masquerade (Cluster policy) or
 *    keeps the client address and sends it to `local-` (Local policy);
 *  - each `endpoint-` chain DNATs, marks hairpin traffic (an endpoint reaching
 *    itself) for masquerade and records the client in its affinity set;
 *  - a port without endpoints gets an element in `no-endpoint-services` /
 *    `no-endpoint-nodeports` that rejects it in the filter hooks.
 */
import type { ProxyEndpoint, ServicePortInfo } from './service-port.js';
import { affinitySet, clusterLocalChain, endpointChain, externalChain, serviceChain } from './names.js';

export interface ElementRef { map: string; key: string; value?: string }

export interface PortRules {
  chains: Map<string, string[]>;
  /** Affinity sets: name → timeout in seconds. */
  sets: Map<string, number>;
  elements: ElementRef[];
}

export interface RuleContext {
  /** --cluster-cidr: traffic from it is pod traffic (upstream's LocalTrafficDetector). */
  clusterCIDR?: string;
}

/**
 * An endpoint chain's rules depend only on these inputs, so the same array is
 * handed out again for an unchanged endpoint: a Service of 100,000 endpoints
 * that loses one recomputes nothing for the others (and transaction.ts joins
 * each array once). Bounded like names.ts's memo.
 */
const endpointMemo = new Map<string, { name: string; rules: string[]; set?: string }>();
const endpointMemoLimit = 500_000;

function endpointRules(info: ServicePortInfo, ep: ProxyEndpoint, out: PortRules): string {
  const k = `${info.spn}\0${ep.ip}\0${ep.port}\0${info.protocol}\0${info.affinitySeconds ?? ''}`;
  let e = endpointMemo.get(k);
  if (!e) {
    const name = endpointChain(info.spn, ep.ip, ep.port);
    const rules = [`ip saddr ${ep.ip} jump mark-for-masquerade`];
    const set = info.affinitySeconds !== undefined ? affinitySet(info.spn, ep.ip, ep.port) : undefined;
    if (set) rules.push(`update @${set} { ip saddr }`);
    rules.push(`meta l4proto ${info.protocol} dnat to ${ep.ip}:${ep.port}`);
    e = { name, rules, set };
    if (endpointMemo.size >= endpointMemoLimit) endpointMemo.clear();
    endpointMemo.set(k, e);
  }
  if (out.chains.has(e.name)) return e.name;
  if (e.set) out.sets.set(e.set, info.affinitySeconds!);
  out.chains.set(e.name, e.rules);
  return e.name;
}

/** The rules that pick an endpoint: affinity first (a known client keeps its endpoint), then at random. */
function balance(info: ServicePortInfo, eps: ProxyEndpoint[], out: PortRules): string[] {
  if (!eps.length) return ['drop'];
  const chains = eps.map((ep) => endpointRules(info, ep, out));
  const rules: string[] = [];
  if (info.affinitySeconds !== undefined) {
    eps.forEach((ep, i) => rules.push(`ip saddr @${affinitySet(info.spn, ep.ip, ep.port)} goto ${chains[i]}`));
  }
  rules.push(...pick(chains));
  return rules;
}

/**
 * Up to this many endpoints a port picks one with a `numgen` rule each
 * rather than upstream's anonymous `numgen ... vmap { ... }`: every
 * anonymous map costs the kernel a scan of all the table's sets to name it
 * and a walk of the whole transaction to bind it, so 10,000 Services' maps
 * made the full sync at start quadratic (69 s at 10,000 Services, about 3 s
 * without them: docs/design-notes.md). Only new connections reach these
 * rules (the nat hooks see a connection's first packet), so a few more
 * comparisons cost nothing that shows; larger ports keep the map, one lookup.
 */
export const maxSequentialEndpoints = 16;

/**
 * A uniform pick among `chains`: the i-th rule takes 1 in (n - i) of what is
 * left (iptables mode's `statistic --probability` chain), the last takes the rest.
 */
function pick(chains: string[]): string[] {
  if (chains.length > maxSequentialEndpoints) {
    return [`numgen random mod ${chains.length} vmap { ${chains.map((c, i) => `${i} : goto ${c}`).join(', ')} }`];
  }
  return chains.map((c, i) => (i === chains.length - 1 ? `goto ${c}` : `numgen random mod ${chains.length - i} 0 goto ${c}`));
}

const key = (ip: string, info: ServicePortInfo) => `${ip} . ${info.protocol} . ${info.port}`;

/** Every object of one service port; the same input always gives the same output. */
export function portRules(info: ServicePortInfo, ctx: RuleContext): PortRules {
  const out: PortRules = { chains: new Map(), sets: new Map(), elements: [] };
  const hasEndpoints = info.clusterEndpoints.length > 0;
  const svcChain = serviceChain(info.spn);
  const localChain = clusterLocalChain(info.spn);
  const extChain = externalChain(info.spn);
  const usesLocal = info.internalLocal || info.externalLocal;
  const hasExternal = info.nodePort !== undefined || info.externalIPs.length > 0 || info.loadBalancerIPs.length > 0;

  if (info.clusterIP) out.elements.push({ map: 'cluster-ips', key: info.clusterIP });
  if (!hasEndpoints) {
    // Upstream: "vmap to drop or reject packets to services with no endpoints".
    for (const ip of [info.clusterIP, ...info.externalIPs, ...info.loadBalancerIPs]) {
      if (ip) out.elements.push({ map: 'no-endpoint-services', key: key(ip, info), value: 'goto reject-chain' });
    }
    if (info.nodePort) out.elements.push({ map: 'no-endpoint-nodeports', key: `${info.protocol} . ${info.nodePort}`, value: 'goto reject-chain' });
    return out;
  }

  // Traffic to the cluster IP from outside the pod network is masqueraded, so replies come back through this node.
  const svcRules: string[] = [];
  if (info.clusterIP && ctx.clusterCIDR) {
    svcRules.push(`ip daddr ${info.clusterIP} ${info.protocol} dport ${info.port} ip saddr != ${ctx.clusterCIDR} jump mark-for-masquerade`);
  }
  out.chains.set(svcChain, [...svcRules, ...balance(info, info.clusterEndpoints, out)]);
  if (usesLocal) out.chains.set(localChain, balance(info, info.localEndpoints, out));

  const internal = info.internalLocal ? localChain : svcChain;
  if (info.clusterIP) out.elements.push({ map: 'service-ips', key: key(info.clusterIP, info), value: `goto ${internal}` });
  if (!hasExternal) return out;

  out.chains.set(extChain, info.externalLocal
    ? [
      // Pods and the node itself reach the Service as cluster traffic; others keep their source address.
      ...(ctx.clusterCIDR ? [`ip saddr ${ctx.clusterCIDR} goto ${svcChain}`] : []),
      'fib saddr type local jump mark-for-masquerade',
      `fib saddr type local goto ${svcChain}`,
      `goto ${localChain}`,
    ]
    : ['jump mark-for-masquerade', `goto ${svcChain}`]);
  for (const ip of [...info.externalIPs, ...info.loadBalancerIPs]) {
    out.elements.push({ map: 'service-ips', key: key(ip, info), value: `goto ${extChain}` });
  }
  if (info.nodePort) out.elements.push({ map: 'service-nodeports', key: `${info.protocol} . ${info.nodePort}`, value: `goto ${extChain}` });
  return out;
}
