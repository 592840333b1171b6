/**
 * Quota accounting shared by the ResourceQuota admission plugin and the
 * resourcequota controller: which quotas an object falls under, what it uses,
 * and what a namespace's objects add up to.
 */
import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import { quantityFromInt } from '../quantity.js';
import { ResourceList, addLists, maskList, parseResourceList } from './arithmetic.js';
import type { QuotaEvaluator } from './evaluators.js';
import type { Unstructured } from '../unstructured.js';
import { quotaScopeRequirements } from './scopes.js';

export * from './arithmetic.js';
export { evaluatorFor, objectCountName, podCountsCompute, type QuotaEvaluator } from './evaluators.js';
export { isBestEffort, podMatchesScope, quotaScopeRequirements, type ScopeRequirement } from './scopes.js';
export { podLimits, podRequests } from './pod-resources.js';

/** The quota's limits: status.hard once the controller has written it, else spec.hard. */
export const quotaHard = (q: ResourceQuota): ResourceList => parseResourceList(q.status?.hard ?? q.spec?.hard);

/** MatchingResources: the quota's resource names this evaluator accounts for. */
export const matchingResources = (ev: QuotaEvaluator, names: Iterable<string>): string[] => [...names].filter((n) => ev.handles(n)).sort();

/** Matches: the quota limits something the object uses, and the object is in every one of its scopes. */
export function quotaMatches(quota: ResourceQuota, ev: QuotaEvaluator, obj: Unstructured, hardNames: Iterable<string>): boolean {
  if (matchingResources(ev, hardNames).length === 0) return false;
  return quotaScopeRequirements(quota).every((req) => ev.matchesScope(req, obj));
}

/** The usage of a set of objects of one resource against a quota: the sum over the objects the quota matches, masked to its names, zero for names nothing uses. */
export function usageOf(quota: ResourceQuota, ev: QuotaEvaluator, objects: Iterable<Unstructured>, now: Date): ResourceList {
  const hard = quotaHard(quota);
  const names = matchingResources(ev, hard.keys());
  // Every name the evaluator accounts for starts at zero (UsageStats), so status.used lists them all.
  let used: ResourceList = new Map(names.map((n) => [n, quantityFromInt(0)]));
  for (const obj of objects) {
    if (!quotaMatches(quota, ev, obj, hard.keys())) continue;
    used = addLists(used, maskList(ev.usage(obj, now), names));
  }
  return used;
}
