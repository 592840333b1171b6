/**
 * The rules an aggregated ClusterRole should hold (upstream
 * pkg/controller/clusterroleaggregation): for each of its
 * aggregationRule.clusterRoleSelectors in order, the ClusterRoles the
 * selector matches, sorted by name and never the role itself, contribute
 * their rules; a rule equal to one already taken is skipped.
 */
import type { ClusterRole, PolicyRule } from 'kubernetes-types/rbac/v1.js';
import { matchesSelector, selectorFromLabelSelector } from '../../api/labels.js';

const canonicalRule = (r: PolicyRule) => JSON.stringify([r.apiGroups ?? [], r.resources ?? [], r.resourceNames ?? [], r.nonResourceURLs ?? [], r.verbs ?? []]);

/** undefined when the role has no aggregationRule (nothing to do). */
export function aggregatedRules(role: ClusterRole, all: readonly ClusterRole[]): PolicyRule[] | undefined {
  const selectors = role.aggregationRule?.clusterRoleSelectors;
  if (!role.aggregationRule) return undefined;
  const rules: PolicyRule[] = [];
  const seen = new Set<string>();
  const byName = [...all].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  for (const ls of selectors ?? []) {
    const selector = selectorFromLabelSelector(ls as any);
    for (const other of byName) {
      if (other.metadata?.name === role.metadata?.name || !matchesSelector(selector, other.metadata?.labels)) continue;
      for (const r of other.rules ?? []) {
        const k = canonicalRule(r);
        if (seen.has(k)) continue;
        seen.add(k);
        rules.push(r);
      }
    }
  }
  return rules;
}

/** Whether the role's rules already are the aggregated ones (absent and empty are the same). */
export const rulesEqual = (a: PolicyRule[] | undefined, b: PolicyRule[]): boolean =>
  (a ?? []).length === b.length && (a ?? []).every((r, i) => canonicalRule(r) === canonicalRule(b[i]));
