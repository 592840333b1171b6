/**
 * Whether a PolicyRule covers a request (upstream's rbac.RuleAllows): verb,
 * API group, resource (`resource/subresource`, `*`, `*\/subresource`) and
 * resourceNames for resource requests; nonResourceURLs (exact or `prefix*`)
 * for the rest.
 */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import type { AuthorizationAttributes } from './types.js';

const has = (list: string[] | undefined, v: string) => !!list && (list.includes('*') || list.includes(v));

function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    if (subresource && r === `*/${subresource}`) return true;
  }
  return false;
}

function urlMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some((u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))));
}

export function ruleAllows(a: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (!a.isResourceRequest) return urlMatches(rule, a.path);
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const names = rule.resourceNames ?? [];
  return has(rule.apiGroups, a.apiGroup) && resourceMatches(rule, combined, a.subresource) && (names.length === 0 || names.includes(a.name));
}

export const rulesAllow = (a: AuthorizationAttributes, rules: readonly PolicyRule[]) => rules.some((r) => ruleAllows(a, r));
