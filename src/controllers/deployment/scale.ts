/**
 * Scaling a Deployment whose replicas changed (upstream sync.go scale and
 * deployment_util.go GetProportion), pure:
 *  1. One active ReplicaSet (or none: the newest) takes the whole count.
 *  2. A saturated new ReplicaSet (at replicas, desired-replicas annotation
 *     equal, all available): old ReplicaSets go to zero.
 *  3. RollingUpdate mid-rollout: the difference between replicas + maxSurge
 *     and the current total is spread over the active ReplicaSets in
 *     proportion to their size (spec.replicas × (replicas + maxSurge) /
 *     max-replicas annotation, rounded half away from zero), larger first
 *     (ties: newer first when growing, older first when shrinking); the
 *     leftover goes to the first (largest), never below zero.
 */
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { ScaleAction } from './rolling.js';
import {
  activeReplicaSets, byCreation, bySizeNewer, bySizeOlder, desiredReplicasAnnotationOf, isRollingUpdate, maxReplicasAnnotation,
  maxSurge, replicasOf, sumSpec,
} from './util.js';

/** FindActiveOrLatest: the single active ReplicaSet, the newest when none is active, undefined when several are. */
export function findActiveOrLatest(newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[]): ReplicaSet | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const olds = [...oldRSs].sort(byCreation).reverse();
  const active = activeReplicaSets([...olds, newRS]);
  if (active.length === 0) return newRS ?? olds[0];
  return active.length === 1 ? active[0] : undefined;
}

/** IsSaturated. */
export function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (!rs) return false;
  const replicas = d.spec?.replicas ?? 1;
  return replicasOf(rs) === replicas && desiredReplicasAnnotationOf(rs) === replicas && (rs.status?.availableReplicas ?? 0) === replicas;
}

/** Go's math.Round: half away from zero. */
const roundHalfAway = (x: number) => Math.sign(x) * Math.round(Math.abs(x));

/** GetProportion: this ReplicaSet's share of toAdd, bounded by what is left to add. */
export function proportion(rs: ReplicaSet, d: Deployment, toAdd: number, added: number): number {
  if (replicasOf(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const allowed = toAdd - added;
  const fraction = replicaSetFraction(rs, d);
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

function replicaSetFraction(rs: ReplicaSet, d: Deployment): number {
  const replicas = d.spec?.replicas ?? 1;
  if (replicas === 0) return -replicasOf(rs);
  const deploymentReplicas = replicas + maxSurge(d);
  const raw = rs.metadata?.annotations?.[maxReplicasAnnotation];
  const parsed = raw === undefined ? NaN : Number(raw);
  const annotated = Number.isInteger(parsed) ? parsed : (d.status?.replicas ?? 0);
  return roundHalfAway((replicasOf(rs) * deploymentReplicas) / annotated) - replicasOf(rs);
}

/** scale: the sizes to write (every active ReplicaSet in case 3, so their annotations are refreshed). */
export function planScale(d: Deployment, newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[]): ScaleAction[] {
  const replicas = d.spec?.replicas ?? 1;
  const single = findActiveOrLatest(newRS, oldRSs);
  if (single) return replicasOf(single) === replicas ? [] : [{ rs: single, replicas }]; // 1
  if (isSaturated(d, newRS)) return activeReplicaSets(oldRSs).map((rs) => ({ rs, replicas: 0 })); // 2
  if (!isRollingUpdate(d)) return [];
  const all = activeReplicaSets([...oldRSs, newRS]); // 3
  const allowed = replicas > 0 ? replicas + maxSurge(d) : 0;
  const toAdd = allowed - sumSpec(all);
  if (toAdd > 0) all.sort(bySizeNewer); else if (toAdd < 0) all.sort(bySizeOlder);
  let added = 0;
  const sizes = all.map((rs) => {
    if (toAdd === 0) return replicasOf(rs);
    const p = proportion(rs, d, toAdd, added);
    added += p;
    return replicasOf(rs) + p;
  });
  if (toAdd !== 0 && sizes.length) sizes[0] = Math.max(0, sizes[0] + toAdd - added);
  return all.map((rs, i) => ({ rs, replicas: sizes[i] }));
}
