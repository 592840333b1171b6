/**
 * The LimitRanger admission plugin: on pod creation, every LimitRange of the
 * namespace first defaults the containers' requests and limits and then
 * validates them; claims are validated on create and update
 * (limitrange-rules.ts). Pod updates are not checked, as upstream: their
 * containers' resources cannot change. The namespace's LimitRanges come from
 * the watch-fed cache, as upstream's plugin reads its lister.
 */
import type { ResourceInfo } from '../../api/resources.js';
import { forbiddenStatus } from '../../api/status.js';
import type { LimitRange } from 'kubernetes-types/core/v1.js';
import type { Lister } from '../../registry/lister.js';
import { aggregateMessage, applyLimitRangeDefaults, validatePVCLimits, validatePodLimits } from './limitrange-rules.js';

export function limitRangerAdmission(limitRanges: Lister<LimitRange>) {
  return (op: 'create' | 'update', info: ResourceInfo, obj: any): void => {
    if (info.group !== '') return;
    const isPod = info.plural === 'pods' && op === 'create';
    const isClaim = info.plural === 'persistentvolumeclaims';
    if (!isPod && !isClaim) return;
    const items = limitRanges.list(obj.metadata.namespace);
    const errs: string[] = [];
    for (const lr of items) {
      if (isPod) {
        applyLimitRangeDefaults(obj, lr);
        errs.push(...validatePodLimits(obj, lr));
      } else {
        errs.push(...validatePVCLimits(obj, lr));
      }
    }
    if (errs.length) throw forbiddenStatus(aggregateMessage(errs), { group: '', resource: info.plural }, obj.metadata.name);
  };
}
