/**
 * Does a PolicyRule allow a request (upstream rbac.RuleAllows with the
 * rbac/v1 helpers VerbMatches, APIGroupMatches, ResourceMatches,
 * ResourceNameMatches, NonResourceURLMatches). `*` matches every verb, group
 * and resource; a resource is matched as `resource/subresource`, and
 * `*\/subresource` matches that subresource of every resource; an empty
 * resourceNames allows every name; a non-resource URL ending in `*` is a prefix.
 */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import type { AuthorizationAttributes } from '../types.js';

const ALL = '*';

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === ALL || v === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === ALL || g === group);
}

export function resourceMatches(rule: PolicyRule, combinedResource: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === combinedResource) return true;
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some((u) => u === ALL || u === path || (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))));
}

export function ruleAllows(a: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (!a.isResourceRequest) return verbMatches(rule, a.verb) && nonResourceURLMatches(rule, a.path);
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return verbMatches(rule, a.verb) && apiGroupMatches(rule, a.apiGroup)
    && resourceMatches(rule, combined, a.subresource) && resourceNameMatches(rule, a.name);
}
