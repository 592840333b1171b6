/**
 * The disruption controller's arithmetic (upstream pkg/controller/disruption),
 * pure so it can be tested by table:
 *  - expectedPodCount: with maxUnavailable, expected = the sum of the pods'
 *    controllers' scales and desiredHealthy = expected - maxUnavailable (a
 *    percentage of expected, rounded up), never below 0; with an integer
 *    minAvailable, expected = the number of selected pods and desiredHealthy
 *    = minAvailable; with a percentage minAvailable, expected = the scales'
 *    sum and desiredHealthy = that percentage of it, rounded up. Pods without
 *    a controller are "unmanaged" and count for nothing in the scales' sum;
 *  - countHealthyPods: ready pods that are neither terminating nor recorded
 *    as disrupted within the last DeletionTimeout;
 *  - buildDisruptedPodMap: keeps the entries of pods still present, not
 *    terminating, and not older than DeletionTimeout, and says when to look
 *    again; unlike upstream, a pod created at or after its entry's time is a
 *    replacement of the same name (StatefulSets) and drops the entry;
 *  - budgetStatus: disruptionsAllowed = currentHealthy - desiredHealthy, 0
 *    when negative or when no pods are expected.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget, PodDisruptionBudgetStatus } from 'kubernetes-types/policy/v1.js';
import { scaledValueFromIntOrPercent } from '../../api/intstr.js';
import { controllerRef, podIsReady } from '../../api/pods.js';
import { setDisruptionAllowedCondition, setStatusCondition } from '../../api/disruptionbudget.js';
import { rfc3339 } from '../../util/clock.js';

/** DeletionTimeout: how long an approved eviction keeps a pod out of currentHealthy (2 minutes). */
export const deletionTimeoutMs = 2 * 60 * 1000;

/** A pod's controller and its scale, deduplicated by uid; undefined when the controller is unknown. */
export type ScaleOf = (ref: { apiVersion: string; kind: string; name: string; uid: string }, namespace: string) => Promise<{ uid: string; scale: number } | undefined>;

export interface ExpectedCount { expectedCount: number; desiredHealthy: number; unmanagedPods: string[] }

/** getExpectedScale: the sum of the distinct controllers' scales. Throws when a controller cannot be found. */
export async function expectedScale(pods: readonly Pod[], scaleOf: ScaleOf): Promise<{ expected: number; unmanagedPods: string[] }> {
  const scales = new Map<string, number>();
  const unmanagedPods: string[] = [];
  for (const pod of pods) {
    const ref = controllerRef(pod);
    if (!ref) { unmanagedPods.push(pod.metadata!.name!); continue; }
    if (scales.has(ref.uid)) continue;
    const found = await scaleOf(ref, pod.metadata!.namespace!);
    if (!found) throw new Error(`found no controllers for pod "${pod.metadata!.name}"`);
    scales.set(found.uid, found.scale);
  }
  let expected = 0;
  for (const s of scales.values()) expected += s;
  return { expected, unmanagedPods };
}

function scaled(v: number | string, total: number): number {
  const r = scaledValueFromIntOrPercent(v, total, true);
  if ('error' in r) throw new Error(r.error);
  return r.value;
}

export async function expectedPodCount(pdb: PodDisruptionBudget, pods: readonly Pod[], scaleOf: ScaleOf): Promise<ExpectedCount> {
  const { maxUnavailable, minAvailable } = pdb.spec ?? {};
  if (maxUnavailable !== undefined && maxUnavailable !== null) {
    const { expected, unmanagedPods } = await expectedScale(pods, scaleOf);
    return { expectedCount: expected, desiredHealthy: Math.max(0, expected - scaled(maxUnavailable, expected)), unmanagedPods };
  }
  if (typeof minAvailable === 'number') return { expectedCount: pods.length, desiredHealthy: minAvailable, unmanagedPods: [] };
  if (typeof minAvailable === 'string') {
    const { expected, unmanagedPods } = await expectedScale(pods, scaleOf);
    return { expectedCount: expected, desiredHealthy: scaled(minAvailable, expected), unmanagedPods };
  }
  return { expectedCount: 0, desiredHealthy: 0, unmanagedPods: [] };
}

const recentlyDisrupted = (at: string | undefined, now: Date) => at !== undefined && Date.parse(at) + deletionTimeoutMs > now.getTime();

export function countHealthyPods(pods: readonly Pod[], disruptedPods: Record<string, string>, now: Date): number {
  let healthy = 0;
  for (const pod of pods) {
    if (pod.metadata!.deletionTimestamp) continue;
    if (recentlyDisrupted(disruptedPods[pod.metadata!.name!], now)) continue;
    if (podIsReady(pod)) healthy++;
  }
  return healthy;
}

/** The entries still pending, and the earliest time one of them expires (to sync again then). */
export function buildDisruptedPodMap(pods: readonly Pod[], pdb: PodDisruptionBudget, now: Date): { disruptedPods: Record<string, string>; recheckAt?: number } {
  const recorded: Record<string, string> = pdb.status?.disruptedPods ?? {};
  const disruptedPods: Record<string, string> = {};
  let recheckAt: number | undefined;
  for (const pod of pods) {
    const meta = pod.metadata!;
    if (meta.deletionTimestamp) continue;
    const at = recorded[meta.name!];
    if (at === undefined) continue;
    // A pod of the same name created since (a StatefulSet's replacement) is not the one evicted.
    if (Date.parse(meta.creationTimestamp ?? '') >= Date.parse(at)) continue;
    const expires = Date.parse(at) + deletionTimeoutMs;
    if (expires < now.getTime()) continue;
    recheckAt = recheckAt === undefined ? expires : Math.min(recheckAt, expires);
    disruptedPods[meta.name!] = at;
  }
  return { disruptedPods, recheckAt };
}

export interface Counts { currentHealthy: number; desiredHealthy: number; expectedCount: number; disruptedPods: Record<string, string> }

const sameMap = (a: Record<string, string> | undefined, b: Record<string, string>) =>
  JSON.stringify(Object.entries(a ?? {}).sort()) === JSON.stringify(Object.entries(b).sort());

/** updatePdbStatus: the new status, or undefined when the stored one already says so. */
export function budgetStatus(pdb: PodDisruptionBudget, c: Counts, now: Date): PodDisruptionBudgetStatus | undefined {
  let disruptionsAllowed = c.currentHealthy - c.desiredHealthy;
  if (c.expectedCount <= 0 || disruptionsAllowed <= 0) disruptionsAllowed = 0;
  const s: Partial<PodDisruptionBudgetStatus> = pdb.status ?? {};
  const generation = pdb.metadata!.generation ?? 0;
  const status: PodDisruptionBudgetStatus = {
    ...(Object.keys(c.disruptedPods).length ? { disruptedPods: c.disruptedPods } : {}),
    disruptionsAllowed, currentHealthy: c.currentHealthy, desiredHealthy: c.desiredHealthy, expectedPods: c.expectedCount,
    observedGeneration: generation, conditions: structuredClone(s.conditions ?? []),
  };
  setDisruptionAllowedCondition(status, generation, rfc3339(now));
  const unchanged = s.currentHealthy === c.currentHealthy && s.desiredHealthy === c.desiredHealthy && s.expectedPods === c.expectedCount
    && s.disruptionsAllowed === disruptionsAllowed && sameMap(s.disruptedPods, c.disruptedPods) && s.observedGeneration === generation
    && JSON.stringify(s.conditions ?? []) === JSON.stringify(status.conditions);
  return unchanged ? undefined : status;
}

/** failSafe: no disruptions, and DisruptionAllowed False with reason SyncFailed and the error. */
export function failSafeStatus(pdb: PodDisruptionBudget, err: Error, now: Date): PodDisruptionBudgetStatus {
  const status = structuredClone(pdb.status ?? {}) as PodDisruptionBudgetStatus;
  status.disruptionsAllowed = 0;
  setStatusCondition(status, { type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message: err.message, observedGeneration: status.observedGeneration ?? 0 }, rfc3339(now));
  return status;
}
