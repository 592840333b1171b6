/**
 * Pods: status starts Pending and belongs to the kubelet (/status); deletion is
 * graceful while a kubelet may be running the pod (upstream pod strategy's
 * CheckGracefulDelete); pods/ephemeralcontainers changes only
 * spec.ephemeralContainers (upstream's podEphemeralContainersStrategy).
 */
import type { Pod, PodCondition, PodSpec } from 'kubernetes-types/core/v1.js';
import type { ResourceInfo } from '../../api/resources.js';
import type { Strategy } from '../strategy.js';
import type { DeleteOptions } from '../types.js';
import { genericStrategy } from './generic.js';
import { podQOSClass } from '../../api/qos.js';

/**
 * Upstream's dropNonEphemeralContainerUpdates (v1.32): the stored pod, with the
 * written pod's identity (which the store has already made the stored one's)
 * and its spec.ephemeralContainers. Labels, annotations and the rest of the
 * spec cannot change through this subresource. A new list goes right after
 * spec.containers, where the API server's encoding puts it.
 */
export function dropNonEphemeralContainerUpdates(obj: Pod, old: Pod): void {
  const ephemeral = obj.spec?.ephemeralContainers;
  for (const k of Object.keys(obj)) delete (obj as Record<string, unknown>)[k];
  Object.assign(obj, old, { metadata: { ...old.metadata } });
  const spec: Partial<PodSpec> = {};
  for (const [k, v] of Object.entries(old.spec ?? {})) {
    if (k === 'ephemeralContainers') continue;
    (spec as Record<string, unknown>)[k] = v;
    if (k === 'containers' && ephemeral !== undefined) spec.ephemeralContainers = ephemeral;
  }
  if (ephemeral !== undefined) spec.ephemeralContainers = ephemeral;
  obj.spec = spec as PodSpec;
}

/**
 * Upstream's applySchedulingGatedCondition: a pod created with scheduling gates
 * says why it waits, so `kubectl get pod` prints SchedulingGated rather than
 * Pending (the Pod Scheduling Readiness page). Its times are null, as
 * upstream's zero metav1.Time encodes; the binding replaces the condition.
 */
const schedulingGated = {
  type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: null,
  reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates',
} as unknown as PodCondition;

export function podStrategy(info: ResourceInfo): Strategy {
  const base = genericStrategy(info);
  return {
    ...base,
    prepareForCreate(obj) {
      base.prepareForCreate(obj);
      obj.status = { phase: 'Pending', qosClass: podQOSClass(obj.spec) };
      if (obj.spec?.schedulingGates?.length) obj.status.conditions = [{ ...schedulingGated }];
    },
    prepareForStatusUpdate(obj, old, subresource) {
      if (subresource === 'ephemeralcontainers') dropNonEphemeralContainerUpdates(obj, old);
      else base.prepareForStatusUpdate(obj, old, subresource);
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
