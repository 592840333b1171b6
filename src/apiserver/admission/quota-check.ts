/**
 * ResourceQuota admission's decision, as a pure function of the namespace's
 * quotas and the new object (upstream plugin/pkg/admission/resourcequota
 * controller.go checkRequest), in its order:
 *  1. Quotas that match the object (it uses a resource they limit, and is in
 *     all their scopes) are the interesting ones.
 *  2. Each of them first applies the evaluator's constraints
 *     (`failed quota: q: must specify limits.cpu for: c`), then must have
 *     usage for every resource it limits (`status unknown for quota: ...`:
 *     the resourcequota controller has not counted yet).
 *  3. The object's non-zero usage, masked to each quota's hard names, is
 *     added to its status.used; any sum above hard refuses the object
 *     (`exceeded quota: q, requested: ..., used: ..., limited: ...`).
 *  4. Otherwise the new used values are what the caller writes back.
 */
import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import {
  ResourceList, addLists, lessThanOrEqual, maskList, matchingResources, parseResourceList, prettyPrint, quotaHard, quotaMatches,
  removeZeros, type QuotaEvaluator,
} from '../../api/quota/index.js';

export interface QuotaCharge { quota: ResourceQuota; used: ResourceList }

export type QuotaDecision = { allowed: true; charges: QuotaCharge[] } | { allowed: false; message: string };

export function checkQuotas(quotas: readonly ResourceQuota[], ev: QuotaEvaluator, obj: any, now: Date): QuotaDecision {
  const interesting: ResourceQuota[] = [];
  for (const quota of quotas) {
    const hard = quotaHard(quota);
    if (!quotaMatches(quota, ev, obj, hard.keys())) continue;
    const restricted = matchingResources(ev, hard.keys());
    const failed = ev.constraints?.(restricted, obj);
    if (failed) return { allowed: false, message: `failed quota: ${quota.metadata?.name}: ${failed}` };
    const used = quota.status?.used ?? {};
    if (!quota.status?.hard || restricted.some((r) => !(r in used))) {
      return { allowed: false, message: `status unknown for quota: ${quota.metadata?.name}, resources: ${restricted.join(',')}` };
    }
    interesting.push(quota);
  }
  const delta = removeZeros(ev.usage(obj, now));
  if (interesting.length === 0 || delta.size === 0) return { allowed: true, charges: [] };
  const charges: QuotaCharge[] = [];
  for (const quota of interesting) {
    const hard = quotaHard(quota);
    const used = parseResourceList(quota.status?.used);
    const requested = maskList(delta, hard.keys());
    if (requested.size === 0) continue;
    const newUsed = addLists(used, requested);
    const { allowed, exceeded } = lessThanOrEqual(maskList(newUsed, requested.keys()), hard);
    if (!allowed) {
      return {
        allowed: false,
        message: `exceeded quota: ${quota.metadata?.name}, requested: ${prettyPrint(maskList(requested, exceeded))}, ` +
          `used: ${prettyPrint(maskList(used, exceeded))}, limited: ${prettyPrint(maskList(hard, exceeded))}`,
      };
    }
    charges.push({ quota, used: newUsed });
  }
  return { allowed: true, charges };
}
