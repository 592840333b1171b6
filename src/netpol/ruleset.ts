/**
 * The whole `inet k8ts-netpol` table for one node, as one transaction that
 * replaces it (the full sync's; model.ts holds what it is made of, table.ts
 * writes the changes between full syncs). The node polices only its own pods (as kube-router and Calico's
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
import type { Pod, Namespace } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { PolicyModel } from './model.js';
import { egressMap, ingressMap, table } from './names.js';

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

/** The table for a snapshot, built as the agent builds it from informer events. */
export function buildRuleset(snap: Snapshot): Ruleset {
  const model = new PolicyModel(snap.nodeName);
  for (const n of snap.namespaces) model.setNamespace(n.metadata!.name!, n);
  for (const p of snap.pods) model.setPod(`${p.metadata!.namespace}/${p.metadata!.name}`, p);
  for (const np of snap.policies) model.setPolicy(`${np.metadata!.namespace}/${np.metadata!.name}`, np);
  model.resolve();
  return { script: renderTable(model), policies: model.activePolicies, isolatedPods: model.isolatedPods, invalid: [...model.invalid.values()] };
}

const byName = <V>(m: Map<string, V>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** Everything the model holds (after resolve()), replacing whatever the table held. */
export function renderTable(model: PolicyModel): string {
  const maps = (['ingress', 'egress'] as const).map((dir) => {
    const elements = byName(model.maps[dir]).map(([ip, chain]) => `${ip} : jump ${chain}`);
    return `map ${dir === 'ingress' ? ingressMap : egressMap} { type ipv4_addr : verdict ;${elements.length ? ` elements = { ${elements.join(', ')} } ;` : ''} }`;
  });
  const sets = byName(model.sets).map(([name, s]) => {
    const elements = [...s.elements.keys()].sort();
    return `set ${name} { type ${s.def.type} ;${elements.length ? ` elements = { ${elements.join(', ')} } ;` : ''} }`;
  });
  const chains = [...byName(model.chains).map(([name, c]) => `chain ${name} {${c.body} }`), ...byName(model.groups).map(([name, g]) => `chain ${name} {${g.body} }`)];
  const body = [...maps, ...sets, ...chains, ...baseChains];
  return `add table ${table}\ndelete table ${table}\ntable ${table} {\n  ${body.join('\n  ')}\n}\n`;
}
