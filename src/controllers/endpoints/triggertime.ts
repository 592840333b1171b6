/**
 * TriggerTimeTracker (upstream pkg/controller/util/endpoint): the
 * `endpoints.kubernetes.io/last-change-trigger-time` of an Endpoints update
 * is the earliest change that caused it: a pod's Ready transition newer than
 * the last sync saw, or the service's creation when first seen.
 */
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import { podCondition } from '../../api/pods.js';

interface ServiceState { podTriggerTimes: Map<string, number>; lastServiceTriggerTime: number }

export class TriggerTimeTracker {
  private readonly states = new Map<string, ServiceState>();

  /** The minimum changed trigger time since the last call for the service, or undefined. */
  compute(svc: Service, pods: Iterable<Pod>): Date | undefined {
    const key = `${svc.metadata!.namespace}/${svc.metadata!.name}`;
    const state = this.states.get(key);
    const next: ServiceState = { podTriggerTimes: new Map(), lastServiceTriggerTime: 0 };
    let min: number | undefined;
    const consider = (t: number) => { if (min === undefined || t < min) min = t; };
    for (const pod of pods) {
      const t = Date.parse(podCondition(pod, 'Ready')?.lastTransitionTime ?? '');
      if (!Number.isFinite(t)) continue;
      next.podTriggerTimes.set(pod.metadata!.name!, t);
      if (t > (state?.podTriggerTimes.get(pod.metadata!.name!) ?? 0)) consider(t);
    }
    const created = Date.parse(svc.metadata!.creationTimestamp ?? '');
    if (Number.isFinite(created)) {
      if (created > (state?.lastServiceTriggerTime ?? 0)) consider(created);
      next.lastServiceTriggerTime = created;
    }
    this.states.set(key, next);
    return min === undefined ? undefined : new Date(min);
  }

  delete(key: string): void { this.states.delete(key); }
}
