/**
 * Stale DisruptionTarget conditions (upstream nonTerminatingPodHasStaleDisruptionCondition):
 * a pod marked DisruptionTarget=True by an eviction, a preemption or a
 * controller, but still not terminating after stalePodDisruptionTimeout
 * (2 minutes), was not disrupted after all; the condition is set back to
 * False. Conditions the kubelet set (TerminationByKubelet) and those of
 * terminal pods stay.
 */
import type { Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import { podCondition, podIsTerminal } from '../../api/pods.js';
import { disruptionTargetCondition } from '../../api/disruptionbudget.js';

export const stalePodDisruptionTimeoutMs = 2 * 60 * 1000;

/** Milliseconds until the pod's condition is stale (0: now), or undefined when it has none to clear. */
export function staleDisruptionWait(pod: Pod, now: Date, timeoutMs = stalePodDisruptionTimeoutMs): number | undefined {
  if (pod.metadata?.deletionTimestamp || podIsTerminal(pod)) return undefined;
  const c = podCondition(pod, disruptionTargetCondition);
  if (!c || c.status !== 'True' || c.reason === 'TerminationByKubelet') return undefined;
  const since = Date.parse(c.lastTransitionTime ?? '');
  return Math.max(0, (Number.isNaN(since) ? 0 : since) + timeoutMs - now.getTime());
}

/** The pod with DisruptionTarget reset to False (UpdatePodCondition with only type and status). */
export function withDisruptionTargetCleared(pod: Pod, now: string): Pod {
  const conditions = (pod.status?.conditions ?? []).map((c): PodCondition => (c.type === disruptionTargetCondition ? { type: c.type, status: 'False', lastTransitionTime: now } : c));
  return { ...pod, kind: 'Pod', apiVersion: 'v1', status: { ...pod.status, conditions } };
}
