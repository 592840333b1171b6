/**
 * RollingUpdate planning (upstream rolling.go and deployment_util.go
 * NewRSNewReplicas), pure: every function returns the sizes to write.
 *  1. Scale the new ReplicaSet up while the total stays within replicas +
 *     maxSurge, never past replicas; or down to replicas when it is larger.
 *     Upstream totals spec.replicas alone, so an old ReplicaSet just scaled
 *     down still has its pods while the new one creates more: for a moment
 *     more than replicas + maxSurge pods exist. Each ReplicaSet counts here
 *     as the larger of spec and status.replicas (its pods not yet deleted),
 *     so the bound mostly holds for pods too, at the cost of one status
 *     round trip per step; status can lag the pods, so it is not a promise
 *     (upstream makes none either: the e2e checks the ReplicaSets' sizes).
 *  2. Otherwise scale old ReplicaSets down, keeping replicas − maxUnavailable
 *     available: first the unhealthy replicas of old ReplicaSets (oldest
 *     first, bounded by what may go), then available ones while the
 *     available count stays above the minimum.
 */
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { byCreation, maxSurge, maxUnavailable, replicasOf, sumSpec, sumStatus } from './util.js';

export interface ScaleAction { rs: ReplicaSet; replicas: number }

/** NewRSNewReplicas: the size the new ReplicaSet may grow to now. */
export function newRSNewReplicas(d: Deployment, allRSs: readonly ReplicaSet[], newRS: ReplicaSet): number {
  const replicas = d.spec?.replicas ?? 1;
  if ((d.spec?.strategy?.type ?? 'RollingUpdate') === 'Recreate') return replicas;
  const maxTotal = replicas + maxSurge(d);
  const current = allRSs.reduce((n, rs) => n + Math.max(replicasOf(rs), rs.status?.replicas ?? 0), 0);
  if (current >= maxTotal) return replicasOf(newRS);
  return replicasOf(newRS) + Math.min(maxTotal - current, replicas - replicasOf(newRS));
}

/** reconcileNewReplicaSet: the new ReplicaSet's next size, or undefined when it stays. */
export function planNewReplicaSet(d: Deployment, allRSs: readonly ReplicaSet[], newRS: ReplicaSet): number | undefined {
  const replicas = d.spec?.replicas ?? 1;
  if (replicasOf(newRS) === replicas) return undefined;
  if (replicasOf(newRS) > replicas) return replicas;
  const next = newRSNewReplicas(d, allRSs, newRS);
  return next === replicasOf(newRS) ? undefined : next;
}

/** reconcileOldReplicaSets: the scale-downs of the (active) old ReplicaSets. */
export function planOldReplicaSets(d: Deployment, allRSs: readonly ReplicaSet[], oldRSs: readonly ReplicaSet[], newRS: ReplicaSet): ScaleAction[] {
  if (sumSpec(oldRSs) === 0) return [];
  const minAvailable = (d.spec?.replicas ?? 1) - maxUnavailable(d);
  const newUnavailable = replicasOf(newRS) - (newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = sumSpec(allRSs) - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return [];
  const sizes = new Map<ReplicaSet, number>(oldRSs.map((rs) => [rs, replicasOf(rs)]));
  const sorted = [...oldRSs].sort(byCreation);
  // cleanupUnhealthyReplicas: replicas that are not available go first.
  let cleaned = 0;
  for (const rs of sorted) {
    if (cleaned >= maxScaledDown) break;
    const size = sizes.get(rs)!;
    const avail = rs.status?.availableReplicas ?? 0;
    if (size === 0 || size === avail) continue;
    const down = Math.min(maxScaledDown - cleaned, size - avail);
    sizes.set(rs, size - down);
    cleaned += down;
  }
  // scaleDownOldReplicaSetsForRollingUpdate: then available ones, down to minAvailable.
  const availableCount = sumStatus([...oldRSs, newRS], 'availableReplicas');
  if (availableCount > minAvailable) {
    const total = availableCount - minAvailable;
    let scaled = 0;
    for (const rs of sorted) {
      if (scaled >= total) break;
      const size = sizes.get(rs)!;
      if (size === 0) continue;
      const down = Math.min(size, total - scaled);
      sizes.set(rs, size - down);
      scaled += down;
    }
  }
  return sorted.filter((rs) => sizes.get(rs) !== replicasOf(rs)).map((rs) => ({ rs, replicas: sizes.get(rs)! }));
}
