/**
 * Pod affinity terms as the scheduler evaluates them (upstream
 * framework.AffinityTerm and newAffinityTerm in framework/types.go):
 *  - the namespaces a term selects are its `namespaces` plus those whose
 *    labels match `namespaceSelector`; with neither, the namespace of the pod
 *    that owns the term. A nil namespaceSelector selects nothing, `{}` every
 *    namespace;
 *  - a nil labelSelector matches no pod (metav1.LabelSelectorAsSelector);
 *  - a pod matches a term when its namespace is selected and its labels
 *    match the selector.
 * Terms are parsed once per pod object (informer objects are immutable).
 */
import type { Pod, PodAffinityTerm, WeightedPodAffinityTerm } from 'kubernetes-types/core/v1.js';
import { everything, matchesSelector, nothing, selectorFromLabelSelector, type Labels, type Selector } from '../../api/labels.js';

export interface AffinityTerm {
  readonly namespaces: ReadonlySet<string>;
  readonly namespaceSelector: Selector;
  readonly selector: Selector;
  readonly topologyKey: string;
  /** 1 for required terms; the preference's weight for preferred ones. */
  readonly weight: number;
}

/** The terms of one pod, by kind. */
export interface PodAffinityTerms {
  readonly requiredAffinity: readonly AffinityTerm[];
  readonly requiredAntiAffinity: readonly AffinityTerm[];
  readonly preferredAffinity: readonly AffinityTerm[];
  readonly preferredAntiAffinity: readonly AffinityTerm[];
}

/** The namespace labels a namespaceSelector is matched against; undefined for an unknown namespace. */
export type NamespaceLabels = (namespace: string) => Labels | undefined;

const safeSelector = (ls: PodAffinityTerm['labelSelector'] | PodAffinityTerm['namespaceSelector'], ifNil: Selector): Selector => {
  if (ls === null || ls === undefined) return ifNil;
  try {
    return selectorFromLabelSelector(ls);
  } catch {
    return nothing; // validation refuses such selectors; an old object matches nothing
  }
};

function newAffinityTerm(pod: Pod, t: PodAffinityTerm, weight: number): AffinityTerm {
  const namespaces = new Set(t.namespaces ?? []);
  if (namespaces.size === 0 && (t.namespaceSelector === null || t.namespaceSelector === undefined)) namespaces.add(pod.metadata?.namespace ?? 'default');
  return {
    namespaces, namespaceSelector: safeSelector(t.namespaceSelector, nothing), selector: safeSelector(t.labelSelector, nothing),
    topologyKey: t.topologyKey, weight,
  };
}

const none: PodAffinityTerms = Object.freeze({ requiredAffinity: [], requiredAntiAffinity: [], preferredAffinity: [], preferredAntiAffinity: [] });
const memo = new WeakMap<object, PodAffinityTerms>();

/** The pod's affinity terms, parsed once per pod object. */
export function podAffinityTerms(pod: Pod): PodAffinityTerms {
  const a = pod.spec?.affinity;
  if (!a?.podAffinity && !a?.podAntiAffinity) return none;
  let terms = memo.get(pod);
  if (!terms) {
    const required = (ts: readonly PodAffinityTerm[] | undefined) => (ts ?? []).map((t) => newAffinityTerm(pod, t, 1));
    const preferred = (ts: readonly WeightedPodAffinityTerm[] | undefined) => (ts ?? []).map((w) => newAffinityTerm(pod, w.podAffinityTerm, w.weight));
    terms = {
      requiredAffinity: required(a.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution),
      requiredAntiAffinity: required(a.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution),
      preferredAffinity: preferred(a.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution),
      preferredAntiAffinity: preferred(a.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution),
    };
    memo.set(pod, terms);
  }
  return terms;
}

/** Whether the pod has any pod affinity or anti-affinity (NodeInfo.PodsWithAffinity). */
export const hasPodAffinity = (pod: Pod): boolean => !!(pod.spec?.affinity?.podAffinity || pod.spec?.affinity?.podAntiAffinity);

/** Whether the pod has required anti-affinity terms (NodeInfo.PodsWithRequiredAntiAffinity). */
export const hasRequiredAntiAffinity = (pod: Pod): boolean =>
  (pod.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0;

/** AffinityTerm.Matches: the pod's namespace is selected and its labels match. */
export function termMatches(term: AffinityTerm, pod: Pod, namespaceLabels: NamespaceLabels): boolean {
  const ns = pod.metadata?.namespace ?? 'default';
  if (!term.namespaces.has(ns)) {
    if (term.namespaceSelector.nothing) return false;
    if (term.namespaceSelector !== everything && !matchesSelector(term.namespaceSelector, namespaceLabels(ns) ?? {})) return false;
  }
  return matchesSelector(term.selector, pod.metadata?.labels);
}
