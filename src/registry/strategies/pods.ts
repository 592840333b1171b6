/**
 * Pods: status starts Pending and belongs to the kubelet (/status); deletion is
 * graceful while a kubelet may be running the pod (upstream pod strategy's
 * CheckGracefulDelete).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ResourceInfo } from '../../api/resources.js';
import type { Strategy } from '../strategy.js';
import type { DeleteOptions } from '../types.js';
import { genericStrategy } from './generic.js';
import { podQOSClass } from '../../api/qos.js';

export function podStrategy(info: ResourceInfo): Strategy {
  const base = genericStrategy(info);
  return {
    ...base,
    prepareForCreate(obj) {
      base.prepareForCreate(obj);
      obj.status = { phase: 'Pending', qosClass: podQOSClass(obj.spec) };
    },
    gracePeriod(obj: Pod, options: DeleteOptions): number {
      // An unscheduled or finished pod has nothing to stop: delete at once.
      if (!obj.spec?.nodeName) return 0;
      const phase = obj.status?.phase;
      if (phase === 'Succeeded' || phase === 'Failed') return 0;
      const g = options.gracePeriodSeconds ?? obj.spec?.terminationGracePeriodSeconds ?? 30;
      // A negative or zero grace period means now (upstream turns 0 into force deletion).
      return g > 0 ? g : 0;
    },
  };
}
