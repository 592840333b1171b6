/**
 * One NetworkPolicy turned into what the node table needs of it, once per
 * change of the policy: its chain per direction it isolates (rules.ts; the
 * body depends on the policy alone, since a peer is named by its selectors,
 * not by the pods they select) and the definitions of the address sets its
 * rules name. Which pods fill those sets, and which local pods the policy
 * isolates, is model.ts's part, kept up to date per pod event.
 */
import type { NetworkPolicy, NetworkPolicyPeer } from 'kubernetes-types/networking/v1.js';
import { selectorFromLabelSelector, type Selector } from '../api/labels.js';
import { peerMatcher, policyTypes } from './selection.js';
import { policyRules, type RuleContext } from './rules.js';
import { namedPortSet, peerSet, policyChain, type Direction } from './names.js';

export const directions = ['ingress', 'egress'] as const;

/** What a set's elements are drawn from: one pod with an address NetworkPolicy can see. */
export interface PodView {
  ns: string;
  labels: Record<string, string>;
  ip: string;
  /** port name → `address . protocol . port` of the pod's container ports of that name. */
  ports: Map<string, string[]>;
}

/** A peer set or a named-port set, as the rules name it. */
export interface SetDef {
  type: string;
  /** Its members change with namespace labels (a namespaceSelector peer). */
  namespaceDependent: boolean;
  /** Only pods of this namespace can be members (a peer without namespaceSelector). */
  namespace?: string;
  /** Whether pods of namespace `ns` can be members at all (a shortcut for filling a new set). */
  inNamespace(ns: string, namespaceLabels: Map<string, Record<string, string>>): boolean;
  /** The elements one pod contributes. */
  elements(pod: PodView, namespaceLabels: Map<string, Record<string, string>>): string[];
}

export interface PolicyChain { name: string; body: string; sets: string[] }

export interface CompiledPolicy {
  ns: string;
  /** The policy's spec as compiled: an update that leaves it alone changes nothing. */
  spec: string;
  podSelector: Selector;
  chains: Partial<Record<Direction, PolicyChain>>;
  sets: Map<string, SetDef>;
  /** Keys of the local pods it selects (model.ts keeps it). */
  selected: Set<string>;
}

const peerType = 'ipv4_addr';
const none: string[] = [];
const namedPortType = 'ipv4_addr . inet_proto . inet_service';

/** Throws on a selector that cannot be parsed (the caller skips the policy and says why). */
export function compilePolicy(np: NetworkPolicy): CompiledPolicy {
  const ns = np.metadata!.namespace!;
  const types = policyTypes(np);
  const sets = new Map<string, SetDef>();
  const chains: CompiledPolicy['chains'] = {};
  for (const dir of directions) {
    if (!types[dir]) continue;
    const used = new Set<string>();
    const ctx: RuleContext = {
      peerSet: (peer) => {
        // A peer without namespaceSelector means the policy's namespace; the name is the same one whole-table builds used.
        const name = peerSet(JSON.stringify([peer.namespaceSelector ? '' : ns, peer.podSelector ?? null, peer.namespaceSelector ?? null]));
        if (!sets.has(name)) sets.set(name, peerDef(peer, ns));
        used.add(name);
        return name;
      },
      namedPortSet: (portName) => {
        const name = namedPortSet(portName);
        if (!sets.has(name)) sets.set(name, namedPortDef(portName));
        used.add(name);
        return name;
      },
    };
    const rules = dir === 'ingress'
      ? (np.spec?.ingress ?? []).map((r) => ({ peers: r.from, ports: r.ports }))
      : (np.spec?.egress ?? []).map((r) => ({ peers: r.to, ports: r.ports }));
    const body = policyRules(dir, rules, ctx).map((r) => ` ${r} ;`).join('');
    chains[dir] = { name: policyChain(dir, ns, np.metadata!.name!), body, sets: [...used] };
  }
  return { ns, spec: JSON.stringify(np.spec ?? {}), podSelector: selectorFromLabelSelector(np.spec?.podSelector ?? {}), chains, sets, selected: new Set() };
}

/** selection.ts's rules 2–4: the pod's address when the peer selects it. */
function peerDef(peer: NetworkPolicyPeer, policyNamespace: string): SetDef {
  const m = peerMatcher(peer, policyNamespace);
  return {
    type: peerType, namespaceDependent: m.namespaceDependent, namespace: m.namespace, inNamespace: m.inNamespace,
    elements: (pod, namespaceLabels) => (m.matches(pod.ns, pod.labels, namespaceLabels) ? [pod.ip] : none),
  };
}

/** rules.ts's rule 4: every pod's container ports of that name. */
function namedPortDef(portName: string): SetDef {
  return { type: namedPortType, namespaceDependent: false, inNamespace: () => true, elements: (pod) => pod.ports.get(portName) ?? none };
}
