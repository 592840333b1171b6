/**
 * The ReplicaSet controller (upstream pkg/controller/replicaset/replica_set.go),
 * which also drives ReplicationControllers through a kind adapter (kind.ts),
 * as upstream's ReplicationManager does. Event handlers only find the owner,
 * count expectations down and enqueue its key; a sync reads everything again
 * from the caches:
 *  1. Gone: forget its expectations.
 *  2. Claim the active pods: adopt matching orphans, release pods that no
 *     longer match (controller-ref.ts).
 *  3. Expectations met and not being deleted: manageReplicas, the one writer
 *     (creates in slow-start batches, deletes ranked; burst 500 each). At most
 *     workers - 1 syncs create at once (creation-slots.ts): one worker stays
 *     free for syncs that only count pods, so status does not wait behind
 *     other owners' creates; a sync without a slot skips to 4 and waits in line.
 *  4. Write status when it changed; requeue after minReadySeconds while
 *     ready pods are not yet available.
 */
import type { ReplicaSet, ReplicaSetStatus } from 'kubernetes-types/apps/v1.js';
import type { Pod, PodSpec, ReplicationController } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { Writable } from '../../api/writable.js';
import type { Controller, ControllerContext } from '../types.js';
import type { Informer, EventRecorder } from '../../client/index.js';
import { WorkQueue, runWorkers, metaKey, isNotFound, isConflict, isNamespaceTerminating } from '../../client/index.js';
import { isEverything, matchesSelector } from '../../api/labels.js';
import type { Logger } from '../../util/log.js';
import { controllerRef, podIsActive, podIsReady } from '../../api/pods.js';
import { UIDTrackingExpectations, expectationsTimeoutMs } from '../expectations.js';
import { claimObjects, newControllerRef, recheckOwner, sameControllerRef, sameLabels } from '../controller-ref.js';
import { controllerUIDIndex, indexByControllerUID, indexOrphansByNamespace, orphansByNamespaceIndex } from '../controller-ref.js';
import type { ReplicaKind, ReplicaOwner } from './kind.js';
import { burstReplicas, calculateStatus, planManage, slowStartBatch, statusUnchanged } from './plan.js';
import { CreationSlots } from './creation-slots.js';

/** controller.SlowStartInitialBatchSize. */
const slowStartInitialBatchSize = 1;

export interface ReplicaSetControllerOptions {
  burstReplicas?: number;
  expectationsTimeoutMs?: number;
}

const isDeleting = (o: { metadata?: ObjectMeta } | undefined) => !!o?.metadata?.deletionTimestamp;

export class ReplicaSetController implements Controller {
  readonly name: string;
  private readonly queue = new WorkQueue();
  readonly expectations: UIDTrackingExpectations;
  private readonly rsInformer: Informer;
  private readonly podInformer: Informer;
  private readonly recorder: EventRecorder;
  private readonly logger: Logger;
  private readonly burst: number;
  private readonly scan: boolean;
  private readonly slots: CreationSlots;

  constructor(private readonly ctx: ControllerContext, private readonly kind: ReplicaKind, opts: ReplicaSetControllerOptions = {}) {
    this.name = kind.controllerName;
    this.logger = ctx.logger.with(kind.controllerName);
    this.recorder = ctx.recorder(kind.component);
    this.burst = opts.burstReplicas ?? burstReplicas;
    this.expectations = new UIDTrackingExpectations(ctx.clock, opts.expectationsTimeoutMs ?? expectationsTimeoutMs);
    this.slots = new CreationSlots(ctx.config.workers - 1, (key) => this.queue.add(key));
    this.rsInformer = ctx.informers.informer(kind.resource);
    this.podInformer = ctx.informers.informer('pods');
    // An index added to an informer that already holds objects would miss them: scan instead.
    this.scan = this.podInformer.size > 0 || this.podInformer.hasSynced();
    if (!this.scan) {
      this.podInformer.addIndex(controllerUIDIndex, indexByControllerUID);
      this.podInformer.addIndex(orphansByNamespaceIndex, indexOrphansByNamespace);
    }
    this.registerHandlers();
  }

  run(): void {
    void runWorkers(this.queue, this.ctx.config.workers, (key) => this.syncReplicaSet(key),
      (key, err) => (isConflict(err) ? this.logger.debug : this.logger.warn)('sync failed', { [this.kind.owner.kind]: key, err }));
  }

  stop(): void { this.queue.shutDown(); }

  private enqueue(rs: ReplicaOwner): void { this.queue.add(metaKey(rs)); }
  private withKind(rs: ReplicaOwner): ReplicaOwner { return { ...rs, apiVersion: this.kind.owner.apiVersion, kind: this.kind.owner.kind } as ReplicaOwner; }

  // ---- event handlers: find the owner, count expectations, enqueue ----

  private registerHandlers(): void {
    this.rsInformer.addEventHandler({
      add: (rs: ReplicaOwner) => this.enqueue(rs),
      update: (old: ReplicaOwner, cur: ReplicaOwner) => {
        if (old.metadata!.uid !== cur.metadata!.uid) this.deleteRS(old);
        this.enqueue(cur);
      },
      delete: (rs: ReplicaOwner) => this.deleteRS(rs),
    });
    this.podInformer.addEventHandler({
      add: (pod: Pod) => this.addPod(pod),
      update: (old: Pod, cur: Pod) => this.updatePod(old, cur),
      delete: (pod: Pod) => this.deletePod(pod),
    });
  }

  private deleteRS(rs: ReplicaOwner): void {
    const key = metaKey(rs);
    this.expectations.delete(key);
    this.queue.add(key);
  }

  /** resolveControllerRef: the owner a controller ref names, if its kind and uid match. */
  private resolveControllerRef(namespace: string, ref: OwnerReference | undefined): ReplicaOwner | undefined {
    if (ref?.kind !== this.kind.owner.kind) return undefined;
    const rs: ReplicaOwner | undefined = this.rsInformer.get(`${namespace}/${ref.name}`);
    return rs && rs.metadata!.uid === ref.uid ? rs : undefined;
  }

  /** getPodReplicaSets: owners in the pod's namespace whose (non-empty) selector matches it. */
  private matchingOwners(pod: Pod): ReplicaOwner[] {
    return this.rsInformer.list().filter((rs: ReplicaOwner) => {
      if (rs.metadata!.namespace !== pod.metadata!.namespace) return false;
      const sel = this.kind.selector(rs);
      return !!sel && !isEverything(sel) && matchesSelector(sel, pod.metadata!.labels);
    });
  }

  private addPod(pod: Pod): void {
    if (isDeleting(pod)) { this.deletePod(pod); return; }
    const ref = controllerRef(pod);
    if (ref) {
      const rs = this.resolveControllerRef(pod.metadata!.namespace!, ref);
      if (!rs) return;
      this.expectations.creationObserved(metaKey(rs));
      this.enqueue(rs);
      return;
    }
    for (const rs of this.matchingOwners(pod)) this.enqueue(rs);
  }

  private updatePod(old: Pod, cur: Pod): void {
    if (old.metadata!.resourceVersion === cur.metadata!.resourceVersion) return;
    const labelsChanged = !sameLabels(old.metadata!.labels, cur.metadata!.labels);
    if (isDeleting(cur)) {
      // A graceful delete: replace the pod now rather than when it is finally gone.
      this.deletePod(cur);
      if (labelsChanged) this.deletePod(old);
      return;
    }
    const curRef = controllerRef(cur);
    const oldRef = controllerRef(old);
    const refChanged = !sameControllerRef(curRef, oldRef);
    if (refChanged && oldRef) {
      const prev = this.resolveControllerRef(old.metadata!.namespace!, oldRef);
      if (prev) this.enqueue(prev);
    }
    if (curRef) {
      const rs = this.resolveControllerRef(cur.metadata!.namespace!, curRef);
      if (!rs) return;
      this.enqueue(rs);
      const minReady = rs.spec?.minReadySeconds ?? 0;
      if (minReady > 0 && !podIsReady(old) && podIsReady(cur)) this.queue.addAfter(metaKey(rs), minReady * 1000 + 1000);
      return;
    }
    if (labelsChanged || refChanged) for (const rs of this.matchingOwners(cur)) this.enqueue(rs);
  }

  private deletePod(pod: Pod): void {
    const rs = this.resolveControllerRef(pod.metadata!.namespace!, controllerRef(pod));
    if (!rs) return;
    const key = metaKey(rs);
    this.expectations.deletionObserved(key, metaKey(pod));
    this.queue.add(key);
  }

  // ---- the sync ----

  /** Active pods in the namespace the owner controls, and active orphans there. */
  private candidates(rs: ReplicaOwner): Pod[] {
    const ns = rs.metadata!.namespace!;
    const uid = rs.metadata!.uid!;
    const pods: Pod[] = this.scan
      ? this.podInformer.list().filter((p: Pod) => p.metadata!.namespace === ns && (!controllerRef(p) || controllerRef(p)!.uid === uid))
      : [...this.podInformer.byIndex(controllerUIDIndex, uid).filter((p: Pod) => p.metadata!.namespace === ns), ...this.podInformer.byIndex(orphansByNamespaceIndex, ns)];
    return pods.filter(podIsActive);
  }

  /**
   * getIndirectlyRelatedPods: the active pods of every owner-kind object with
   * the same controlling owner (a Deployment's ReplicaSets); just ours when
   * we have no controller.
   */
  private relatedPods(rs: ReplicaOwner, own: Pod[]): Pod[] {
    const owner = controllerRef(rs);
    if (!owner) return own;
    const ns = rs.metadata!.namespace;
    const siblings = this.rsInformer.list().filter((o: ReplicaOwner) => o.metadata!.namespace === ns && controllerRef(o)?.uid === owner.uid);
    const out: Pod[] = [];
    for (const sib of siblings) {
      const sibUID = (sib as ReplicaOwner).metadata!.uid!;
      const pods: Pod[] = this.scan ? this.podInformer.list().filter((p: Pod) => controllerRef(p)?.uid === sibUID) : this.podInformer.byIndex(controllerUIDIndex, sibUID);
      out.push(...pods.filter((p) => p.metadata!.namespace === ns));
    }
    return out;
  }

  async syncReplicaSet(key: string): Promise<void> {
    const rs: ReplicaOwner | undefined = this.rsInformer.get(key);
    if (!rs) { this.expectations.delete(key); this.slots.forget(key); return; } // 1
    const needsSync = this.expectations.satisfied(key);
    const selector = this.kind.selector(rs);
    if (!selector) { this.logger.warn('invalid selector', { [this.kind.owner.kind]: key }); return; }
    const client = this.ctx.clients.resource(this.kind.resource);
    const active = await claimObjects({ // 2
      owner: rs, kind: this.kind.owner, selector, candidates: this.candidates(rs), client: this.ctx.clients.pods,
      recheck: recheckOwner(client, rs, this.kind.owner.kind),
    });
    let manageError: unknown;
    if (needsSync && !isDeleting(rs)) manageError = await this.manageReplicas(rs, active, key).then(() => undefined, (e) => e); // 3
    const now = this.ctx.clock.now();
    const status = calculateStatus({ // 4
      replicas: rs.spec?.replicas ?? 1, minReadySeconds: rs.spec?.minReadySeconds ?? 0, templateLabels: rs.spec?.template?.metadata?.labels ?? {},
      status: rs.status, generation: rs.metadata!.generation ?? 0, active, now,
      manageError: manageError === undefined ? undefined : (manageError as Error).message ?? String(manageError),
    });
    const updated = await this.updateStatus(rs, status);
    const replicas = updated.spec?.replicas ?? 1;
    const minReady = updated.spec?.minReadySeconds ?? 0;
    if (manageError === undefined && minReady > 0 && updated.status?.readyReplicas === replicas && updated.status?.availableReplicas !== replicas) {
      this.queue.addAfter(key, minReady * 1000);
    }
    if (manageError !== undefined) throw manageError;
  }

  /** manageReplicas: expectations first, then slow-start creates or ranked deletes. */
  private async manageReplicas(rs: ReplicaOwner, active: Pod[], key: string): Promise<void> {
    const plan = planManage(rs.spec?.replicas ?? 1, active, this.relatedPods(rs, active), this.burst, this.ctx.clock.now());
    if (plan.create > 0) {
      // Every slot taken: no creates this time; the status is still written, and a slot given back brings the key back.
      if (!this.slots.tryAcquire(key)) return;
      try {
        this.expectations.expectCreations(key, plan.create);
        const { successes, error } = await slowStartBatch(plan.create, slowStartInitialBatchSize, () => this.createPod(rs));
        const skipped = plan.create - successes;
        if (skipped > 0) this.expectations.creationObserved(key, skipped);
        if (error) throw error;
      } finally {
        this.slots.release();
      }
      return;
    }
    if (plan.delete.length === 0) return;
    this.expectations.expectDeletions(key, plan.delete.map((p) => metaKey(p)));
    const errors: unknown[] = [];
    await Promise.all(plan.delete.map(async (pod) => {
      try {
        await this.ctx.clients.pods.delete(rs.metadata!.namespace, pod.metadata!.name!);
        this.recorder.event(this.withKind(rs), 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata!.name}`);
      } catch (e) {
        this.expectations.deletionObserved(key, metaKey(pod));
        if (isNotFound(e)) return;
        this.recorder.event(this.withKind(rs), 'Warning', 'FailedDelete', `Error deleting: ${(e as Error).message}`);
        errors.push(e);
      }
    }));
    if (errors.length) throw errors[0];
  }

  /** CreatePods: the template as a pod named `<owner>-xxxxx`; a terminating namespace is not a failure. */
  private async createPod(rs: ReplicaOwner): Promise<void> {
    const pod = podFromTemplate(rs, newControllerRef(rs, this.kind.owner));
    try {
      if (Object.keys(pod.metadata!.labels!).length === 0) throw new Error('unable to create pods, no labels');
      const created: Pod = await this.ctx.clients.pods.create(rs.metadata!.namespace, pod);
      this.recorder.event(this.withKind(rs), 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata!.name}`);
    } catch (e) {
      if (isNamespaceTerminating(e)) return;
      this.recorder.event(this.withKind(rs), 'Warning', 'FailedCreate', `Error creating: ${(e as Error).message}`);
      throw e;
    }
  }

  /** updateReplicaSetStatus: write only a change; one retry on a fresh read. */
  private async updateStatus(rs: ReplicaOwner, status: ReplicaSetStatus): Promise<ReplicaOwner> {
    if (statusUnchanged(rs.status, status)) return rs;
    const client = this.ctx.clients.resource(this.kind.resource);
    let toUpdate: Writable<ReplicaOwner> = structuredClone(rs);
    for (let i = 0; ; i++) {
      toUpdate.status = status;
      try {
        return await client.updateStatus(this.withKind(toUpdate));
      } catch (e) {
        if (i >= 1) throw e;
        toUpdate = await client.get(rs.metadata!.namespace, rs.metadata!.name!);
      }
    }
  }
}

/** GetPodFromTemplate: the template's labels, annotations, finalizers and spec, GenerateName `<owner>-`. */
export function podFromTemplate(owner: ReplicaSet | ReplicationController, ref: OwnerReference): Pod {
  const t = owner.spec?.template ?? {};
  const metadata: ObjectMeta = {
    labels: { ...(t.metadata?.labels ?? {}) }, generateName: `${owner.metadata!.name}-`, ownerReferences: [ref],
  };
  if (t.metadata?.annotations) metadata.annotations = { ...t.metadata.annotations };
  if (t.metadata?.finalizers) metadata.finalizers = [...t.metadata.finalizers];
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: structuredClone(t.spec ?? {}) as PodSpec };
}
