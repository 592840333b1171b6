/**
 * The Deployment controller (upstream pkg/controller/deployment). Event
 * handlers only find the owning Deployment and enqueue it; a sync reads
 * everything again from the caches:
 *  1. Gone: nothing. Selecting everything: a SelectingAll warning, only
 *     observedGeneration is written.
 *  2. Claim ReplicaSets: adopt matching orphans, release those that no longer match.
 *  3. Being deleted: status only.
 *  4. Paused/resumed: the Progressing condition says so (DeploymentPaused /
 *     DeploymentResumed, status Unknown).
 *  5. Paused, or replicas changed (a ReplicaSet's desired-replicas annotation
 *     differs): scale proportionally (scale.ts), clean up history when
 *     paused, write status.
 *  6. Otherwise roll out: Recreate (old to zero, wait for their pods to be
 *     gone, then the new one up) or RollingUpdate (rolling.ts); once complete
 *     clean up old ReplicaSets beyond revisionHistoryLimit; write status
 *     with the Progressing/Available conditions (status.ts).
 * ReplicaSet sizes are written with a PUT carrying the cached
 * resourceVersion, so a stale cache makes a write conflict rather than
 * overshoot maxSurge.
 */
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { Controller, ControllerContext } from '../types.js';
import type { Informer, EventRecorder } from '../../client/index.js';
import { WorkQueue, runWorkers, metaKey, isConflict, isNotFound } from '../../client/index.js';
import { isEverything, matchesSelector, selectorFromLabelSelector } from '../../api/labels.js';
import type { Selector } from '../../api/labels.js';
import { controllerRef } from '../../api/pods.js';
import type { Logger } from '../../util/log.js';
import { claimObjects, recheckOwner } from '../controller-ref.js';
import { planNewReplicaSet, planOldReplicaSets, type ScaleAction } from './rolling.js';
import { planScale } from './scale.js';
import { calculateStatus, deploymentComplete, rolloutStatus, statusEqual, stuckRequeueMs } from './status.js';
import { NewReplicaSetCreator } from './newrs.js';
import {
  activeReplicaSets, byRevision, desiredReplicasAnnotationOf, findNewReplicaSet, getCondition, hasProgressDeadline,
  maxSurge, newCondition, progressing, reasons, replicasAnnotationsNeedUpdate, replicasOf, setCondition, setReplicasAnnotations,
} from './util.js';

const deploymentKind = { apiVersion: 'apps/v1', kind: 'Deployment' };
const withKind = (d: Deployment): Deployment => ({ ...d, apiVersion: 'apps/v1', kind: 'Deployment' });
const rsWithKind = (rs: ReplicaSet): ReplicaSet => ({ ...rs, apiVersion: 'apps/v1', kind: 'ReplicaSet' });
const isDeleting = (o: { metadata?: ObjectMeta }) => !!o.metadata?.deletionTimestamp;

export class DeploymentController implements Controller {
  readonly name = 'deployment';
  private readonly queue = new WorkQueue();
  private readonly dInformer: Informer;
  private readonly rsInformer: Informer;
  private readonly podInformer: Informer;
  private readonly recorder: EventRecorder;
  private readonly logger: Logger;
  private readonly newRS: NewReplicaSetCreator;

  constructor(private readonly ctx: ControllerContext) {
    this.logger = ctx.logger.with('deployment');
    this.recorder = ctx.recorder('deployment-controller');
    this.dInformer = ctx.informers.informer('deployments');
    this.rsInformer = ctx.informers.informer('replicasets');
    this.podInformer = ctx.informers.informer('pods');
    this.newRS = new NewReplicaSetCreator({
      clients: ctx.clients, rsCache: (key) => this.rsInformer.get(key), clock: ctx.clock,
      event: (d, type, reason, msg) => this.recorder.event(withKind(d), type, reason, msg),
      updateStatus: (d) => this.updateStatus(d),
    });
    this.registerHandlers();
  }

  run(): void {
    void runWorkers(this.queue, this.ctx.config.workers, (key) => this.syncDeployment(key),
      (key, err) => (isConflict(err) ? this.logger.debug : this.logger.warn)('sync failed', { deployment: key, err }));
  }

  stop(): void { this.queue.shutDown(); }

  private enqueue(d: Deployment): void { this.queue.add(metaKey(d)); }

  // ---- event handlers: find the owner, enqueue ----

  private registerHandlers(): void {
    const enqueue = (d: Deployment) => this.enqueue(d);
    this.dInformer.addEventHandler({ add: enqueue, update: (_o, d: Deployment) => this.enqueue(d), delete: enqueue });
    this.rsInformer.addEventHandler({
      add: (rs: ReplicaSet) => this.ownerOrMatching(rs, true),
      update: (old: ReplicaSet, cur: ReplicaSet) => this.updateReplicaSet(old, cur),
      delete: (rs: ReplicaSet) => this.ownerOrMatching(rs, false),
    });
    // Recreate waits for the old pods to be gone.
    this.podInformer.addEventHandler({ delete: (pod: Pod) => this.deletePod(pod) });
  }

  private resolveControllerRef(namespace: string, ref: OwnerReference | undefined): Deployment | undefined {
    if (ref?.kind !== 'Deployment') return undefined;
    const d: Deployment | undefined = this.dInformer.get(`${namespace}/${ref.name}`);
    return d && d.metadata!.uid === ref.uid ? d : undefined;
  }

  /** The controlling Deployment of a ReplicaSet, or (orphans) every Deployment that might adopt it. */
  private ownerOrMatching(rs: ReplicaSet, orphansToo: boolean): void {
    const ref = controllerRef(rs);
    if (ref) {
      const d = this.resolveControllerRef(rs.metadata!.namespace!, ref);
      if (d) this.enqueue(d);
      return;
    }
    if (!orphansToo) return;
    for (const d of this.dInformer.list() as Deployment[]) {
      if (d.metadata!.namespace !== rs.metadata!.namespace) continue;
      const sel = safeSelector(d);
      if (sel && !isEverything(sel) && matchesSelector(sel, rs.metadata!.labels)) this.enqueue(d);
    }
  }

  private updateReplicaSet(old: ReplicaSet, cur: ReplicaSet): void {
    if (old.metadata!.resourceVersion === cur.metadata!.resourceVersion) return;
    const oldRef = controllerRef(old);
    const curRef = controllerRef(cur);
    const refChanged = JSON.stringify(oldRef) !== JSON.stringify(curRef);
    if (refChanged && oldRef) {
      const d = this.resolveControllerRef(old.metadata!.namespace!, oldRef);
      if (d) this.enqueue(d);
    }
    if (curRef) { this.ownerOrMatching(cur, false); return; }
    const labelsChanged = JSON.stringify(old.metadata!.labels ?? {}) !== JSON.stringify(cur.metadata!.labels ?? {});
    if (labelsChanged || refChanged) this.ownerOrMatching(cur, true);
  }

  private deletePod(pod: Pod): void {
    const ref = controllerRef(pod);
    if (ref?.kind !== 'ReplicaSet') return;
    const rs: ReplicaSet | undefined = this.rsInformer.get(`${pod.metadata!.namespace}/${ref.name}`);
    if (!rs || rs.metadata!.uid !== ref.uid) return;
    const d = this.resolveControllerRef(rs.metadata!.namespace!, controllerRef(rs));
    if (d && d.spec?.strategy?.type === 'Recreate') this.enqueue(d);
  }

  // ---- the sync ----

  async syncDeployment(key: string): Promise<void> {
    const cached: Deployment | undefined = this.dInformer.get(key);
    if (!cached) return; // 1
    const d: Deployment = withKind(structuredClone(cached));
    const selector = safeSelector(d);
    if (!selector || isEverything(selector)) {
      this.recorder.event(d, 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      if ((d.status?.observedGeneration ?? 0) < (d.metadata?.generation ?? 0)) {
        d.status = { ...(d.status ?? {}), observedGeneration: d.metadata!.generation };
        await this.updateStatus(d);
      }
      return;
    }
    const rsList = await this.claimReplicaSets(d, selector); // 2
    if (isDeleting(d)) return this.syncStatusOnly(d, rsList); // 3
    await this.checkPausedConditions(d); // 4
    if (d.spec?.paused || this.isScalingEvent(d, rsList)) return this.syncScale(d, rsList); // 5
    if (d.spec?.strategy?.type === 'Recreate') return this.rolloutRecreate(d, rsList); // 6
    return this.rolloutRolling(d, rsList);
  }

  private async claimReplicaSets(d: Deployment, selector: Selector): Promise<ReplicaSet[]> {
    const ns = d.metadata!.namespace;
    const candidates = (this.rsInformer.list() as ReplicaSet[]).filter((rs) => rs.metadata!.namespace === ns && (!controllerRef(rs) || controllerRef(rs)!.uid === d.metadata!.uid));
    return claimObjects({
      owner: d, kind: deploymentKind, selector, candidates, client: this.ctx.clients.resource('replicasets'),
      recheck: recheckOwner(this.ctx.clients.resource('deployments'), d, 'Deployment'),
    });
  }

  /** getAllReplicaSetsAndSyncRevision: the new ReplicaSet (created when asked) and the old ones. */
  private async newAndOld(d: Deployment, rsList: ReplicaSet[], create: boolean): Promise<{ newRS?: ReplicaSet; oldRSs: ReplicaSet[] }> {
    const existing = findNewReplicaSet(d, rsList);
    const oldRSs = rsList.filter((rs) => rs !== existing);
    const newRS = await this.newRS.getNewReplicaSet(d, existing, oldRSs, create);
    return { newRS, oldRSs };
  }

  /** isScalingEvent: an active ReplicaSet's desired-replicas annotation differs from spec.replicas. */
  private isScalingEvent(d: Deployment, rsList: ReplicaSet[]): boolean {
    const replicas = d.spec?.replicas ?? 1;
    return activeReplicaSets(rsList).some((rs) => {
      const desired = desiredReplicasAnnotationOf(rs);
      return desired !== undefined && desired !== replicas;
    });
  }

  /** checkPausedConditions. */
  private async checkPausedConditions(d: Deployment): Promise<void> {
    if (!hasProgressDeadline(d)) return;
    const cond = getCondition(d.status, progressing);
    if (cond?.reason === reasons.timedOut) return;
    const pausedExists = cond?.reason === reasons.paused;
    const now = this.ctx.clock.now();
    d.status ??= {};
    if (d.spec?.paused && !pausedExists) {
      setCondition(d.status, newCondition(progressing, 'Unknown', reasons.paused, 'Deployment is paused', now));
    } else if (!d.spec?.paused && pausedExists) {
      setCondition(d.status, newCondition(progressing, 'Unknown', reasons.resumed, 'Deployment is resumed', now));
    } else {
      return;
    }
    await this.updateStatus(d);
  }

  private async syncStatusOnly(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const { newRS, oldRSs } = await this.newAndOld(d, rsList, false);
    await this.syncDeploymentStatus(d, [...oldRSs, ...(newRS ? [newRS] : [])], newRS);
  }

  /** sync: scale, clean up when paused, write status. */
  private async syncScale(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const { newRS, oldRSs } = await this.newAndOld(d, rsList, false);
    const updated = await this.apply(d, planScale(d, newRS, oldRSs));
    const fresh = (rs: ReplicaSet) => updated.get(rs) ?? rs;
    if (d.spec?.paused) await this.cleanupDeployment(d, oldRSs.map(fresh));
    const all = [...oldRSs, ...(newRS ? [newRS] : [])].map(fresh);
    await this.syncDeploymentStatus(d, all, newRS && fresh(newRS));
  }

  private async rolloutRolling(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const { newRS, oldRSs } = await this.newAndOld(d, rsList, true);
    let all = [...oldRSs, ...(newRS ? [newRS] : [])];
    if (!newRS) return this.syncRolloutStatus(d, all, newRS);
    const target = planNewReplicaSet(d, all, newRS);
    if (target !== undefined) {
      const up = await this.apply(d, [{ rs: newRS, replicas: target }]);
      all = all.map((rs) => up.get(rs) ?? rs);
      return this.syncRolloutStatus(d, all, up.get(newRS) ?? newRS);
    }
    const down = await this.apply(d, planOldReplicaSets(d, all, activeReplicaSets(oldRSs), newRS));
    if (down.size > 0) return this.syncRolloutStatus(d, all.map((rs) => down.get(rs) ?? rs), newRS);
    if (deploymentComplete(d, d.status ?? {})) await this.cleanupDeployment(d, oldRSs);
    return this.syncRolloutStatus(d, all, newRS);
  }

  private async rolloutRecreate(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    let { newRS, oldRSs } = await this.newAndOld(d, rsList, false);
    const all = () => [...oldRSs, ...(newRS ? [newRS] : [])];
    const down = await this.apply(d, activeReplicaSets(oldRSs).map((rs) => ({ rs, replicas: 0 })));
    if (down.size > 0) return this.syncRolloutStatus(d, all().map((rs) => down.get(rs) ?? rs), newRS);
    if (this.oldPodsRunning(newRS, oldRSs)) return this.syncRolloutStatus(d, all(), newRS);
    if (!newRS) ({ newRS, oldRSs } = await this.newAndOld(d, rsList, true));
    if (newRS) {
      const up = await this.apply(d, [{ rs: newRS, replicas: d.spec?.replicas ?? 1 }]);
      newRS = up.get(newRS) ?? newRS;
    }
    if (deploymentComplete(d, d.status ?? {})) await this.cleanupDeployment(d, oldRSs);
    return this.syncRolloutStatus(d, all(), newRS);
  }

  /** oldPodsRunning: old ReplicaSets report pods, or any of their pods is not terminal yet. */
  private oldPodsRunning(newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): boolean {
    if (oldRSs.some((rs) => (rs.status?.replicas ?? 0) > 0)) return true;
    const oldUIDs = new Set(oldRSs.map((rs) => rs.metadata!.uid));
    // No old ReplicaSet, no old pod: the list below decodes every pod the informer keeps cold.
    if (oldUIDs.size === 0) return false;
    return this.podInformer.list().some((p) => {
      const ref = controllerRef(p);
      return ref && oldUIDs.has(ref.uid) && ref.uid !== newRS?.metadata?.uid && p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded';
    });
  }

  /** scaleReplicaSetAndRecordEvent for each action, in order; the written ReplicaSets by their cached object. */
  private async apply(d: Deployment, actions: ScaleAction[]): Promise<Map<ReplicaSet, ReplicaSet>> {
    const out = new Map<ReplicaSet, ReplicaSet>();
    for (const a of actions) {
      const written = await this.scaleReplicaSet(d, a.rs, a.replicas);
      if (written) out.set(a.rs, written);
    }
    return out;
  }

  /** scaleReplicaSet: write the size and the replicas annotations when either differs; an event when the size changed. */
  private async scaleReplicaSet(d: Deployment, rs: ReplicaSet, replicas: number): Promise<ReplicaSet | undefined> {
    const desired = d.spec?.replicas ?? 1;
    const max = desired + maxSurge(d);
    const sizeChanged = replicasOf(rs) !== replicas;
    if (!sizeChanged && !replicasAnnotationsNeedUpdate(rs, desired, max)) return undefined;
    const copy: ReplicaSet = structuredClone(rs);
    const before = replicasOf(rs);
    copy.spec = { ...copy.spec!, replicas };
    setReplicasAnnotations(copy, desired, max);
    const written = await this.ctx.clients.resource('replicasets').update(rsWithKind(copy));
    if (sizeChanged) {
      const op = before < replicas ? 'up' : 'down';
      this.recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled ${op} replica set ${rs.metadata!.name} from ${before} to ${replicas}`);
    }
    return written;
  }

  /** cleanupDeployment: delete the oldest idle old ReplicaSets beyond revisionHistoryLimit. */
  private async cleanupDeployment(d: Deployment, oldRSs: ReplicaSet[]): Promise<void> {
    const limit = d.spec?.revisionHistoryLimit;
    if (limit === undefined || limit === null) return;
    const cleanable = oldRSs.filter((rs) => !isDeleting(rs)).sort(byRevision);
    const diff = cleanable.length - limit;
    for (const rs of cleanable.slice(0, Math.max(0, diff))) {
      if ((rs.status?.replicas ?? 0) !== 0 || replicasOf(rs) !== 0 || (rs.metadata?.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
      try {
        await this.ctx.clients.resource('replicasets').delete(rs.metadata!.namespace, rs.metadata!.name!);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
  }

  private async syncDeploymentStatus(d: Deployment, all: ReplicaSet[], newRS: ReplicaSet | undefined): Promise<void> {
    const status = calculateStatus(all, newRS, d, this.ctx.clock.now());
    if (statusEqual(d.status, status)) return;
    d.status = status;
    await this.updateStatus(d);
  }

  private async syncRolloutStatus(d: Deployment, all: ReplicaSet[], newRS: ReplicaSet | undefined): Promise<void> {
    const now = this.ctx.clock.now();
    const status = rolloutStatus(all, newRS, d, now);
    if (statusEqual(d.status, status)) {
      const after = stuckRequeueMs(d, status, now);
      if (after === 0) this.queue.addRateLimited(metaKey(d)); else if (after !== undefined) this.queue.addAfter(metaKey(d), after);
      return;
    }
    d.status = status;
    await this.updateStatus(d);
  }

  /** UpdateStatus; the Deployment carries the new resourceVersion so later writes in this sync do not conflict. */
  private async updateStatus(d: Deployment): Promise<void> {
    const written: Deployment = await this.ctx.clients.resource('deployments').updateStatus(withKind(d));
    (d.metadata as { resourceVersion?: string }).resourceVersion = written.metadata!.resourceVersion;
  }
}

function safeSelector(d: Deployment): Selector | undefined {
  try {
    return selectorFromLabelSelector(d.spec?.selector);
  } catch {
    return undefined;
  }
}

