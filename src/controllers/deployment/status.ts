/**
 * Deployment status (upstream sync.go calculateStatus, syncRolloutStatus,
 * requeueStuckDeployment and progress.go), pure:
 *  - replicas / updatedReplicas / readyReplicas / availableReplicas from the
 *    ReplicaSets' statuses; unavailableReplicas = Σ spec.replicas − available
 *    (never negative); observedGeneration; collisionCount carried.
 *  - Available: True MinimumReplicasAvailable when available ≥ replicas −
 *    maxUnavailable, else False MinimumReplicasUnavailable.
 *  - Progressing (only with a progress deadline, and not once complete):
 *    NewReplicaSetAvailable when complete; ReplicaSetUpdated (lastUpdateTime
 *    refreshed) on any progress; ProgressDeadlineExceeded once
 *    lastUpdateTime + progressDeadlineSeconds has passed.
 *  - ReplicaFailure copied from a ReplicaSet that reports one.
 */
import type { Deployment, DeploymentCondition, DeploymentStatus, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { sortKeys } from '../../api/history.js';
import {
  available, getCondition, hasProgressDeadline, maxUnavailable, newCondition, progressing, reasons, removeCondition, replicaFailure,
  setCondition, sumSpec, sumStatus,
} from './util.js';

export function calculateStatus(allRSs: readonly ReplicaSet[], newRS: ReplicaSet | undefined, d: Deployment, now: Date): DeploymentStatus {
  const availableReplicas = sumStatus(allRSs, 'availableReplicas');
  const status: DeploymentStatus = {
    observedGeneration: d.metadata?.generation ?? 0,
    replicas: sumStatus(allRSs, 'replicas'),
    updatedReplicas: sumStatus(newRS ? [newRS] : [], 'replicas'),
    readyReplicas: sumStatus(allRSs, 'readyReplicas'),
    availableReplicas,
    unavailableReplicas: Math.max(0, sumSpec(allRSs) - availableReplicas),
  };
  if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
  if (d.status?.conditions?.length) status.conditions = d.status.conditions.map((c) => ({ ...c }));
  if (availableReplicas >= (d.spec?.replicas ?? 1) - maxUnavailable(d)) {
    setCondition(status, newCondition(available, 'True', reasons.minimumAvailable, 'Deployment has minimum availability.', now));
  } else {
    setCondition(status, newCondition(available, 'False', reasons.minimumUnavailable, 'Deployment does not have minimum availability.', now));
  }
  return status;
}

/** DeploymentComplete. */
export function deploymentComplete(d: Deployment, s: DeploymentStatus): boolean {
  const replicas = d.spec?.replicas ?? 1;
  return (s.updatedReplicas ?? 0) === replicas && (s.replicas ?? 0) === replicas && (s.availableReplicas ?? 0) === replicas
    && (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0);
}

/** DeploymentProgressing: more updated, fewer old, more ready or more available replicas than before. */
export function deploymentProgressing(d: Deployment, s: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (s.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) || newOld < oldOld
    || (s.readyReplicas ?? 0) > (old.readyReplicas ?? 0) || (s.availableReplicas ?? 0) > (old.availableReplicas ?? 0);
}

/** DeploymentTimedOut. */
export function deploymentTimedOut(d: Deployment, s: DeploymentStatus, now: Date): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = getCondition(s, progressing);
  if (!c) return false;
  if (c.reason === reasons.newRSAvailable) return false;
  if (c.reason === reasons.timedOut) return true;
  return Date.parse(c.lastUpdateTime ?? '') + d.spec!.progressDeadlineSeconds! * 1000 < now.getTime();
}

/** syncRolloutStatus's new status: calculateStatus plus the Progressing and ReplicaFailure conditions. */
export function rolloutStatus(allRSs: readonly ReplicaSet[], newRS: ReplicaSet | undefined, d: Deployment, now: Date): DeploymentStatus {
  const s = calculateStatus(allRSs, newRS, d, now);
  if (!hasProgressDeadline(d)) removeCondition(s, progressing);
  const cur = getCondition(d.status, progressing);
  const isComplete = s.replicas === s.updatedReplicas && cur?.reason === reasons.newRSAvailable;
  const subject = newRS ? `ReplicaSet "${newRS.metadata?.name}"` : `Deployment "${d.metadata?.name}"`;
  if (hasProgressDeadline(d) && !isComplete) {
    if (deploymentComplete(d, s)) {
      setCondition(s, newCondition(progressing, 'True', reasons.newRSAvailable, `${subject} has successfully progressed.`, now));
    } else if (deploymentProgressing(d, s)) {
      // Same reason, fresh lastUpdateTime: setCondition alone would keep the old one.
      const c = newCondition(progressing, 'True', reasons.rsUpdated, `${subject} is progressing.`, now);
      if (cur?.status === 'True') c.lastTransitionTime = cur.lastTransitionTime;
      removeCondition(s, progressing);
      setCondition(s, c);
    } else if (deploymentTimedOut(d, s, now)) {
      setCondition(s, newCondition(progressing, 'False', reasons.timedOut, `${subject} has timed out progressing.`, now));
    }
  }
  const failure = replicaFailureOf(allRSs, newRS);
  if (failure) setCondition(s, { ...failure }); else removeCondition(s, replicaFailure);
  return s;
}

/** getReplicaFailures: the new ReplicaSet's ReplicaFailure condition, else an old one's. */
function replicaFailureOf(allRSs: readonly ReplicaSet[], newRS: ReplicaSet | undefined): DeploymentCondition | undefined {
  const of = (rs: ReplicaSet) => (rs.status?.conditions ?? []).find((c) => c.type === replicaFailure);
  const fromNew = newRS && of(newRS);
  const c = fromNew ?? allRSs.filter((rs) => rs !== newRS).map(of).find(Boolean);
  return c && { type: replicaFailure, status: c.status, lastUpdateTime: c.lastTransitionTime, lastTransitionTime: c.lastTransitionTime, reason: c.reason, message: c.message };
}

/**
 * requeueStuckDeployment: milliseconds until the deadline should be checked
 * again (a second late, to avoid skew), 0 for at once, undefined for never.
 */
export function stuckRequeueMs(d: Deployment, s: DeploymentStatus, now: Date): number | undefined {
  const c = getCondition(d.status, progressing);
  if (!hasProgressDeadline(d) || !c) return undefined;
  if (deploymentComplete(d, s) || c.reason === reasons.timedOut) return undefined;
  const after = Date.parse(c.lastUpdateTime ?? '') + d.spec!.progressDeadlineSeconds! * 1000 - now.getTime();
  return after < 1000 ? 0 : after + 1000;
}

/** Status equality as reflect.DeepEqual sees it, an absent number counting as 0. */
export function statusEqual(a: DeploymentStatus | undefined, b: DeploymentStatus): boolean {
  const keys = ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'collisionCount'] as const;
  return keys.every((k) => (a?.[k] ?? 0) === (b[k] ?? 0))
    && JSON.stringify(sortKeys(a?.conditions ?? [])) === JSON.stringify(sortKeys(b.conditions ?? []));
}
