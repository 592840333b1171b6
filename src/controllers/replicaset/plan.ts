/**
 * The pure half of the ReplicaSet controller (upstream replica_set.go
 * manageReplicas and replica_set_utils.go calculateStatus):
 *  - diff = active pods − spec.replicas, capped at the burst either way;
 *    below zero: create that many; above: delete that many, ranked (rank.ts).
 *  - status: replicas (active pods), fullyLabeledReplicas (pods carrying all
 *    the template's labels), readyReplicas, availableReplicas (ready for
 *    minReadySeconds), observedGeneration; a manage error sets the
 *    ReplicaFailure condition (FailedCreate / FailedDelete) once, success
 *    removes it.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ReplicaSetCondition, ReplicaSetStatus } from 'kubernetes-types/apps/v1.js';
import { podIsAvailable, podIsReady } from '../../api/pods.js';
import { matchesSelector, selectorFromSet } from '../../api/labels.js';
import { rfc3339 } from '../../util/clock.js';
import { podsToDelete } from './rank.js';

/** Upstream BurstReplicas for the ReplicaSet and replication controllers. */
export const burstReplicas = 500;

export interface ManagePlan { create: number; delete: Pod[] }

export function planManage(replicas: number, active: readonly Pod[], related: readonly Pod[], burst: number, now: Date): ManagePlan {
  const diff = active.length - replicas;
  if (diff < 0) return { create: Math.min(-diff, burst), delete: [] };
  if (diff > 0) return { create: 0, delete: podsToDelete(active, related, Math.min(diff, burst), now) };
  return { create: 0, delete: [] };
}

export interface StatusInput {
  replicas: number;
  minReadySeconds: number;
  templateLabels: Record<string, string>;
  status: ReplicaSetStatus | undefined;
  generation: number;
  active: readonly Pod[];
  /** The manage error's message, if manageReplicas failed. */
  manageError?: string;
  now: Date;
}

export const replicaFailure = 'ReplicaFailure';

export function calculateStatus(input: StatusInput): ReplicaSetStatus {
  const templateSelector = selectorFromSet(input.templateLabels);
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of input.active) {
    if (matchesSelector(templateSelector, pod.metadata?.labels)) fullyLabeled++;
    if (podIsReady(pod)) {
      ready++;
      if (podIsAvailable(pod, input.minReadySeconds, input.now)) available++;
    }
  }
  let conditions = [...(input.status?.conditions ?? [])];
  const failure = conditions.find((c) => c.type === replicaFailure);
  if (input.manageError !== undefined && !failure) {
    const diff = input.active.length - input.replicas;
    const reason = diff < 0 ? 'FailedCreate' : diff > 0 ? 'FailedDelete' : '';
    const cond: ReplicaSetCondition = { type: replicaFailure, status: 'True', lastTransitionTime: rfc3339(input.now), reason, message: input.manageError };
    conditions.push(cond);
  } else if (input.manageError === undefined && failure) {
    conditions = conditions.filter((c) => c.type !== replicaFailure);
  }
  const status: ReplicaSetStatus = {
    replicas: input.active.length, fullyLabeledReplicas: fullyLabeled, readyReplicas: ready, availableReplicas: available,
    observedGeneration: input.generation,
  };
  if (conditions.length) status.conditions = conditions;
  return status;
}

/** Whether a status write would change anything (updateReplicaSetStatus's early return). */
export function statusUnchanged(cur: ReplicaSetStatus | undefined, next: ReplicaSetStatus): boolean {
  const c = cur ?? { replicas: 0 };
  return (c.replicas ?? 0) === next.replicas && (c.fullyLabeledReplicas ?? 0) === (next.fullyLabeledReplicas ?? 0)
    && (c.readyReplicas ?? 0) === (next.readyReplicas ?? 0) && (c.availableReplicas ?? 0) === (next.availableReplicas ?? 0)
    && (c.observedGeneration ?? 0) === (next.observedGeneration ?? 0)
    && JSON.stringify(c.conditions ?? []) === JSON.stringify(next.conditions ?? []);
}

/**
 * slowStartBatch: run `count` calls in batches of 1, 2, 4, ... (starting at
 * `initial`); stop after a batch with a failure. Returns the successes and
 * the first error.
 */
export async function slowStartBatch(count: number, initial: number, fn: () => Promise<void>): Promise<{ successes: number; error?: unknown }> {
  let remaining = count;
  let successes = 0;
  for (let batch = Math.min(remaining, initial); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => fn()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    successes += results.length - results.filter((r) => r.status === 'rejected').length;
    if (failed) return { successes, error: failed.reason };
    remaining -= batch;
  }
  return { successes };
}
