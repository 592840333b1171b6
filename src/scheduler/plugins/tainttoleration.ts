/**
 * TaintToleration (upstream `plugins/tainttoleration`), a thin wrapper over
 * the shared toleration predicates in src/api/tolerations.ts:
 *  - Filter: the node's first NoSchedule or NoExecute taint that the pod does
 *    not tolerate rejects it, as `node(s) had untolerated taint {key: value}`;
 *  - Score: the number of PreferNoSchedule taints not tolerated by the pod's
 *    tolerations whose effect is PreferNoSchedule or empty; normalized in
 *    reverse, so fewer such taints score higher.
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { findMatchingUntoleratedTaint, tolerationsTolerateTaint, type Taint, type Toleration } from '../../api/tolerations.js';
import {
  defaultNormalizeScore, defaultNormalizeScores, maxNodeScore, stateKey, success, unresolvable, type ClusterEvent, type CycleState, type EnqueueExtensions,
  type FilterPlugin, type NodeBatch, type NodeScore, type PreScorePlugin, type ScorePlugin, type Status,
} from '../framework.js';
import { Hot, hotFields, type NodeInfo } from '../nodeinfo.js';

export const taintTolerationName = 'TaintToleration';

/** helper.DoNotScheduleTaintsFilterFunc. */
export const doNotScheduleTaints = (t: Taint) => t.effect === 'NoSchedule' || t.effect === 'NoExecute';

/** The upstream reason, e.g. `node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }`. */
export const untoleratedTaintReason = (t: Taint) => `node(s) had untolerated taint {${t.key}: ${t.value ?? ''}}`;

const preScoreKey = stateKey<Toleration[]>('PreScoreTaintToleration');

/** getAllTolerationPreferNoSchedule: tolerations with an empty or PreferNoSchedule effect. */
export function tolerationsPreferNoSchedule(tolerations: readonly Toleration[] | undefined): Toleration[] {
  return (tolerations ?? []).filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
}

/** countIntolerableTaintsPreferNoSchedule. */
export function countIntolerableTaintsPreferNoSchedule(taints: readonly Taint[], tolerations: readonly Toleration[]): number {
  let n = 0;
  for (const t of taints) if (t.effect === 'PreferNoSchedule' && !tolerationsTolerateTaint(tolerations, t)) n++;
  return n;
}

const untolerated = (node: Node, pod: Pod) => findMatchingUntoleratedTaint(node?.spec?.taints, pod?.spec?.tolerations, doNotScheduleTaints) !== undefined;

export class TaintToleration implements FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = taintTolerationName;
  readonly events = ['NodeAdd', 'NodeUpdate', 'UnscheduledPodUpdate'] as const;

  filter(_state: CycleState, pod: Pod, node: NodeInfo): Status {
    if (node.taints.length === 0) return success;
    const taint = findMatchingUntoleratedTaint(node.taints, pod?.spec?.tolerations, doNotScheduleTaints);
    return taint ? unresolvable(untoleratedTaintReason(taint)) : success;
  }

  filterNodes(state: CycleState, pod: Pod, { nodes, slots, data, count }: NodeBatch, out: Status[]): number {
    let first = 0;
    while (first < count && data[slots[first] * hotFields + Hot.TaintCount] === 0) first++;
    if (first === count) return 0; // no taints on any of them
    let rejectedCount = 0;
    for (let i = 0; i < count; i++) {
      const s = i < first ? success : data[slots[i] * hotFields + Hot.TaintCount] === 0 ? success : this.filter(state, pod, nodes[i]);
      out[i] = s;
      if (s.code !== 'Success') rejectedCount++;
    }
    return rejectedCount;
  }

  preScore(state: CycleState, pod: Pod): Status {
    state.write(preScoreKey, tolerationsPreferNoSchedule(pod?.spec?.tolerations));
    return success;
  }

  score(state: CycleState, _pod: Pod, node: NodeInfo): number {
    if (node.taints.length === 0) return 0;
    return countIntolerableTaintsPreferNoSchedule(node.taints, state.read(preScoreKey) ?? []);
  }

  scoreNodes(state: CycleState, _pod: Pod, { nodes, slots, data, count }: NodeBatch, out: Float64Array): void {
    const tolerations = state.read(preScoreKey) ?? [];
    for (let i = 0; i < count; i++) {
      out[i] = data[slots[i] * hotFields + Hot.TaintCount] === 0 ? 0 : countIntolerableTaintsPreferNoSchedule(nodes[i].taints, tolerations);
    }
  }

  normalizeScore(_state: CycleState, _pod: Pod, scores: NodeScore[]): void {
    defaultNormalizeScore(maxNodeScore, true, scores);
  }

  normalizeScores(_state: CycleState, _pod: Pod, scores: Float64Array, count: number): void {
    defaultNormalizeScores(maxNodeScore, true, scores, count);
  }

  /** A node whose taints the pod newly tolerates (or a new such node); the pod's tolerations changing. */
  queueingHint(event: ClusterEvent, pod: Pod): 'Queue' | 'QueueSkip' {
    switch (event.type) {
      case 'NodeAdd': return untolerated(event.node, pod) ? 'QueueSkip' : 'Queue';
      case 'NodeUpdate': return untolerated(event.oldNode, pod) && !untolerated(event.newNode, pod) ? 'Queue' : 'QueueSkip';
      case 'UnscheduledPodUpdate':
        return JSON.stringify(event.oldPod?.spec?.tolerations ?? []) !== JSON.stringify(event.newPod?.spec?.tolerations ?? []) ? 'Queue' : 'QueueSkip';
      default: return 'QueueSkip';
    }
  }
}
