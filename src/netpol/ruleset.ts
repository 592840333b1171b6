/**
 * The whole `inet k8ts-netpol` table for one node, from the informers'
 * snapshot. The node polices only its own pods (as kube-router and Calico's
 * Felix do): a local pod that some policy isolates in a direction gets an
 * entry in that direction's verdict map, pointing at a chain shared by all
 * local pods isolated by the same policies; that chain jumps to each
 * policy's chain and drops what none of them accepted. Policies are additive
 * (any policy that allows, allows). Peers are sets of pod addresses drawn
 * from every pod of the cluster, so a rule about pods on other nodes holds.
 *
 * Base chains (why there are two per hook: `accept` ends only the base chain
 * it is in, so the egress check of the sender and the ingress check of the
 * receiver are two base chains on the forward hook, in that order):
 *  - egress-forward / ingress-forward: pod-to-pod traffic, also between
 *    pods of one bridge (the kernel hands bridged IPv4 frames to the inet
 *    hooks with br_netfilter's bridge-nf-call-iptables=1, which kubeadm's
 *    preflight requires too), after kube-proxy's DNAT, so traffic to a
 *    Service is checked against the backend pod.
 *  - egress-input: a pod's traffic to its own node (a host-network DNS
 *    server or API server reached through their Service) is egress too.
 *  - Nothing on the output hook: traffic from the node to its pods
 *    (kubelet probes) is always allowed, as the NetworkPolicy docs say.
 *  - `ct state established,related accept` first: replies of allowed
 *    connections pass, and connections keep working across policy changes.
 */
import type { Pod, Namespace, ContainerPort } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy, NetworkPolicyPeer } from 'kubernetes-types/networking/v1.js';
import { indexPods, peerPods, policyAddress, policyTypes, selectedPods, type PodIndex } from './selection.js';
import { policyRules, type RuleContext } from './rules.js';
import { egressMap, ingressMap, isolationChain, namedPortSet, peerSet, policyChain, table, type Direction } from './names.js';

export interface Snapshot {
  policies: NetworkPolicy[];
  pods: Pod[];
  namespaces: Namespace[];
  nodeName: string;
}

export interface Ruleset {
  /** The nft transaction that replaces the table (atomic: conntrack keeps established flows). */
  script: string;
  policies: number;
  isolatedPods: number;
  /** Policies whose selectors could not be parsed (skipped, logged by the caller). */
  invalid: string[];
}

const baseChains = [
  'chain egress-forward { type filter hook forward priority filter ; policy accept ; ct state established,related accept ; ip saddr vmap @egress-pods ; }',
  'chain egress-input { type filter hook input priority filter ; policy accept ; ct state established,related accept ; ip saddr vmap @egress-pods ; }',
  'chain ingress-forward { type filter hook forward priority 10 ; policy accept ; ct state established,related accept ; ip daddr vmap @ingress-pods ; }',
];

export function buildRuleset(snap: Snapshot): Ruleset {
  const index = indexPods(snap.pods, snap.namespaces);
  const sets = new Map<string, string>(); // name → definition
  const chains: string[] = [];
  const isolated: Record<Direction, Map<string, string[]>> = { ingress: new Map(), egress: new Map() }; // pod IP → policy chains
  const invalid: string[] = [];
  const ctx = setContext(index, sets);
  const policies = [...snap.policies].sort((a, b) => key(a).localeCompare(key(b)));
  let used = 0;
  for (const np of policies) {
    try {
      const local = selectedPods(np, index).filter((p) => p.spec?.nodeName === snap.nodeName);
      if (!local.length) continue; // a policy about no pod of this node needs nothing here
      used++;
      const types = policyTypes(np);
      for (const dir of ['ingress', 'egress'] as const) {
        if (!types[dir]) continue;
        const chain = policyChain(dir, np.metadata!.namespace!, np.metadata!.name!);
        const rules = dir === 'ingress'
          ? (np.spec?.ingress ?? []).map((r) => ({ peers: r.from, ports: r.ports }))
          : (np.spec?.egress ?? []).map((r) => ({ peers: r.to, ports: r.ports }));
        chains.push(`chain ${chain} {${policyRules(dir, rules, ctx.forNamespace(np.metadata!.namespace!)).map((r) => ` ${r} ;`).join('')} }`);
        for (const p of local) {
          const ip = policyAddress(p)!;
          const list = isolated[dir].get(ip) ?? [];
          list.push(chain);
          isolated[dir].set(ip, list);
        }
      }
    } catch (e) {
      invalid.push(`${key(np)}: ${(e as Error).message}`);
    }
  }
  const maps: string[] = [];
  for (const dir of ['ingress', 'egress'] as const) {
    const groups = new Map<string, string[]>(); // isolation chain → policy chains
    const elements: string[] = [];
    for (const [ip, list] of isolated[dir]) {
      const group = isolationChain(dir, list);
      groups.set(group, list);
      elements.push(`${ip} : jump ${group}`);
    }
    for (const [group, list] of groups) chains.push(`chain ${group} {${list.map((c) => ` jump ${c} ;`).join('')} drop ; }`);
    maps.push(`map ${dir === 'ingress' ? ingressMap : egressMap} { type ipv4_addr : verdict ;${elements.length ? ` elements = { ${elements.join(', ')} } ;` : ''} }`);
  }
  const body = [...maps, ...sets.values(), ...chains, ...baseChains];
  const script = `add table ${table}\ndelete table ${table}\ntable ${table} {\n  ${body.join('\n  ')}\n}\n`;
  return { script, policies: used, isolatedPods: new Set([...isolated.ingress.keys(), ...isolated.egress.keys()]).size, invalid };
}

const key = (np: NetworkPolicy) => `${np.metadata!.namespace}/${np.metadata!.name}`;

/** Creates each peer and named-port set on first use, with its elements. */
function setContext(index: PodIndex, sets: Map<string, string>) {
  let namedPorts: Map<string, string[]> | undefined;
  return {
    /** The sets as seen from a policy of namespace `ns` (a peer without namespaceSelector means that namespace). */
    forNamespace(ns: string): RuleContext {
      return {
        peerSet: (peer: NetworkPolicyPeer) => {
          const canonical = JSON.stringify([peer.namespaceSelector ? '' : ns, peer.podSelector ?? null, peer.namespaceSelector ?? null]);
          const name = peerSet(canonical);
          if (!sets.has(name)) {
            const ips = [...new Set(peerPods(peer, ns, index).map((p) => policyAddress(p)!))].sort();
            sets.set(name, `set ${name} { type ipv4_addr ;${ips.length ? ` elements = { ${ips.join(', ')} } ;` : ''} }`);
          }
          return name;
        },
        namedPortSet: (portName: string) => {
          const name = namedPortSet(portName);
          if (!sets.has(name)) {
            namedPorts ??= namedPortIndex(index);
            const elements = namedPorts.get(portName) ?? [];
            sets.set(name, `set ${name} { type ipv4_addr . inet_proto . inet_service ;${elements.length ? ` elements = { ${elements.join(', ')} } ;` : ''} }`);
          }
          return name;
        },
      };
    },
  };
}

/** Rule 4 of rules.ts: port name → `address . protocol . port` of every pod's container port of that name. */
function namedPortIndex(index: PodIndex): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const pods of index.byNamespace.values()) {
    for (const p of pods) {
      const ip = policyAddress(p)!;
      const ports: ContainerPort[] = [...(p.spec?.containers ?? []), ...(p.spec?.initContainers ?? [])].flatMap((c) => c.ports ?? []);
      for (const cp of ports) {
        if (!cp.name) continue;
        let s = out.get(cp.name);
        if (!s) { s = new Set(); out.set(cp.name, s); }
        s.add(`${ip} . ${(cp.protocol ?? 'TCP').toLowerCase()} . ${cp.containerPort}`);
      }
    }
  }
  return new Map([...out].map(([k, v]) => [k, [...v].sort()]));
}
