/**
 * Which pods a NetworkPolicy is about, as the API reference defines it
 * (networking.k8s.io/v1 NetworkPolicySpec and NetworkPolicyPeer):
 *  1. spec.podSelector selects pods in the policy's own namespace; `{}` selects all of them.
 *  2. A peer with only podSelector selects pods in the policy's namespace.
 *  3. A peer with only namespaceSelector selects every pod of the namespaces it matches.
 *  4. A peer with both selects the pods matching podSelector in the namespaces matching namespaceSelector.
 *  5. A peer with ipBlock selects addresses, not pods (see rules.ts).
 * Pods without an address, host-network pods and finished pods are in no
 * selection: upstream's plugins cannot (host network) or need not (no address) police them.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy, NetworkPolicyPeer } from 'kubernetes-types/networking/v1.js';
import { matchesSelector, selectorFromLabelSelector, type Selector } from '../api/labels.js';

/** The address of a pod NetworkPolicy can see, or undefined. */
export function policyAddress(pod: Pod): string | undefined {
  if (pod.spec?.hostNetwork) return undefined;
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return undefined;
  const ip = pod.status?.podIP;
  return ip && !ip.includes(':') ? ip : undefined; // IPv4 only, like the rest of the data plane
}

/** Rules 2–4 for one pod: does the peer select a pod of namespace `ns` with these labels? (ipBlock peers are rules.ts's.) */
export interface PeerMatcher {
  /** A namespaceSelector peer: namespace labels decide too. */
  namespaceDependent: boolean;
  /** A peer without namespaceSelector selects in this namespace only. */
  namespace?: string;
  /** The namespace half of matches(). */
  inNamespace(ns: string, namespaceLabels: Map<string, Record<string, string>>): boolean;
  matches(ns: string, labels: Record<string, string>, namespaceLabels: Map<string, Record<string, string>>): boolean;
}

/** Throws on a selector that cannot be parsed. */
export function peerMatcher(peer: NetworkPolicyPeer, policyNamespace: string): PeerMatcher {
  const podSel: Selector | undefined = peer.podSelector ? selectorFromLabelSelector(peer.podSelector) : undefined;
  const nsSel: Selector | undefined = peer.namespaceSelector ? selectorFromLabelSelector(peer.namespaceSelector) : undefined;
  const inNamespace = (ns: string, namespaceLabels: Map<string, Record<string, string>>) => {
    if (!nsSel) return ns === policyNamespace;
    // A namespace the informer does not hold (deleted) matches no selector.
    const nl = namespaceLabels.get(ns);
    return !!nl && matchesSelector(nsSel, nl);
  };
  return {
    namespaceDependent: !!nsSel,
    namespace: nsSel ? undefined : policyNamespace,
    inNamespace,
    matches: (ns, labels, namespaceLabels) => inNamespace(ns, namespaceLabels) && (!podSel || matchesSelector(podSel, labels)),
  };
}

/**
 * spec.policyTypes, defaulted as the API server does when absent: Ingress,
 * plus Egress when the policy has egress rules.
 */
export function policyTypes(np: NetworkPolicy): { ingress: boolean; egress: boolean } {
  const types = np.spec?.policyTypes?.length ? np.spec.policyTypes : (np.spec?.egress?.length ? ['Ingress', 'Egress'] : ['Ingress']);
  return { ingress: types.includes('Ingress'), egress: types.includes('Egress') };
}
