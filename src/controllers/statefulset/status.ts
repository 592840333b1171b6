/**
 * StatefulSet status (upstream stateful_set_control.go: computeReplicaStatus,
 * updateStatus; stateful_set_utils.go: completeRollingUpdate, inconsistentStatus).
 *
 * - replicas counts created pods (a phase is set); readyReplicas those
 *   Running and Ready; availableReplicas those also Ready for
 *   minReadySeconds; currentReplicas / updatedReplicas the created,
 *   non-terminating pods labelled with the current / update revision.
 * - A RollingUpdate is complete when updated, ready and created replicas all
 *   equal spec.replicas: then currentRevision becomes the update revision.
 * - Status is written only when observedGeneration advanced or a count or
 *   revision differs from what the set shows.
 */
import { getPodRevision, getReplicas, isCreated, isRunningAndAvailable, isRunningAndReady, isTerminating } from './identity.js';
import type { StatefulSet, StatefulSetStatus as AppsStatefulSetStatus } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';

export interface StatefulSetStatus {
  observedGeneration: number;
  replicas: number;
  readyReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
  availableReplicas: number;
  currentRevision: string;
  updateRevision: string;
  collisionCount: number;
}

export interface StatusInput {
  set: StatefulSet;
  currentRevision: string;
  updateRevision: string;
  collisionCount: number;
  now: Date;
}

/** updateStatus over the given pods. */
export function computeStatus(o: StatusInput, pods: readonly Pod[]): StatefulSetStatus {
  const minReady = o.set.spec?.minReadySeconds ?? 0;
  const s: StatefulSetStatus = {
    observedGeneration: o.set.metadata!.generation ?? 0,
    replicas: 0, readyReplicas: 0, currentReplicas: 0, updatedReplicas: 0, availableReplicas: 0,
    currentRevision: o.currentRevision, updateRevision: o.updateRevision, collisionCount: o.collisionCount,
  };
  for (const pod of pods) {
    if (isCreated(pod)) s.replicas++;
    if (isRunningAndReady(pod)) {
      s.readyReplicas++;
      if (isRunningAndAvailable(pod, minReady, o.now)) s.availableReplicas++;
    }
    if (isCreated(pod) && !isTerminating(pod)) {
      const rev = getPodRevision(pod);
      if (rev === o.currentRevision) s.currentReplicas++;
      if (rev === o.updateRevision) s.updatedReplicas++;
    }
  }
  return s;
}

/** completeRollingUpdate (returns a new status). */
export function completeRollingUpdate(set: StatefulSet, status: StatefulSetStatus): StatefulSetStatus {
  const replicas = getReplicas(set);
  const rolling = (set.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
  if (rolling && status.updatedReplicas === replicas && status.readyReplicas === replicas && status.replicas === replicas) {
    return { ...status, currentReplicas: status.updatedReplicas, currentRevision: status.updateRevision };
  }
  return status;
}

/** inconsistentStatus: whether the set's status must be written. */
export function inconsistentStatus(set: StatefulSet, status: StatefulSetStatus): boolean {
  const cur: Partial<AppsStatefulSetStatus> = set.status ?? {};
  return status.observedGeneration > (cur.observedGeneration ?? 0)
    || status.replicas !== (cur.replicas ?? 0)
    || status.currentReplicas !== (cur.currentReplicas ?? 0)
    || status.readyReplicas !== (cur.readyReplicas ?? 0)
    || status.updatedReplicas !== (cur.updatedReplicas ?? 0)
    || status.currentRevision !== (cur.currentRevision ?? '')
    || status.availableReplicas !== (cur.availableReplicas ?? 0)
    || status.updateRevision !== (cur.updateRevision ?? '');
}

/** The status as the API object carries it (Go's omitempty: zero counts and empty revisions left out). */
export function statusObject(s: StatefulSetStatus): AppsStatefulSetStatus {
  const out = {} as AppsStatefulSetStatus;
  if (s.observedGeneration) out.observedGeneration = s.observedGeneration;
  out.replicas = s.replicas;
  if (s.readyReplicas) out.readyReplicas = s.readyReplicas;
  if (s.currentReplicas) out.currentReplicas = s.currentReplicas;
  if (s.updatedReplicas) out.updatedReplicas = s.updatedReplicas;
  if (s.currentRevision) out.currentRevision = s.currentRevision;
  if (s.updateRevision) out.updateRevision = s.updateRevision;
  out.collisionCount = s.collisionCount;
  out.availableReplicas = s.availableReplicas;
  return out;
}
