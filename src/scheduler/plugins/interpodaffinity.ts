/**
 * InterPodAffinity (upstream `plugins/interpodaffinity`): pods placed by the
 * labels of the pods already running in a topology domain (a node label's
 * value: the node for kubernetes.io/hostname, the zone for
 * topology.kubernetes.io/zone).
 *  - PreFilter: counts, per (topologyKey, value) pair, the existing pods
 *    matching each of the pod's required affinity and anti-affinity terms,
 *    and the existing pods whose required anti-affinity terms match this
 *    pod. Skip when the pod has no required terms and no running pod has
 *    required anti-affinity (the common case costs one pass over the nodes).
 *  - Filter, in upstream's order and codes: every required affinity term
 *    needs its topology label on the node and a matching pod in that domain
 *    (unless no pod matches any term and the pod matches all its own terms:
 *    the first of a group that attracts itself), else
 *    `node(s) didn't match pod affinity rules` (unresolvable); no matching
 *    pod in the domain of any anti-affinity term, else
 *    `node(s) didn't match pod anti-affinity rules`; no existing pod's
 *    anti-affinity term matching this pod in any domain the node is in, else
 *    `node(s) didn't satisfy existing pods anti-affinity rules`.
 *  - Score: per domain, + the weight of each preferred affinity term of the
 *    pod an existing pod matches, − for preferred anti-affinity; the same for
 *    existing pods' preferred terms matching this pod, and 1
 *    (hardPodAffinityWeight) for their required affinity terms. A node scores
 *    the sum over its labels' domains; normalized by (s − min) / (max − min).
 * Without the PreFilterExtensions (AddPod/RemovePod) of upstream: preemption's
 * dry run sees the counts of the cycle, with the victims still in them.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  maxNodeScore, skip, stateKey, success, unresolvable, unschedulable, type AllNodes, type ClusterEvent, type CycleState,
  type EnqueueExtensions, type FilterPlugin, type NodeScore, type PreFilterPlugin, type PreScorePlugin, type ScorePlugin, type Status,
} from '../framework.js';
import type { NodeInfo } from '../nodeinfo.js';
import { podAffinityTerms, termMatches, type AffinityTerm, type NamespaceLabels } from './affinity-terms.js';

export const interPodAffinityName = 'InterPodAffinity';
export const errReasonExistingAntiAffinityRulesNotMatch = "node(s) didn't satisfy existing pods anti-affinity rules";
export const errReasonAffinityRulesNotMatch = "node(s) didn't match pod affinity rules";
export const errReasonAntiAffinityRulesNotMatch = "node(s) didn't match pod anti-affinity rules";
/** HardPodAffinityWeight, the default of InterPodAffinityArgs. */
export const hardPodAffinityWeight = 1;

/** Counts by topology key, then value. */
type TopologyCounts = Map<string, Map<string, number>>;

function add(counts: TopologyCounts, key: string, value: string, n: number): void {
  let byValue = counts.get(key);
  if (!byValue) counts.set(key, (byValue = new Map()));
  byValue.set(value, (byValue.get(value) ?? 0) + n);
}

const countOf = (counts: TopologyCounts, key: string, value: string) => counts.get(key)?.get(value) ?? 0;

interface PreFilterState {
  existingAntiAffinity: TopologyCounts;
  affinity: TopologyCounts;
  antiAffinity: TopologyCounts;
  requiredAffinity: readonly AffinityTerm[];
  requiredAntiAffinity: readonly AffinityTerm[];
  /** Whether the pod matches all its own required affinity terms. */
  matchesOwnAffinity: boolean;
}

const preFilterKey = stateKey<PreFilterState>('PreFilterInterPodAffinity');
const preScoreKey = stateKey<TopologyCounts>('PreScoreInterPodAffinity');

const failAffinity = unresolvable(errReasonAffinityRulesNotMatch);
const failAntiAffinity = unschedulable(errReasonAntiAffinityRulesNotMatch);
const failExisting = unschedulable(errReasonExistingAntiAffinityRulesNotMatch);

export class InterPodAffinity implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = interPodAffinityName;
  readonly events = ['NodeAdd', 'NodeUpdate', 'AssignedPodAdd', 'AssignedPodDelete'] as const;

  /** `namespaceLabels` answers namespaceSelector terms (the scheduler's namespace informer). */
  constructor(private readonly namespaceLabels: NamespaceLabels = () => undefined) {}

  preFilter(state: CycleState, pod: Pod, all: AllNodes): { status: Status } {
    const terms = podAffinityTerms(pod);
    const { requiredAffinity, requiredAntiAffinity } = terms;
    const existingAntiAffinity: TopologyCounts = new Map();
    for (const info of all.havePodsWithRequiredAntiAffinity?.() ?? all.list) {
      if (info.podsWithRequiredAntiAffinity.size === 0) continue;
      const labels = info.labels;
      for (const existing of info.podsWithRequiredAntiAffinity.values()) {
        for (const t of podAffinityTerms(existing).requiredAntiAffinity) {
          const value = labels[t.topologyKey];
          if (value !== undefined && termMatches(t, pod, this.namespaceLabels)) add(existingAntiAffinity, t.topologyKey, value, 1);
        }
      }
    }
    if (requiredAffinity.length === 0 && requiredAntiAffinity.length === 0 && existingAntiAffinity.size === 0) return { status: skip };
    const affinity: TopologyCounts = new Map();
    const antiAffinity: TopologyCounts = new Map();
    if (requiredAffinity.length > 0 || requiredAntiAffinity.length > 0) {
      for (const info of all.list) {
        if (!info.node || info.pods.size === 0) continue;
        const labels = info.labels;
        for (const existing of info.pods.values()) {
          for (const t of requiredAffinity) {
            const value = labels[t.topologyKey];
            if (value !== undefined && termMatches(t, existing, this.namespaceLabels)) add(affinity, t.topologyKey, value, 1);
          }
          for (const t of requiredAntiAffinity) {
            const value = labels[t.topologyKey];
            if (value !== undefined && termMatches(t, existing, this.namespaceLabels)) add(antiAffinity, t.topologyKey, value, 1);
          }
        }
      }
    }
    const matchesOwnAffinity = requiredAffinity.length > 0 && requiredAffinity.every((t) => termMatches(t, pod, this.namespaceLabels));
    state.write(preFilterKey, { existingAntiAffinity, affinity, antiAffinity, requiredAffinity, requiredAntiAffinity, matchesOwnAffinity });
    return { status: success };
  }

  filter(state: CycleState, _pod: Pod, node: NodeInfo): Status {
    const s = state.read(preFilterKey);
    if (!s) return success;
    const labels = node.labels;
    if (!satisfyPodAffinity(s, labels)) return failAffinity;
    for (const t of s.requiredAntiAffinity) {
      const value = labels[t.topologyKey];
      if (value !== undefined && countOf(s.antiAffinity, t.topologyKey, value) > 0) return failAntiAffinity;
    }
    if (s.existingAntiAffinity.size > 0) {
      for (const [key, value] of Object.entries(labels)) {
        if (countOf(s.existingAntiAffinity, key, value) > 0) return failExisting;
      }
    }
    return success;
  }

  preScore(state: CycleState, pod: Pod, _feasible: readonly NodeInfo[], all: AllNodes): Status {
    const terms = podAffinityTerms(pod);
    const hasConstraints = terms.preferredAffinity.length > 0 || terms.preferredAntiAffinity.length > 0;
    const scores: TopologyCounts = new Map();
    const process = (ts: readonly AffinityTerm[], target: Pod, labels: Record<string, string>, weightOf: (t: AffinityTerm) => number) => {
      for (const t of ts) {
        const value = labels[t.topologyKey];
        if (value !== undefined && termMatches(t, target, this.namespaceLabels)) add(scores, t.topologyKey, value, weightOf(t));
      }
    };
    const weight = (t: AffinityTerm) => t.weight;
    const negative = (t: AffinityTerm) => -t.weight;
    for (const info of hasConstraints ? all.list : all.havePodsWithAffinity?.() ?? all.list) {
      if (!info.node) continue;
      const existingPods = hasConstraints ? info.pods : info.podsWithAffinity;
      if (existingPods.size === 0) continue;
      const labels = info.labels;
      if (Object.keys(labels).length === 0) continue;
      for (const existing of existingPods.values()) {
        process(terms.preferredAffinity, existing, labels, weight);
        process(terms.preferredAntiAffinity, existing, labels, negative);
        const theirs = podAffinityTerms(existing);
        process(theirs.requiredAffinity, pod, labels, () => hardPodAffinityWeight);
        process(theirs.preferredAffinity, pod, labels, weight);
        process(theirs.preferredAntiAffinity, pod, labels, negative);
      }
    }
    if (scores.size === 0) return skip;
    state.write(preScoreKey, scores);
    return success;
  }

  score(state: CycleState, _pod: Pod, node: NodeInfo): number {
    const scores = state.read(preScoreKey);
    if (!scores) return 0;
    const labels = node.labels;
    let score = 0;
    for (const [key, byValue] of scores) {
      const value = labels[key];
      if (value !== undefined) score += byValue.get(value) ?? 0;
    }
    return score;
  }

  normalizeScore(_state: CycleState, _pod: Pod, scores: NodeScore[]): void {
    let min = Infinity;
    let max = -Infinity;
    for (const s of scores) {
      if (s.score > max) max = s.score;
      if (s.score < min) min = s.score;
    }
    const diff = max - min;
    for (const s of scores) s.score = diff > 0 ? Math.trunc(maxNodeScore * ((s.score - min) / diff)) : 0;
  }

  /**
   * Node adds and label changes may open a domain; a bound pod matching one
   * of the pod's required affinity terms may satisfy it; a deleted pod may
   * lift an anti-affinity.
   */
  queueingHint(event: ClusterEvent, pod: Pod): 'Queue' | 'QueueSkip' {
    switch (event.type) {
      case 'NodeAdd': case 'AssignedPodDelete': return 'Queue';
      case 'NodeUpdate': return JSON.stringify(event.oldNode?.metadata?.labels ?? {}) !== JSON.stringify(event.newNode?.metadata?.labels ?? {}) ? 'Queue' : 'QueueSkip';
      case 'AssignedPodAdd': return podAffinityTerms(pod).requiredAffinity.some((t) => termMatches(t, event.pod, this.namespaceLabels)) ? 'Queue' : 'QueueSkip';
      default: return 'QueueSkip';
    }
  }
}

/** satisfyPodAffinity: every term's topology label present, and a matching pod in its domain (or the self-affinity exception). */
function satisfyPodAffinity(s: PreFilterState, labels: Record<string, string>): boolean {
  let podsExist = true;
  for (const t of s.requiredAffinity) {
    const value = labels[t.topologyKey];
    if (value === undefined) return false;
    if (countOf(s.affinity, t.topologyKey, value) <= 0) podsExist = false;
  }
  if (podsExist) return true;
  // The first pod of a series with affinity to itself: no pod matches any term yet, and it matches all of them.
  return s.affinity.size === 0 && s.matchesOwnAffinity;
}
