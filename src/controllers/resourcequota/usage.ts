/**
 * A quota's status computed from the objects of its namespace (upstream
 * quota.CalculateUsage): for each resource whose evaluator accounts for one
 * of the quota's hard names, the objects' usage summed; status.hard is
 * spec.hard and status.used is masked to it.
 */
import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import {
  ResourceList, addLists, evaluatorFor, maskList, matchingResources, parseResourceList, resourceListJSON, usageOf,
} from '../../api/quota/index.js';

/** A namespaced resource the controller can read: group and plural. */
export interface QuotaResource { group: string; plural: string }

/** The resources always considered, plus one per `count/<resource>[.<group>]` name of the quota. */
export function resourcesToCount(quota: ResourceQuota): QuotaResource[] {
  const out: QuotaResource[] = [
    { group: '', plural: 'pods' }, { group: '', plural: 'services' }, { group: '', plural: 'persistentvolumeclaims' },
    { group: '', plural: 'configmaps' }, { group: '', plural: 'secrets' }, { group: '', plural: 'resourcequotas' },
  ];
  for (const name of Object.keys(quota.spec?.hard ?? {})) {
    if (!name.startsWith('count/')) continue;
    const rest = name.slice('count/'.length);
    const dot = rest.indexOf('.');
    const r = dot < 0 ? { group: '', plural: rest } : { group: rest.slice(dot + 1), plural: rest.slice(0, dot) };
    if (!out.some((o) => o.group === r.group && o.plural === r.plural)) out.push(r);
  }
  return out.filter((r) => matchingResources(evaluatorFor(r.group, r.plural), Object.keys(quota.spec?.hard ?? {})).length > 0);
}

/** The status the quota should have, given each counted resource's objects in its namespace. */
export function quotaStatus(quota: ResourceQuota, objects: Map<QuotaResource, any[]>, now: Date): { hard: Record<string, string>; used: Record<string, string> } {
  const hard = parseResourceList(quota.spec?.hard);
  // Usage is computed against spec.hard: status.hard may still be the old limits.
  const asSpec: ResourceQuota = { ...quota, status: { hard: quota.spec?.hard } };
  let used: ResourceList = new Map();
  for (const [r, items] of objects) used = addLists(used, usageOf(asSpec, evaluatorFor(r.group, r.plural), items, now));
  return { hard: resourceListJSON(hard), used: resourceListJSON(maskList(used, hard.keys())) };
}
