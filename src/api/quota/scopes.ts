/**
 * Quota scopes (upstream pkg/quota/v1/evaluator/core/pods.go podMatchesScopeFunc):
 * spec.scopes are requirements with operator Exists; spec.scopeSelector adds
 * In/NotIn/Exists/DoesNotExist requirements (PriorityClass matches the pod's
 * priorityClassName against the values). A quota with scopes matches only
 * objects in every one of them, which only pods can be.
 */
import type { Pod, ResourceQuota } from 'kubernetes-types/core/v1.js';

export interface ScopeRequirement {
  scopeName: string;
  operator: string;
  values?: string[];
}

/** GetScopeSelectorsFromQuota. */
export function quotaScopeRequirements(quota: ResourceQuota): ScopeRequirement[] {
  const reqs: ScopeRequirement[] = (quota.spec?.scopes ?? []).map((s) => ({ scopeName: s, operator: 'Exists' }));
  for (const e of quota.spec?.scopeSelector?.matchExpressions ?? []) reqs.push({ scopeName: e.scopeName, operator: e.operator, values: e.values });
  return reqs;
}

const isTerminating = (pod: Pod) => pod.spec?.activeDeadlineSeconds != null && pod.spec.activeDeadlineSeconds >= 0;

/** QoS BestEffort: no container (init containers included) requests or limits cpu or memory. */
export function isBestEffort(pod: Pod): boolean {
  const all = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  const names = (l: Record<string, unknown> | undefined) => Object.keys(l ?? {}).filter((k) => k === 'cpu' || k === 'memory');
  return all.every((c) => names(c.resources?.requests).length === 0 && names(c.resources?.limits).length === 0);
}

function priorityClassMatches(req: ScopeRequirement, pod: Pod): boolean {
  const name = pod.spec?.priorityClassName ?? '';
  switch (req.operator) {
    case 'Exists': return name !== '';
    case 'DoesNotExist': return name === '';
    case 'In': return (req.values ?? []).includes(name);
    case 'NotIn': return !(req.values ?? []).includes(name);
    default: return false;
  }
}

export function podMatchesScope(req: ScopeRequirement, pod: Pod): boolean {
  switch (req.scopeName) {
    case 'Terminating': return isTerminating(pod);
    case 'NotTerminating': return !isTerminating(pod);
    case 'BestEffort': return isBestEffort(pod);
    case 'NotBestEffort': return !isBestEffort(pod);
    case 'PriorityClass': return priorityClassMatches(req, pod);
    default: return false;
  }
}
