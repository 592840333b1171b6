/**
 * The writes of a StatefulSet sync and their events (upstream
 * stateful_pod_control.go, with its event words):
 *   SuccessfulCreate  "create Pod web-0 in StatefulSet web successful"
 *   SuccessfulCreate  "create Claim www-web-0 Pod web-0 in StatefulSet web success"
 *   SuccessfulDelete  "delete Pod web-1 in StatefulSet web successful"
 *   SuccessfulUpdate  "update Pod web-0 in StatefulSet web successful"
 *   Failed<Verb>      "<verb> Pod x in StatefulSet y failed error: <error>" (Warning)
 *   FailedCreate      "create Claim c for Pod x in StatefulSet y failed error: <error>" (Warning)
 *   ConflictingController (Warning) for a claim another controller owns.
 * Every write is recorded in PendingWrites before the next await.
 */
import type { Clientset, EventRecorder } from '../../client/index.js';
import { isAlreadyExists, isConflict } from '../../client/index.js';
import type { Action, Step } from './plan.js';
import type { ClaimWork } from './claims.js';
import { emptyClaimWork } from './claims.js';
import { identityMatches, storageMatches, updateIdentity, updateStorage } from './identity.js';
import type { PendingWrites } from './pending.js';
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';

/** Upstream's MaxBatchSize for Parallel pod management. */
export const maxBatchSize = 500;
const updateRetries = 5;

/** utilerrors.NewAggregate's message: one error as is, several in brackets. */
export class Aggregate extends Error {
  constructor(readonly errors: Error[]) {
    super(errors.length === 1 ? errors[0].message : `[${errors.map((e) => e.message).join(', ')}]`);
  }
}

export function aggregate(errors: unknown[]): Error | undefined {
  const errs = errors.filter(Boolean).map((e) => (e instanceof Error ? e : new Error(String(e))));
  if (!errs.length) return undefined;
  return errs.length === 1 ? errs[0] : new Aggregate(errs);
}

const title = (verb: string) => verb[0].toUpperCase() + verb.slice(1);

export interface PodControlDeps {
  clients: Clientset;
  recorder: EventRecorder;
  pending: PendingWrites;
}

/** Writes for one set during one sync. */
export class PodControl {
  private readonly involved: Pick<StatefulSet, 'apiVersion' | 'kind' | 'metadata'>;

  constructor(private readonly deps: PodControlDeps, private readonly set: StatefulSet, private readonly updateSet: StatefulSet, private readonly setKey: string) {
    this.involved = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: set.metadata };
  }

  private get ns(): string { return this.set.metadata!.namespace!; }
  private get pods() { return this.deps.clients.pods; }
  private get claims() { return this.deps.clients.resource('persistentvolumeclaims'); }

  event(type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.deps.recorder.event(this.involved, type, reason, message);
  }

  /** recordPodEvent. */
  podEvent(verb: string, pod: Pod, err?: unknown): void {
    const name = pod.metadata!.name;
    if (!err) this.event('Normal', `Successful${title(verb)}`, `${verb} Pod ${name} in StatefulSet ${this.set.metadata!.name} successful`);
    else this.event('Warning', `Failed${title(verb)}`, `${verb} Pod ${name} in StatefulSet ${this.set.metadata!.name} failed error: ${(err as Error).message}`);
  }

  /** recordClaimEvent. */
  private claimEvent(verb: string, pod: Pod, claim: string, err?: unknown): void {
    const set = this.set.metadata!.name;
    if (!err) this.event('Normal', `Successful${title(verb)}`, `${verb} Claim ${claim} Pod ${pod.metadata!.name} in StatefulSet ${set} success`);
    else this.event('Warning', `Failed${title(verb)}`, `${verb} Claim ${claim} for Pod ${pod.metadata!.name} in StatefulSet ${set} failed error: ${(err as Error).message}`);
  }

  async run(action: Action): Promise<void> {
    switch (action.type) {
      case 'createPod': return this.createStatefulPod(action.pod, action.claims);
      case 'createClaims': return this.createMissingClaims(action.pod, action.claims);
      case 'updatePod': return this.updateStatefulPod(action.pod, action.claims);
      case 'updateClaims': return this.updateClaimRefs(action.pod, action.claims);
      case 'deletePod': return this.deleteStatefulPod(action.pod);
    }
  }

  async runStep(step: Step): Promise<void> {
    for (const a of step.actions) await this.run(a);
  }

  /** createPersistentVolumeClaims: the errors, after trying every claim. */
  private async createClaims(pod: Pod, work: ClaimWork): Promise<Error[]> {
    const errs: Error[] = [];
    await Promise.all(work.create.map(async (claim) => {
      const name = claim.metadata!.name;
      try {
        const created = await this.claims.create(this.ns, claim);
        this.deps.pending.wrote(this.setKey, 'persistentvolumeclaims', created);
        this.claimEvent('create', pod, name!);
      } catch (e) {
        errs.push(new Error(`failed to create PVC ${name}: ${(e as Error).message}`));
        if (!isAlreadyExists(e)) this.claimEvent('create', pod, name!, e);
      }
    }));
    for (const name of work.deleting) errs.push(new Error(`pvc ${name} is being deleted`));
    return errs;
  }

  /** UpdatePodClaimForRetentionPolicy. */
  private async updateClaimRefs(_pod: Pod, work: ClaimWork): Promise<void> {
    for (const name of work.conflicting) {
      this.event('Warning', 'ConflictingController',
        `PersistentVolumeClaim ${name} has a conflicting OwnerReference that acts as a manging controller, the retention policy is ignored for this claim`);
    }
    for (const claim of work.refUpdates) {
      try {
        const updated = await this.claims.update(claim);
        this.deps.pending.wrote(this.setKey, 'persistentvolumeclaims', updated);
      } catch (e) {
        throw new Error(`could not update claim ${claim.metadata!.name} for delete policy ownerRefs: ${(e as Error).message}`);
      }
    }
  }

  /** CreateStatefulPod: claims, pod, then the claims' references; AlreadyExists is returned without an event. */
  private async createStatefulPod(pod: Pod, work: ClaimWork): Promise<void> {
    const claimErr = aggregate(await this.createClaims(pod, work));
    if (claimErr) { this.podEvent('create', pod, claimErr); throw claimErr; }
    let createErr: unknown;
    try {
      const created = await this.pods.create(this.ns, pod);
      this.deps.pending.wrote(this.setKey, 'pods', created);
    } catch (e) {
      if (isAlreadyExists(e)) throw e;
      createErr = e;
    }
    try {
      await this.updateClaimRefs(pod, { ...emptyClaimWork(), refUpdates: work.refUpdates, conflicting: work.conflicting });
    } catch (e) {
      this.podEvent('update', pod, e);
      throw e;
    }
    this.podEvent('create', pod, createErr);
    if (createErr) throw createErr;
  }

  /** createMissingPersistentVolumeClaims for a Pending pod. */
  private async createMissingClaims(pod: Pod, work: ClaimWork): Promise<void> {
    const err = aggregate(await this.createClaims(pod, work));
    if (err) throw err;
    try {
      await this.updateClaimRefs(pod, work);
    } catch (e) {
      this.podEvent('update', pod, e);
      throw e;
    }
  }

  /** UpdateStatefulPod: claims first, then the pod, re-reading it on conflicts. */
  private async updateStatefulPod(pod: Pod, work: ClaimWork): Promise<void> {
    const claimErr = aggregate(await this.createClaims(pod, work));
    if (claimErr) { this.podEvent('update', pod, claimErr); throw claimErr; }
    try {
      await this.updateClaimRefs(pod, work);
    } catch (e) {
      this.podEvent('update', pod, e);
      throw e;
    }
    let current = pod;
    let err: unknown;
    for (let attempt = 0; attempt < updateRetries; attempt++) {
      try {
        const updated = await this.pods.update(current);
        this.deps.pending.wrote(this.setKey, 'pods', updated);
        err = undefined;
        break;
      } catch (e) {
        err = e;
        if (!isConflict(e)) break;
        try {
          current = this.conform(await this.pods.get(this.ns, pod.metadata!.name!));
        } catch (getErr) {
          err = getErr;
          break;
        }
      }
    }
    this.podEvent('update', pod, err);
    if (err) throw err;
  }

  /** A freshly read pod given the set's identity and storage. */
  private conform(pod: Pod): Pod {
    if (!identityMatches(this.updateSet, pod)) updateIdentity(this.updateSet, pod);
    if (!storageMatches(this.updateSet, pod)) {
      updateStorage(this.updateSet, pod);
    }
    return pod;
  }

  /** DeleteStatefulPod, with the pod's UID as precondition so a successor is never hit. */
  private async deleteStatefulPod(pod: Pod): Promise<void> {
    try {
      await this.pods.delete(this.ns, pod.metadata!.name!, { preconditions: { uid: pod.metadata!.uid } });
      this.deps.pending.deleted(this.setKey, 'pods', `${this.ns}/${pod.metadata!.name}`, pod.metadata!.uid!);
      this.podEvent('delete', pod);
    } catch (e) {
      this.podEvent('delete', pod, e);
      throw e;
    }
  }
}

export interface RunResult {
  /** The walk stopped early (an exit or an error). */
  stopped: boolean;
  error?: Error;
}

/**
 * runForAll: OrderedReady runs steps one by one and stops at the first exit
 * or error; Parallel runs them in slow-start batches (1, 2, 4, ... capped at
 * 500) and stops after a batch with errors.
 */
export async function runForAll(steps: readonly Step[], monotonic: boolean, exec: (s: Step) => Promise<void>): Promise<RunResult> {
  if (monotonic) {
    for (const step of steps) {
      try {
        await exec(step);
      } catch (e) {
        return { stopped: true, error: e as Error };
      }
      if (step.exit) return { stopped: true };
    }
    return { stopped: false };
  }
  let i = 0;
  let remaining = steps.length;
  for (let batch = Math.min(remaining, 1); batch > 0; batch = Math.min(2 * batch, remaining, maxBatchSize)) {
    const results = await Promise.allSettled(steps.slice(i, i + batch).map(exec));
    const errs = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason);
    if (errs.length) return { stopped: true, error: aggregate(errs) };
    i += batch;
    remaining -= batch;
  }
  return { stopped: false };
}
