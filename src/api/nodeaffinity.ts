/**
 * Node selection rules shared by the scheduler and the DaemonSet controller
 * (upstream's component-helpers nodeaffinity):
 * 1. spec.nodeSelector: every key must equal the node's label.
 * 2. requiredDuringSchedulingIgnoredDuringExecution: the node must match at
 *    least one NodeSelectorTerm; a term matches when all its matchExpressions
 *    (on labels) and matchFields (only metadata.name) match; an empty term
 *    matches nothing; no terms at all matches nothing.
 * 3. Preferred terms add their weight to the score when they match.
 */
import type { Affinity, Node, NodeSelectorRequirement, NodeSelectorTerm, PodSpec } from 'kubernetes-types/core/v1.js';

export type { NodeSelectorRequirement, NodeSelectorTerm };
/** The part of a Node these rules read: its labels and name. */
export type NodeLabels = Pick<Node, 'metadata'>;

function requirementMatches(r: NodeSelectorRequirement, value: string | undefined): boolean {
  const vals = r.values ?? [];
  switch (r.operator) {
    case 'In': return value !== undefined && vals.includes(value);
    case 'NotIn': return value === undefined || !vals.includes(value);
    case 'Exists': return value !== undefined;
    case 'DoesNotExist': return value === undefined;
    case 'Gt': case 'Lt': {
      if (value === undefined || vals.length !== 1) return false;
      const a = Number.parseInt(value, 10);
      const b = Number.parseInt(vals[0], 10);
      if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
      return r.operator === 'Gt' ? a > b : a < b;
    }
    default: return false;
  }
}

export function nodeSelectorTermMatches(term: NodeSelectorTerm, node: NodeLabels): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (!exprs.length && !fields.length) return false;
  const labels: Record<string, string> = node.metadata?.labels ?? {};
  for (const r of exprs) if (!requirementMatches(r, labels[r.key])) return false;
  for (const r of fields) {
    if (r.key !== 'metadata.name') return false;
    if (!requirementMatches(r, node.metadata?.name)) return false;
  }
  return true;
}

/** Rules 1 and 2: whether the pod's required node selection admits the node. */
export function podMatchesNodeSelectorAndAffinity(podSpec: PodSpec | undefined, node: NodeLabels): boolean {
  const labels: Record<string, string> = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(podSpec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const required = podSpec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  const terms: NodeSelectorTerm[] = required.nodeSelectorTerms ?? [];
  return terms.some((t) => nodeSelectorTermMatches(t, node));
}

/** Rule 3: the sum of weights of matching preferred terms. */
export function preferredAffinityScore(podSpec: PodSpec | undefined, node: NodeLabels): number {
  let score = 0;
  for (const p of podSpec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) {
    if (p.weight && nodeSelectorTermMatches(p.preference ?? {}, node)) score += p.weight;
  }
  return score;
}

/**
 * DaemonSet pods are pinned by replacing the required node affinity with one
 * term `matchFields metadata.name In [node]` (upstream's ReplaceDaemonSetPodNodeNameNodeAffinity).
 */
export function replaceNodeNameAffinity(affinity: Affinity | undefined, nodeName: string): Affinity {
  const term: NodeSelectorTerm = { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] };
  const a: Affinity = affinity ? structuredClone(affinity) : {};
  a.nodeAffinity ??= {};
  a.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms: [term] };
  return a;
}
