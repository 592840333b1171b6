/**
 * The LimitRanger admission plugin: on pod creation, every LimitRange of the
 * namespace first defaults the containers' requests and limits and then
 * validates them; claims are validated on create and update
 * (limitrange-rules.ts). Pod updates are not checked, as upstream: their
 * containers' resources cannot change.
 */
import type { ResourceInfo } from '../../api/resources.js';
import { forbiddenStatus } from '../../api/status.js';
import type { Registry } from '../../registry/registry.js';
import { aggregateMessage, applyLimitRangeDefaults, validatePVCLimits, validatePodLimits } from './limitrange-rules.js';

export function limitRangerAdmission(registry: () => Registry) {
  return async (op: 'create' | 'update', info: ResourceInfo, obj: any): Promise<void> => {
    if (info.group !== '') return;
    const isPod = info.plural === 'pods' && op === 'create';
    const isClaim = info.plural === 'persistentvolumeclaims';
    if (!isPod && !isClaim) return;
    const { items } = await registry().store('', 'v1', 'limitranges')!.list(obj.metadata.namespace);
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
