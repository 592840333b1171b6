/**
 * PodTopologySpread (upstream `plugins/podtopologyspread`): spreads the pods
 * a selector matches over the values of a node label (the domains).
 *  - Constraints: the pod's topologySpreadConstraints (matchLabelKeys merged
 *    into the selector from the pod's own labels; minDomains 1,
 *    nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore by default); a pod
 *    with none gets the system defaults (hostname maxSkew 3, zone maxSkew 5,
 *    both ScheduleAnyway) with the selector of the Services, ReplicaSet,
 *    StatefulSet or ReplicationController selecting it (DefaultSelector), and
 *    none at all when nothing selects it.
 *  - PreFilter (DoNotSchedule constraints; Skip without any): per constraint
 *    the matching pods (same namespace, not terminating) per domain, over
 *    the nodes that carry every constraint's key and pass the inclusion
 *    policies; the minimum per key (0 when fewer domains than minDomains).
 *  - Filter: a node without a constraint's key is
 *    `node(s) didn't match pod topology spread constraints (missing required label)`
 *    (unresolvable); a node where matching + self − minimum exceeds maxSkew
 *    is `node(s) didn't match pod topology spread constraints`.
 *  - Score (ScheduleAnyway constraints): per constraint count × log(domains
 *    + 2) + maxSkew − 1, rounded; nodes missing a key of explicit
 *    constraints are ignored (0); normalized so fewer matching pods score
 *    higher: 100 × (max + min − s) / max.
 */
import type { Pod, TopologySpreadConstraint } from 'kubernetes-types/core/v1.js';
import { findMatchingUntoleratedTaint } from '../../api/tolerations.js';
import { podMatchesNodeSelectorAndAffinity } from '../../api/nodeaffinity.js';
import { everything, matchesSelector, newRequirement, nothing, requirementToString, selectorFromLabelSelector, type Selector } from '../../api/labels.js';
import {
  maxNodeScore, skip, stateKey, success, unresolvable, unschedulable, type AllNodes, type ClusterEvent, type CycleState,
  type EnqueueExtensions, type FilterPlugin, type NodeScore, type PreFilterPlugin, type PreScorePlugin, type ScorePlugin, type Status,
} from '../framework.js';
import type { NodeInfo } from '../nodeinfo.js';
import { doNotScheduleTaints } from './tainttoleration.js';

export const podTopologySpreadName = 'PodTopologySpread';
export const errReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints";
export const errReasonNodeLabelNotMatch = `${errReasonConstraintsNotMatch} (missing required label)`;
export const labelHostname = 'kubernetes.io/hostname';
export const labelTopologyZone = 'topology.kubernetes.io/zone';

/** The system default constraints (upstream systemDefaultConstraints). */
export const systemDefaultConstraints: readonly TopologySpreadConstraint[] = [
  { topologyKey: labelHostname, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 3 },
  { topologyKey: labelTopologyZone, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 5 },
];

interface Constraint {
  readonly maxSkew: number;
  readonly topologyKey: string;
  readonly selector: Selector;
  readonly minDomains: number;
  readonly honorNodeAffinity: boolean;
  readonly honorNodeTaints: boolean;
}

/** The selector of the Services and the controller selecting the pod (helper.DefaultSelector); `everything` when none. */
export type DefaultSelector = (pod: Pod) => Selector;

function toConstraints(cs: readonly TopologySpreadConstraint[], pod: Pod, action: string): Constraint[] {
  const out: Constraint[] = [];
  for (const c of cs) {
    if (c.whenUnsatisfiable !== action) continue;
    let selector: Selector;
    try {
      selector = selectorFromLabelSelector(c.labelSelector);
    } catch {
      selector = nothing;
    }
    const own = pod.metadata?.labels ?? {};
    const keys = (c.matchLabelKeys ?? []).filter((k) => Object.hasOwn(own, k));
    if (keys.length > 0 && !selector.nothing) {
      selector = { requirements: [...selector.requirements, ...keys.map((k) => newRequirement(k, '=', [own[k]]))] };
    }
    out.push({
      maxSkew: c.maxSkew, topologyKey: c.topologyKey, selector, minDomains: c.minDomains ?? 1,
      honorNodeAffinity: (c.nodeAffinityPolicy ?? 'Honor') === 'Honor', honorNodeTaints: c.nodeTaintsPolicy === 'Honor',
    });
  }
  return out;
}

/** An empty selector counts nothing (countPodsMatchSelector). */
const isEmpty = (sel: Selector) => !sel.nothing && sel.requirements.length === 0;

/**
 * The matching-pod count of a node per (selector, namespace), kept until the
 * node's pods change (its generation moves). Upstream walks every pod of
 * every scored node per constraint for every pod it schedules; so does this
 * plugin, but a Deployment's pods share one selector and each binding changes
 * one node, so all other nodes' counts carry over to the next pod. Without
 * it a 3,000-pod Deployment on 200 nodes spent 5.7 s of the scheduler's CPU
 * in label matching (1.2 us a pod and node), growing with pods times nodes.
 * Keyed by the NodeInfo object (a preemption dry run's clone is another one).
 */
const countCache = new WeakMap<NodeInfo, { generation: number; counts: Map<string, number> }>();
/** Distinct selectors remembered per node between its changes. */
const countCacheLimit = 64;

function countOnNode(info: NodeInfo, selector: Selector, namespace: string, key: string): number {
  let entry = countCache.get(info);
  if (!entry) countCache.set(info, (entry = { generation: info.generation, counts: new Map() }));
  else if (entry.generation !== info.generation || entry.counts.size >= countCacheLimit) {
    entry.generation = info.generation;
    entry.counts.clear();
  }
  let n = entry.counts.get(key);
  if (n === undefined) entry.counts.set(key, (n = countPodsMatchSelector(info.pods.values(), selector, namespace)));
  return n;
}

/** The count cache's key of a constraint's selector in a namespace (Requirement.String() is canonical). */
const countKey = (c: Constraint, namespace: string) => `${namespace}\u0000${c.selector.nothing ? '!nothing' : c.selector.requirements.map(requirementToString).join(',')}`;

/** countPodsMatchSelector: pods of the namespace, not terminating, matching. */
export function countPodsMatchSelector(pods: Iterable<Pod>, selector: Selector, namespace: string): number {
  if (isEmpty(selector)) return 0;
  let n = 0;
  for (const p of pods) {
    if (p.metadata?.deletionTimestamp || (p.metadata?.namespace ?? 'default') !== namespace) continue;
    if (matchesSelector(selector, p.metadata?.labels)) n++;
  }
  return n;
}

const hasAllKeys = (labels: Record<string, string>, cs: readonly Constraint[]) => cs.every((c) => Object.hasOwn(labels, c.topologyKey));

function includes(c: Constraint, pod: Pod, node: NodeInfo): boolean {
  if (c.honorNodeAffinity && !podMatchesNodeSelectorAndAffinity(pod.spec, node.node!)) return false;
  if (c.honorNodeTaints && findMatchingUntoleratedTaint(node.taints, pod.spec?.tolerations, doNotScheduleTaints)) return false;
  return true;
}

/**
 * The system defaults of an action as constraints, built once: they name no labelSelector and no
 * matchLabelKeys, so they are the same for every pod (built per pod, they were half a kilobyte of
 * garbage a cycle, for a pod nothing selects thrown away at once).
 */
const systemDefaults = new Map<string, Constraint[]>();
function systemDefaultsFor(action: 'DoNotSchedule' | 'ScheduleAnyway'): readonly Constraint[] {
  let cs = systemDefaults.get(action);
  if (!cs) systemDefaults.set(action, (cs = toConstraints(systemDefaultConstraints, {}, action)));
  return cs;
}

interface PreFilterState {
  constraints: Constraint[];
  /** Per constraint: matching pods per domain value. */
  matchNum: Map<string, number>[];
  /** Per constraint: the smallest count over its domains (Infinity without domains). */
  min: number[];
}

interface PreScoreState {
  constraints: Constraint[];
  ignored: Set<string>;
  /** Per constraint (not hostname): matching pods per domain value. */
  pairCounts: Map<string, number>[];
  weights: number[];
  /** Per constraint: its count cache key in the pod's namespace. */
  keys: string[];
}

const preFilterKey = stateKey<PreFilterState>('PreFilterPodTopologySpread');
const preScoreKey = stateKey<PreScoreState>('PreScorePodTopologySpread');
const failLabel = unresolvable(errReasonNodeLabelNotMatch);
const failSkew = unschedulable(errReasonConstraintsNotMatch);

export class PodTopologySpread implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = podTopologySpreadName;
  readonly events = ['NodeAdd', 'NodeUpdate', 'AssignedPodAdd', 'AssignedPodDelete'] as const;

  constructor(private readonly defaultSelector: DefaultSelector = () => everything) {}

  /** The pod's constraints for an action, or the system defaults with DefaultSelector (buildDefaultConstraints). */
  private constraints(pod: Pod, action: 'DoNotSchedule' | 'ScheduleAnyway'): Constraint[] {
    const own = pod.spec?.topologySpreadConstraints ?? [];
    if (own.length > 0) return toConstraints(own, pod, action);
    const defaults = systemDefaultsFor(action);
    if (defaults.length === 0) return [];
    const selector = this.defaultSelector(pod);
    if (isEmpty(selector)) return [];
    return defaults.map((c) => ({ ...c, selector }));
  }

  preFilter(state: CycleState, pod: Pod, all: AllNodes): { status: Status } {
    const constraints = this.constraints(pod, 'DoNotSchedule');
    if (constraints.length === 0) return { status: skip };
    const ns = pod.metadata?.namespace ?? 'default';
    const matchNum = constraints.map(() => new Map<string, number>());
    const keys = constraints.map((c) => countKey(c, ns));
    for (const info of all.list) {
      if (!info.node) continue;
      const labels = info.labels;
      if (!hasAllKeys(labels, constraints)) continue;
      constraints.forEach((c, i) => {
        if (!includes(c, pod, info)) return;
        const value = labels[c.topologyKey];
        matchNum[i].set(value, (matchNum[i].get(value) ?? 0) + countOnNode(info, c.selector, ns, keys[i]));
      });
    }
    const min = constraints.map((c, i) => {
      if (matchNum[i].size < c.minDomains) return 0;
      let m = Infinity;
      for (const n of matchNum[i].values()) if (n < m) m = n;
      return m;
    });
    state.write(preFilterKey, { constraints, matchNum, min });
    return { status: success };
  }

  filter(state: CycleState, pod: Pod, node: NodeInfo): Status {
    const s = state.read(preFilterKey);
    if (!s) return success;
    const labels = node.labels;
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i];
      if (!Object.hasOwn(labels, c.topologyKey)) return failLabel;
      const self = matchesSelector(c.selector, pod.metadata?.labels) ? 1 : 0;
      const skew = (s.matchNum[i].get(labels[c.topologyKey]) ?? 0) + self - s.min[i];
      if (skew > c.maxSkew) return failSkew;
    }
    return success;
  }

  preScore(state: CycleState, pod: Pod, feasible: readonly NodeInfo[], all: AllNodes): Status {
    const constraints = this.constraints(pod, 'ScheduleAnyway');
    if (constraints.length === 0) return skip;
    // Only explicit constraints require every key on a node (requireAllTopologies).
    const requireAll = (pod.spec?.topologySpreadConstraints?.length ?? 0) > 0;
    const ignored = new Set<string>();
    const pairCounts = constraints.map(() => new Map<string, number>());
    // Pairs some scored node has a label for: only those are read by Score, so only those are counted.
    const used = constraints.map(() => new Set<string>());
    const sizes = constraints.map(() => 0);
    for (const info of feasible) {
      const labels = info.labels;
      if (requireAll && !hasAllKeys(labels, constraints)) { ignored.add(info.name); continue; }
      constraints.forEach((c, i) => {
        if (c.topologyKey === labelHostname) return;
        const value = labels[c.topologyKey] ?? '';
        if (!pairCounts[i].has(value)) { pairCounts[i].set(value, 0); sizes[i]++; }
        if (Object.hasOwn(labels, c.topologyKey)) used[i].add(value);
      });
    }
    const weights = constraints.map((c, i) => Math.log((c.topologyKey === labelHostname ? feasible.length - ignored.size : sizes[i]) + 2));
    const ns = pod.metadata?.namespace ?? 'default';
    const keys = constraints.map((c) => countKey(c, ns));
    if (used.some((u) => u.size > 0)) {
      for (const info of all.list) {
        if (!info.node) continue;
        const labels = info.labels;
        if (requireAll && !hasAllKeys(labels, constraints)) continue;
        constraints.forEach((c, i) => {
          if (c.topologyKey === labelHostname || !includes(c, pod, info)) return;
          const value = labels[c.topologyKey] ?? '';
          if (!used[i].has(value)) return;
          pairCounts[i].set(value, pairCounts[i].get(value)! + countOnNode(info, c.selector, ns, keys[i]));
        });
      }
    }
    state.write(preScoreKey, { constraints, ignored, pairCounts, weights, keys });
    return success;
  }

  score(state: CycleState, pod: Pod, node: NodeInfo): number {
    const s = state.read(preScoreKey);
    if (!s || s.ignored.has(node.name)) return 0;
    const labels = node.labels;
    const ns = pod.metadata?.namespace ?? 'default';
    let score = 0;
    s.constraints.forEach((c, i) => {
      if (!Object.hasOwn(labels, c.topologyKey)) return;
      const count = c.topologyKey === labelHostname
        ? countOnNode(node, c.selector, ns, s.keys[i])
        : s.pairCounts[i].get(labels[c.topologyKey]) ?? 0;
      score += count * s.weights[i] + (c.maxSkew - 1);
    });
    return Math.round(score);
  }

  normalizeScore(state: CycleState, _pod: Pod, scores: NodeScore[]): void {
    const s = state.read(preScoreKey);
    if (!s) return;
    let min = Infinity;
    let max = 0;
    const ignored = scores.map((x) => s.ignored.has(x.name));
    scores.forEach((x, i) => {
      if (ignored[i]) return;
      if (x.score < min) min = x.score;
      if (x.score > max) max = x.score;
    });
    scores.forEach((x, i) => {
      if (ignored[i]) { x.score = 0; return; }
      x.score = max === 0 ? maxNodeScore : Math.trunc((maxNodeScore * (max + min - x.score)) / max);
    });
  }

  /** New nodes and label changes add domains; pods bound or deleted change the counts. */
  queueingHint(event: ClusterEvent): 'Queue' | 'QueueSkip' {
    switch (event.type) {
      case 'NodeAdd': case 'AssignedPodAdd': case 'AssignedPodDelete': return 'Queue';
      case 'NodeUpdate': return JSON.stringify(event.oldNode?.metadata?.labels ?? {}) !== JSON.stringify(event.newNode?.metadata?.labels ?? {})
        || JSON.stringify(event.oldNode?.spec?.taints ?? []) !== JSON.stringify(event.newNode?.spec?.taints ?? []) ? 'Queue' : 'QueueSkip';
      default: return 'QueueSkip';
    }
  }
}
