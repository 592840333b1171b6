/**
 * The taint-eviction decision for one pod on one node (upstream
 * `pkg/controller/tainteviction/taint_eviction.go`, processPodOnNode). Pure:
 * the controller applies the result to its timed queue.
 *
 * Given the node's NoExecute taints and the pod's tolerations, in this order:
 *  1. No NoExecute taints: cancel any scheduled eviction.
 *  2. A taint no toleration tolerates: cancel any scheduled eviction and
 *     evict at once.
 *  3. Every taint tolerated, none of the used tolerations (the first matching
 *     one per taint) sets tolerationSeconds: tolerated forever, cancel.
 *  4. Otherwise the pod may stay for the smallest tolerationSeconds of the
 *     used tolerations (any value <= 0 means at once), counted from when the
 *     controller first saw it so (upstream counts from its own observation,
 *     not from the taint's timeAdded): an eviction already scheduled earlier
 *     is kept; otherwise one is scheduled for now + that time.
 */
import type { Taint, Toleration } from '../../api/tolerations.js';
import { getMatchingTolerations, minTolerationSeconds } from '../../api/tolerations.js';

export type EvictionPlan =
  | { action: 'cancel' }
  | { action: 'evictNow' }
  | { action: 'keep' }
  | { action: 'schedule'; createdAt: Date; fireAt: Date; replace: boolean };

/** What the controller knows about an eviction already pending for the pod. */
export interface ScheduledEviction { createdAt: Date; fireAt: Date }

/** The NoExecute taints of a taint list, in order (getNoExecuteTaints). */
export function getNoExecuteTaints(taints: readonly Taint[] | undefined): Taint[] {
  return (taints ?? []).filter((t) => t.effect === 'NoExecute');
}

/** The rules of the file comment, in their order. */
export function planPodEviction(taints: readonly Taint[], tolerations: readonly Toleration[] | undefined, now: Date,
  scheduled?: ScheduledEviction): EvictionPlan {
  if (taints.length === 0) return { action: 'cancel' }; // 1
  const matching = getMatchingTolerations(taints, tolerations);
  if (!matching.tolerated) return { action: 'evictNow' }; // 2
  const seconds = minTolerationSeconds(matching.tolerations);
  if (seconds === undefined) return { action: 'cancel' }; // 3
  const ms = seconds * 1000; // 4
  const triggerTime = new Date(now.getTime() + ms);
  if (!scheduled) return { action: 'schedule', createdAt: now, fireAt: triggerTime, replace: false };
  if (scheduled.createdAt.getTime() + ms < triggerTime.getTime()) return { action: 'keep' };
  return { action: 'schedule', createdAt: scheduled.createdAt, fireAt: triggerTime, replace: true };
}

/** Semantic equality of two taint lists (order matters, as upstream's DeepEqual). */
export function taintsEqual(a: readonly Taint[], b: readonly Taint[]): boolean {
  return a.length === b.length && a.every((t, i) => sameTaint(t, b[i]));
}

function sameTaint(a: Taint, b: Taint): boolean {
  return a.key === b.key && (a.value ?? '') === (b.value ?? '') && (a.effect ?? '') === (b.effect ?? '')
    && timeEqual(a.timeAdded, b.timeAdded);
}

const timeEqual = (a?: string, b?: string) => (a ? Date.parse(a) : NaN) === (b ? Date.parse(b) : NaN) || (a ?? '') === (b ?? '');

/** Semantic equality of two toleration lists (order matters). */
export function tolerationsEqual(a: readonly Toleration[] | undefined, b: readonly Toleration[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((t, i) => (t.key ?? '') === (y[i].key ?? '') && (t.operator ?? '') === (y[i].operator ?? '')
    && (t.value ?? '') === (y[i].value ?? '') && (t.effect ?? '') === (y[i].effect ?? '')
    && (t.tolerationSeconds ?? null) === (y[i].tolerationSeconds ?? null));
}
