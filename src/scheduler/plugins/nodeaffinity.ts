/**
 * NodeAffinity (upstream `plugins/nodeaffinity`), over the shared rules in
 * src/api/nodeaffinity.ts:
 *  - PreFilter: nothing to do (Skip) without nodeSelector or required
 *    affinity; when every required term names nodes with
 *    `matchFields metadata.name In [...]` (DaemonSet pods), only those nodes
 *    are considered; terms whose names cannot overlap reject the pod;
 *  - Filter: nodeSelector and required terms, else
 *    `node(s) didn't match Pod's node affinity/selector`;
 *  - Score: the summed weights of matching preferred terms, normalized to 0..100.
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { podMatchesNodeSelectorAndAffinity, preferredAffinityScore, type NodeSelectorTerm } from '../../api/nodeaffinity.js';
import {
  defaultNormalizeScore, defaultNormalizeScores, maxNodeScore, skip, success, unresolvable, type ClusterEvent, type CycleState, type EnqueueExtensions,
  type FilterPlugin, type NodeScore, type PreFilterPlugin, type PreFilterResult, type PreScorePlugin, type ScorePlugin, type Status,
} from '../framework.js';
import type { NodeInfo } from '../nodeinfo.js';

export const nodeAffinityName = 'NodeAffinity';
export const errReasonPod = "node(s) didn't match Pod's node affinity/selector";
export const errReasonConflict = 'pod affinity terms conflict';

const rejected = unresolvable(errReasonPod);

const requiredTerms = (pod: Pod): NodeSelectorTerm[] | undefined =>
  pod?.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;

/**
 * The node names the required terms allow, or undefined for "any node":
 * per term the intersection of its `metadata.name In` requirements (a term
 * without one allows any node), and the union over terms.
 */
export function nodeNamesFromAffinity(terms: readonly NodeSelectorTerm[]): Set<string> | undefined {
  let names: Set<string> | undefined;
  for (const t of terms) {
    let termNames: Set<string> | undefined;
    for (const r of t.matchFields ?? []) {
      if (r.key !== 'metadata.name' || r.operator !== 'In') continue;
      const s = new Set(r.values ?? []);
      termNames = termNames ? new Set([...termNames].filter((n) => s.has(n))) : s;
    }
    if (!termNames) return undefined;
    names = names ? new Set([...names, ...termNames]) : termNames;
  }
  return names;
}

const matches = (pod: Pod, node: Node | undefined) => !!node && podMatchesNodeSelectorAndAffinity(pod?.spec, node);

export class NodeAffinity implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = nodeAffinityName;
  readonly events = ['NodeAdd', 'NodeUpdate'] as const;

  preFilter(_state: CycleState, pod: Pod): { status: Status; result?: PreFilterResult } {
    const required = pod?.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    if (!required && !pod?.spec?.nodeSelector) return { status: skip };
    const terms = requiredTerms(pod);
    if (!required || !terms?.length) return { status: success };
    const names = nodeNamesFromAffinity(terms);
    if (names && names.size === 0) return { status: unresolvable(errReasonConflict) };
    return { status: success, result: names ? { nodeNames: names } : undefined };
  }

  filter(_state: CycleState, pod: Pod, node: NodeInfo): Status {
    return matches(pod, node.node) ? success : rejected;
  }

  preScore(_state: CycleState, pod: Pod): Status {
    const preferred = pod?.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution;
    return preferred?.length ? success : skip;
  }

  score(_state: CycleState, pod: Pod, node: NodeInfo): number {
    return preferredAffinityScore(pod?.spec, node.node!);
  }

  normalizeScore(_state: CycleState, _pod: Pod, scores: NodeScore[]): void {
    defaultNormalizeScore(maxNodeScore, false, scores);
  }

  normalizeScores(_state: CycleState, _pod: Pod, scores: Float64Array, count: number): void {
    defaultNormalizeScores(maxNodeScore, false, scores, count);
  }

  /** A node that now matches and did not before (or a new matching node). */
  queueingHint(event: ClusterEvent, pod: Pod): 'Queue' | 'QueueSkip' {
    switch (event.type) {
      case 'NodeAdd': return matches(pod, event.node) ? 'Queue' : 'QueueSkip';
      case 'NodeUpdate': return matches(pod, event.newNode) && !matches(pod, event.oldNode) ? 'Queue' : 'QueueSkip';
      default: return 'QueueSkip';
    }
  }
}
