/** Pod state predicates shared by controllers, the scheduler and the kubelet. */
import type { Node, Pod, PodCondition as V1PodCondition } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';

export function podCondition(pod: Pod | undefined, type: string): V1PodCondition | undefined {
  return (pod?.status?.conditions ?? []).find((c) => c.type === type);
}

/** Ready condition True (upstream podutil.IsPodReady). */
export function podIsReady(pod: Pod | undefined): boolean {
  return podCondition(pod, 'Ready')?.status === 'True';
}

/** Ready for at least minReadySeconds at `now` (upstream podutil.IsPodAvailable). */
export function podIsAvailable(pod: Pod | undefined, minReadySeconds: number, now: Date): boolean {
  const c = podCondition(pod, 'Ready');
  if (c?.status !== 'True') return false;
  if (!minReadySeconds) return true;
  const since = c.lastTransitionTime ? Date.parse(c.lastTransitionTime) : 0;
  return since + minReadySeconds * 1000 <= now.getTime();
}

export const podIsTerminating = (pod: Pod | undefined) => !!pod?.metadata?.deletionTimestamp;
export const podIsTerminal = (pod: Pod | undefined) => pod?.status?.phase === 'Succeeded' || pod?.status?.phase === 'Failed';
export const podIsActive = (pod: Pod | undefined) => !podIsTerminating(pod) && !podIsTerminal(pod);

/** The controlling ownerReference, if any. */
export function controllerRef(obj: { metadata?: ObjectMeta } | undefined): OwnerReference | undefined {
  return (obj?.metadata?.ownerReferences ?? []).find((r) => r.controller);
}

/** Node Ready condition status: 'True' | 'False' | 'Unknown' (absent counts as Unknown). */
export function nodeReadyStatus(node: Node | undefined): string {
  return (node?.status?.conditions ?? []).find((c) => c.type === 'Ready')?.status ?? 'Unknown';
}

export const rfc3339Now = (now: Date) => now.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Pod condition update as upstream's `pkg/api/v1/pod` UpdatePodCondition:
 * the condition's lastTransitionTime is now unless the status is unchanged;
 * returns whether anything changed.
 */
export interface PodCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
}

/** Sets `condition` in `status.conditions` (mutated); true when that changed the status. */
export function updatePodCondition(status: { conditions?: PodCondition[] }, condition: PodCondition, now: Date): boolean {
  const cond: PodCondition = { ...condition, lastTransitionTime: rfc3339Now(now) };
  const conditions = (status.conditions ??= []);
  const i = conditions.findIndex((c) => c.type === cond.type);
  if (i < 0) {
    conditions.push(cond);
    return true;
  }
  const old = conditions[i];
  if (cond.status === old.status) cond.lastTransitionTime = old.lastTransitionTime;
  const equal = cond.status === old.status && (cond.reason ?? '') === (old.reason ?? '') && (cond.message ?? '') === (old.message ?? '')
    && (cond.lastProbeTime ?? null) === (old.lastProbeTime ?? null) && cond.lastTransitionTime === old.lastTransitionTime;
  conditions[i] = cond;
  return !equal;
}
