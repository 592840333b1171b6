/**
 * autoscaling/v1 HorizontalPodAutoscalers: served from the stored v2 objects
 * (src/api/hpa-conversion.ts) and validated in that form, as upstream
 * validates the internal version every served version converts to.
 */
import type { ResourceInfo } from '../../api/resources.js';
import { applyDefaults } from '../../api/defaults/index.js';
import { hpaV1ToV2, hpaV2ToV1 } from '../../api/hpa-conversion.js';
import { validateCreate, validateUpdate } from '../../api/validation/index.js';
import type { Strategy } from '../strategy.js';
import { initialStatusStrategy } from './simple-status.js';

const v2Key = 'autoscaling/v2/HorizontalPodAutoscaler';

/** v1 → stored v2, with v2's defaults (a v1 object without a CPU target reads back with 80%). */
function toStorage(obj: any): any {
  const v2 = hpaV1ToV2(obj);
  applyDefaults(v2Key, v2);
  return v2;
}

/** A new autoscaler's status: HorizontalPodAutoscalerStatus's replica counts are not omitempty. */
const newStatus = () => ({ currentReplicas: 0, desiredReplicas: 0 });

export const hpaV2Strategy = (info: ResourceInfo): Strategy => initialStatusStrategy(info, newStatus);

export function hpaV1Strategy(info: ResourceInfo): Strategy {
  return initialStatusStrategy(info, newStatus, {
    conversion: { toStorage, fromStorage: hpaV2ToV1 },
    validate: (obj) => validateCreate(v2Key, toStorage(obj)),
    validateUpdate: (obj, old, subresource) => validateUpdate(v2Key, toStorage(obj), toStorage(old), subresource),
  });
}
