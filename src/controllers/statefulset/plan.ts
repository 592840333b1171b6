/**
 * What one sync of a StatefulSet does (upstream stateful_set_control.go
 * updateStatefulSet, processReplica, processCondemned). Pure: it reads a
 * snapshot (the set, its revisions' templates, its pods, a claim lookup and
 * the time) and returns the steps; `execute.ts` writes them.
 *
 * Pods with ordinals in [start, start + replicas) are replicas (missing ones
 * are planned from the right revision); pods with other valid ordinals are
 * condemned, highest ordinal first. "Monotonic" is OrderedReady: steps run
 * one after another and the first step that exits stops the sync; Parallel
 * runs the steps in slow-start batches (1, 2, 4, ... up to 500) and only an
 * error stops it. The phases, in order:
 *
 * 1. Each replica, ascending (processReplica):
 *    a. Failed or Succeeded: delete it (unless already terminating) and exit;
 *       it is recreated under the same name once it is gone.
 *    b. Missing: unless a claim is stale, create its claims and the pod; in
 *       OrderedReady exit (the next ordinal waits for this one).
 *    c. Pending: create its missing claims and fix their owner references.
 *    d. OrderedReady only: exit while it is terminating, not Running and
 *       Ready, or not available for minReadySeconds. A terminating pod is
 *       never replaced before it is gone, so an identity is never doubled.
 *    e. Fix its identity labels, claim volumes and claims' references.
 * 2. Each condemned pod: fix its claims' references (whenScaled: Delete
 *    gives the claim the pod as owner before the pod is deleted).
 * 3. Each condemned pod, descending (processCondemned): if terminating,
 *    OrderedReady waits for it to go; OrderedReady also waits while it is
 *    unhealthy unless it is the first unhealthy pod; otherwise delete it
 *    (and in OrderedReady exit: one at a time).
 * 4. OnDelete stops here. RollingUpdate walks the replicas from the highest
 *    ordinal down to the partition: the first pod not on the update revision
 *    (and not terminating) is deleted, to be recreated at the update
 *    revision; an unhealthy pod on the way stops the walk.
 *
 * A set being deleted only gets its status.
 */
import {
  ClaimLookup, ClaimWork, claimsMatchRetentionPolicy, claimsToCreate, emptyClaimWork, hasClaimWork, podClaimIsStale, retentionWork,
} from './claims.js';
import {
  getOrdinal, getPodRevision, getReplicas, getStartOrdinal, identityMatches, isCreated, isFailed, isHealthy, isPending,
  isRunningAndAvailable, isRunningAndReady, isSucceeded, isTerminating, newVersionedStatefulSetPod, podInOrdinalRange,
  storageMatches, updateIdentity, updateStorage,
} from './identity.js';
import { computeStatus, StatefulSetStatus } from './status.js';
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';

export type Action =
  /** CreateStatefulPod: claims first, then the pod, then the claims' references. */
  | { type: 'createPod'; pod: Pod; claims: ClaimWork }
  /** createMissingPersistentVolumeClaims for a Pending pod. */
  | { type: 'createClaims'; pod: Pod; claims: ClaimWork }
  /** UpdateStatefulPod: `pod` is the corrected copy; claims as needed. */
  | { type: 'updatePod'; pod: Pod; claims: ClaimWork }
  /** UpdatePodClaimForRetentionPolicy for a condemned pod. */
  | { type: 'updateClaims'; pod: Pod; claims: ClaimWork }
  | { type: 'deletePod'; pod: Pod; reason: 'failed' | 'condemned' | 'update' };

/** One call of the per-pod function: its writes, in order, and whether the walk stops after it. */
export interface Step {
  pod: Pod;
  actions: Action[];
  exit: boolean;
  /** Why an OrderedReady walk stops here, for logs and tests. */
  wait?: string;
}

export interface Plan {
  monotonic: boolean;
  /** Phase 1, by ordinal ascending. */
  replicas: Step[];
  /** Phase 2. */
  condemnedClaims: Step[];
  /** Phase 3, by ordinal descending. */
  condemned: Step[];
  /** Phase 4: the rolling update's step, if it acts or waits. */
  update?: Step;
  /** Status over replicas and condemned pods (the rolling-update delete not yet counted). */
  status: StatefulSetStatus;
}

export interface PlanInput {
  set: StatefulSet;
  currentSet: StatefulSet;
  updateSet: StatefulSet;
  currentRevision: string;
  updateRevision: string;
  collisionCount: number;
  pods: readonly Pod[];
  claim: ClaimLookup;
  now: Date;
}

export const allowsBurst = (set: StatefulSet): boolean => set.spec?.podManagementPolicy === 'Parallel';

export function planStatefulSet(input: PlanInput): Plan {
  const { set } = input;
  const statusInput = { set, currentRevision: input.currentRevision, updateRevision: input.updateRevision, collisionCount: input.collisionCount, now: input.now };
  const monotonic = !allowsBurst(set);
  if (set.metadata!.deletionTimestamp) {
    return { monotonic, replicas: [], condemnedClaims: [], condemned: [], status: computeStatus(statusInput, input.pods) };
  }
  const { replicas, condemned } = partitionPods(input);
  const firstUnhealthy = [...replicas, ...[...condemned].reverse()].find((p) => !isHealthy(p));
  const ctx = { ...input, monotonic };
  return {
    monotonic,
    replicas: replicas.map((pod) => replicaStep(ctx, pod)),
    condemnedClaims: condemned.map((pod) => condemnedClaimStep(ctx, pod)),
    condemned: condemned.map((pod) => condemnedStep(ctx, pod, firstUnhealthy!)),
    update: rollingUpdateStep(ctx, replicas),
    status: computeStatus(statusInput, [...replicas, ...condemned]),
  };
}

/** Replicas by ordinal (missing ones planned at the right revision) and condemned pods, highest ordinal first. */
export function partitionPods(input: PlanInput): { replicas: Pod[]; condemned: Pod[] } {
  const { set } = input;
  const start = getStartOrdinal(set);
  const slots: Pod[] = new Array(getReplicas(set));
  const condemned: Pod[] = [];
  for (const pod of input.pods) {
    if (podInOrdinalRange(pod, set)) slots[getOrdinal(pod) - start] = pod;
    else if (getOrdinal(pod) >= 0) condemned.push(pod);
  }
  for (let i = 0; i < slots.length; i++) {
    slots[i] ??= newVersionedStatefulSetPod({
      currentSet: input.currentSet, updateSet: input.updateSet, currentRevision: input.currentRevision,
      updateRevision: input.updateRevision, ordinal: start + i,
    });
  }
  condemned.sort((a, b) => getOrdinal(b) - getOrdinal(a));
  return { replicas: slots, condemned };
}

type Ctx = PlanInput & { monotonic: boolean };

/** Phase 1 for one replica (processReplica). */
function replicaStep(ctx: Ctx, pod: Pod): Step {
  const { set, monotonic } = ctx;
  if (isFailed(pod) || isSucceeded(pod)) {
    return { pod, actions: isTerminating(pod) ? [] : [{ type: 'deletePod', pod, reason: 'failed' }], exit: true, wait: 'failed pod' };
  }
  const actions: Action[] = [];
  const created = isCreated(pod);
  if (!created) {
    if (podClaimIsStale(set, pod, ctx.claim)) return { pod, actions, exit: true, wait: 'stale claim' };
    const claims = retentionWork(set, pod, ctx.claim, claimsToCreate(set, pod, ctx.claim));
    actions.push({ type: 'createPod', pod, claims });
    if (monotonic) return { pod, actions, exit: true, wait: 'created' };
    // The claims of a pod being created are put right by its create.
    return { pod, actions, exit: false };
  }
  if (isPending(pod)) {
    const claims = retentionWork(set, pod, ctx.claim, claimsToCreate(set, pod, ctx.claim));
    if (hasClaimWork(claims)) actions.push({ type: 'createClaims', pod, claims });
  }
  if (monotonic) {
    const wait = isTerminating(pod) ? 'terminating'
      : !isRunningAndReady(pod) ? 'not running and ready'
        : !isRunningAndAvailable(pod, set.spec?.minReadySeconds ?? 0, ctx.now) ? 'not available' : undefined;
    if (wait) return { pod, actions, exit: true, wait };
  }
  const update = podUpdate(ctx, pod);
  if (update) actions.push(update);
  return { pod, actions, exit: false };
}

/** The UpdateStatefulPod a replica needs, if its identity, storage or claims' references are off. */
function podUpdate(ctx: Ctx, pod: Pod): Action | undefined {
  const set = ctx.updateSet;
  const identityOk = identityMatches(ctx.set, pod);
  const storageOk = storageMatches(ctx.set, pod);
  const retentionOk = claimsMatchRetentionPolicy(set, pod, ctx.claim);
  if (identityOk && storageOk && retentionOk) return undefined;
  const copy = structuredClone(pod);
  const claims = emptyClaimWork();
  if (!identityOk) updateIdentity(set, copy);
  if (!storageOk) {
    updateStorage(set, copy);
    claimsToCreate(set, copy, ctx.claim, claims);
  }
  if (!retentionOk) retentionWork(set, copy, ctx.claim, claims);
  return { type: 'updatePod', pod: copy, claims };
}

/** Phase 2 for one condemned pod. */
function condemnedClaimStep(ctx: Ctx, pod: Pod): Step {
  if (claimsMatchRetentionPolicy(ctx.updateSet, pod, ctx.claim)) return { pod, actions: [], exit: false };
  return { pod, actions: [{ type: 'updateClaims', pod, claims: retentionWork(ctx.updateSet, pod, ctx.claim) }], exit: false };
}

/** Phase 3 for one condemned pod (processCondemned). */
function condemnedStep(ctx: Ctx, pod: Pod, firstUnhealthy: Pod): Step {
  const { monotonic } = ctx;
  if (isTerminating(pod)) return monotonic ? { pod, actions: [], exit: true, wait: 'terminating' } : { pod, actions: [], exit: false };
  const isFirst = firstUnhealthy?.metadata!.name === pod.metadata!.name;
  if (monotonic && !isFirst) {
    if (!isRunningAndReady(pod)) return { pod, actions: [], exit: true, wait: 'not running and ready' };
    if (!isRunningAndAvailable(pod, ctx.set.spec?.minReadySeconds ?? 0, ctx.now)) return { pod, actions: [], exit: true, wait: 'not available' };
  }
  return { pod, actions: [{ type: 'deletePod', pod, reason: 'condemned' }], exit: true };
}

/** Phase 4: the next pod a RollingUpdate replaces, or the unhealthy pod it waits for. */
function rollingUpdateStep(ctx: Ctx, replicas: Pod[]): Step | undefined {
  const strategy = ctx.set.spec?.updateStrategy ?? {};
  if (strategy.type === 'OnDelete') return undefined;
  const updateMin = strategy.rollingUpdate?.partition ?? 0;
  for (let target = replicas.length - 1; target >= updateMin; target--) {
    const pod = replicas[target];
    if (getPodRevision(pod) !== ctx.updateRevision && !isTerminating(pod)) {
      return { pod, actions: [{ type: 'deletePod', pod, reason: 'update' }], exit: true };
    }
    if (!isHealthy(pod)) return { pod, actions: [], exit: true, wait: 'unhealthy' };
  }
  return undefined;
}
