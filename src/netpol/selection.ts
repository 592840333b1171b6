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
import type { Pod, Namespace } from 'kubernetes-types/core/v1.js';
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

export interface PodIndex {
  /** Pods with an address, by namespace. */
  byNamespace: Map<string, Pod[]>;
  /** Namespace labels by name. */
  namespaceLabels: Map<string, Record<string, string>>;
}

export function indexPods(pods: Pod[], namespaces: Namespace[]): PodIndex {
  const byNamespace = new Map<string, Pod[]>();
  for (const p of pods) {
    if (!policyAddress(p)) continue;
    const ns = p.metadata!.namespace!;
    let list = byNamespace.get(ns);
    if (!list) { list = []; byNamespace.set(ns, list); }
    list.push(p);
  }
  const namespaceLabels = new Map(namespaces.map((n) => [n.metadata!.name!, n.metadata?.labels ?? {}]));
  return { byNamespace, namespaceLabels };
}

/** Rule 1: the pods of the policy's namespace that its podSelector selects. */
export function selectedPods(np: NetworkPolicy, index: PodIndex): Pod[] {
  const sel = selectorFromLabelSelector(np.spec?.podSelector ?? {});
  return (index.byNamespace.get(np.metadata!.namespace!) ?? []).filter((p) => matchesSelector(sel, p.metadata?.labels));
}

/** Rules 2–4: the pods a podSelector/namespaceSelector peer selects (ipBlock peers are not handled here). */
export function peerPods(peer: NetworkPolicyPeer, policyNamespace: string, index: PodIndex): Pod[] {
  const podSel: Selector | undefined = peer.podSelector ? selectorFromLabelSelector(peer.podSelector) : undefined;
  const namespaces = peer.namespaceSelector
    ? matchingNamespaces(selectorFromLabelSelector(peer.namespaceSelector), index)
    : [policyNamespace];
  const out: Pod[] = [];
  for (const ns of namespaces) {
    for (const p of index.byNamespace.get(ns) ?? []) if (!podSel || matchesSelector(podSel, p.metadata?.labels)) out.push(p);
  }
  return out;
}

function matchingNamespaces(sel: Selector, index: PodIndex): string[] {
  const out: string[] = [];
  for (const [name, labels] of index.namespaceLabels) if (matchesSelector(sel, labels)) out.push(name);
  return out;
}

/**
 * spec.policyTypes, defaulted as the API server does when absent: Ingress,
 * plus Egress when the policy has egress rules.
 */
export function policyTypes(np: NetworkPolicy): { ingress: boolean; egress: boolean } {
  const types = np.spec?.policyTypes?.length ? np.spec.policyTypes : (np.spec?.egress?.length ? ['Ingress', 'Egress'] : ['Ingress']);
  return { ingress: types.includes('Ingress'), egress: types.includes('Egress') };
}
