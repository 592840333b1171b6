/**
 * The StatefulSet controller (upstream `pkg/controller/statefulset`,
 * "statefulset-controller"). Level triggered: pod and set events only find
 * the owning set and enqueue its key; a sync reads the set, its pods, claims
 * and revisions from the informers again, adopts orphans and releases pods
 * that no longer match, settles the revisions, plans with `planStatefulSet`
 * and writes through `PodControl`, then writes status (only when it changed)
 * and trims the revision history.
 *
 * A sync waits until the informers show the previous sync's writes
 * (PendingWrites), so it never acts on a cache older than its own writes.
 */
import type { Controller, ControllerContext } from '../types.js';
import type { EventRecorder, Informer } from '../../client/index.js';
import { WorkQueue, isConflict, isNotFound, isAlreadyExists, runWorkers } from '../../client/index.js';
import type { Logger } from '../../util/log.js';
import { controllerRef, podIsReady } from '../../api/pods.js';
import { isEverything, matchesSelector, selectorFromLabelSelector } from '../../api/labels.js';
import type { Selector } from '../../api/labels.js';
import { goJSON, newControllerRef, sortControllerRevisions, hashControllerRevision, controllerRevisionName } from '../../api/history.js';
import { isMemberOf, statefulSetKind } from './identity.js';
import { sameControllerRef, sameLabels, controllerUIDIndex, indexByControllerUID, indexOrphansByNamespace, orphansByNamespaceIndex } from '../controller-ref.js';
import { planStatefulSet, Plan } from './plan.js';
import { PodControl, aggregate, runForAll } from './podcontrol.js';
import { PendingWrites, CacheView } from './pending.js';
import { applyRevision, chooseUpdateRevision, findCurrentRevision, revisionsToTruncate } from './revisions.js';
import { completeRollingUpdate, inconsistentStatus, statusObject, StatefulSetStatus } from './status.js';
import type { ControllerRevision, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';

export const controllerName = 'statefulset-controller';
const namespaceIndex = 'statefulset:namespace';
const retries = 5;
/** While a sync waits for its own writes to show, look again at least this often. */
const pendingRecheckMs = 5_000;

const keyOf = (obj: { metadata?: ObjectMeta }) => `${obj.metadata!.namespace}/${obj.metadata!.name}`;

export interface StatefulSetControllerOptions {
  /** Concurrent syncs (upstream --concurrent-statefulset-syncs, 5). */
  workers: number;
}

export class StatefulSetController implements Controller {
  readonly name = controllerName;
  private readonly sets: Informer;
  private readonly pods: Informer;
  private readonly revisions: Informer;
  private readonly claims: Informer;
  private readonly queue = new WorkQueue();
  private readonly recorder: EventRecorder;
  private readonly logger: Logger;
  private readonly pending: PendingWrites;
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly cacheView: CacheView;
  private readonly workers: number;

  constructor(private readonly ctx: ControllerContext, opts: Partial<StatefulSetControllerOptions> = {}) {
    this.workers = opts.workers ?? ctx.config.workers;
    this.logger = ctx.logger.with(controllerName);
    this.recorder = ctx.recorder(controllerName);
    this.pending = new PendingWrites(ctx.clock);
    this.sets = ctx.informers.informer('statefulsets');
    this.pods = ctx.informers.informer('pods');
    this.revisions = ctx.informers.informer('controllerrevisions');
    this.claims = ctx.informers.informer('persistentvolumeclaims');
    const informers: Record<string, Informer> = {
      statefulsets: this.sets, pods: this.pods, controllerrevisions: this.revisions, persistentvolumeclaims: this.claims,
    };
    this.cacheView = {
      lastResourceVersion: (r) => informers[r]?.lastResourceVersion() ?? '',
      get: (r, k) => informers[r]?.get(k),
    };
    // The ReplicaSet controller's indexes (controller-ref.ts): one entry a pod for both.
    this.pods.addIndex(controllerUIDIndex, indexByControllerUID);
    this.pods.addIndex(orphansByNamespaceIndex, indexOrphansByNamespace);
    this.sets.addIndex(namespaceIndex, (s) => [s.metadata.namespace]);
    this.revisions.addIndex(namespaceIndex, (r) => [r.metadata.namespace]);
    this.pods.addEventHandler({ add: (p) => this.addPod(p), update: (o, p) => this.updatePod(o, p), delete: (p) => this.deletePod(p) });
    this.sets.addEventHandler({ add: (s) => this.enqueue(s), update: (_o, s) => this.enqueue(s), delete: (s) => this.enqueue(s) });
    const progress = (resource: string) => () => { for (const k of this.pending.setsWaitingOn(resource)) this.queue.add(k); };
    this.revisions.addEventHandler({ add: progress('controllerrevisions'), update: progress('controllerrevisions'), delete: progress('controllerrevisions') });
    // Claims carry their set's selector labels: a claim that appears, changes or goes (say, a stale
    // claim the garbage collector removes) may unblock its set, so look at the sets it matches.
    const claimChanged = (c: PersistentVolumeClaim) => { progress('persistentvolumeclaims')(); for (const set of this.setsForObject(c)) this.enqueue(set); };
    this.claims.addEventHandler({ add: claimChanged, update: (_o, c) => claimChanged(c), delete: claimChanged });
  }

  run(): void {
    this.logger.info('Starting stateful set controller');
    void runWorkers(this.queue, this.workers, (key) => this.sync(key), (key, err) => {
      this.logger.warn('error syncing StatefulSet, requeuing', { key, err });
    });
  }

  stop(): void {
    this.queue.shutDown();
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  // ---- event handlers: find the owner, enqueue it ----

  private enqueue(set: StatefulSet): void { this.queue.add(keyOf(set)); }

  /** AddAfter keeping the earliest time when the key already waits. */
  private enqueueAfter(key: string, ms: number): void {
    const at = Date.now() + ms;
    const cur = this.timers.get(key);
    if (cur && cur.at <= at) return;
    if (cur) clearTimeout(cur.timer);
    const timer = setTimeout(() => { this.timers.delete(key); this.queue.add(key); }, ms);
    timer.unref();
    this.timers.set(key, { at, timer });
  }

  private resolveControllerRef(namespace: string, ref: OwnerReference): StatefulSet | undefined {
    if (ref.kind !== statefulSetKind.kind) return undefined;
    const set = this.sets.get(`${namespace}/${ref.name}`);
    return set && set.metadata.uid === ref.uid ? set : undefined;
  }

  /** GetPodStatefulSets: sets in the object's namespace whose (non-empty, valid) selector matches its labels. */
  private setsForObject(obj: Pod | PersistentVolumeClaim): StatefulSet[] {
    if (!obj.metadata!.labels || !Object.keys(obj.metadata!.labels).length) return [];
    return this.sets.byIndex(namespaceIndex, obj.metadata!.namespace!).filter((s) => {
      const sel = parseSelector(s);
      return !!sel && !isEverything(sel) && matchesSelector(sel, obj.metadata!.labels);
    });
  }

  private addPod(pod: Pod): void {
    if (pod.metadata!.deletionTimestamp) { this.deletePod(pod); return; }
    const ref = controllerRef(pod);
    if (ref) {
      const set = this.resolveControllerRef(pod.metadata!.namespace!, ref);
      if (set) this.enqueue(set);
      return;
    }
    for (const set of this.setsForObject(pod)) this.enqueue(set);
  }

  private updatePod(old: Pod, cur: Pod): void {
    if (old.metadata!.resourceVersion === cur.metadata!.resourceVersion) return;
    const labelChanged = !sameLabels(old.metadata!.labels, cur.metadata!.labels);
    const curRef = controllerRef(cur);
    const oldRef = controllerRef(old);
    const refChanged = !sameControllerRef(curRef, oldRef);
    if (refChanged && oldRef) {
      const set = this.resolveControllerRef(old.metadata!.namespace!, oldRef);
      if (set) this.enqueue(set);
    }
    if (curRef) {
      const set = this.resolveControllerRef(cur.metadata!.namespace!, curRef);
      if (!set) return;
      this.enqueue(set);
      const minReady = set.spec?.minReadySeconds ?? 0;
      // Look again once the pod has been Ready for minReadySeconds (plus a second against clock skew).
      if (!podIsReady(old) && podIsReady(cur) && minReady > 0) this.enqueueAfter(keyOf(set), minReady * 1000 + 1000);
      return;
    }
    if (labelChanged || refChanged) for (const set of this.setsForObject(cur)) this.enqueue(set);
  }

  private deletePod(pod: Pod): void {
    const ref = controllerRef(pod);
    if (!ref) return;
    const set = this.resolveControllerRef(pod.metadata!.namespace!, ref);
    if (set) this.enqueue(set);
  }

  // ---- the sync ----

  /** Exposed for tests: one reconcile of namespace/name. */
  async sync(key: string): Promise<void> {
    const set = this.sets.get(key);
    if (!set) {
      this.pending.forget(key);
      this.logger.debug('StatefulSet has been deleted', { key });
      return;
    }
    if (!this.pending.satisfied(key, this.cacheView)) {
      this.enqueueAfter(key, pendingRecheckMs);
      return;
    }
    const selector = parseSelector(set);
    if (!selector) {
      this.logger.warn('error converting StatefulSet selector', { key });
      return;
    }
    await this.adoptOrphanRevisions(set, selector);
    const pods = await this.claimPods(set, selector);
    const status = await this.syncStatefulSet(set, selector, pods);
    const minReady = set.spec?.minReadySeconds ?? 0;
    if (minReady > 0 && status && status.availableReplicas !== (set.spec?.replicas ?? 1)) this.enqueueAfter(key, minReady * 1000);
  }

  /** UpdateStatefulSet: revisions, plan, writes, status; the history is trimmed whatever happened. */
  private async syncStatefulSet(set: StatefulSet, selector: Selector, pods: Pod[]): Promise<StatefulSetStatus | undefined> {
    const key = keyOf(set);
    const sorted = sortControllerRevisions(this.listRevisions(set, selector));
    let current: ControllerRevision | undefined;
    let update: ControllerRevision | undefined;
    let status: StatefulSetStatus | undefined;
    const errors: unknown[] = [];
    try {
      let collisionCount: number;
      ({ update, collisionCount } = await this.updateRevision(set, sorted, key));
      current = findCurrentRevision(set, sorted, update);
      const plan = planStatefulSet({
        set, currentSet: applyRevision(set, current), updateSet: applyRevision(set, update),
        currentRevision: current.metadata!.name!, updateRevision: update.metadata!.name!, collisionCount,
        pods, claim: (name) => this.claims.get(`${set.metadata!.namespace}/${name}`), now: this.ctx.clock.now(),
      });
      const result = await this.execute(set, applyRevision(set, update), plan, key);
      status = result.status;
      if (result.error) errors.push(result.error);
      try {
        await this.writeStatus(set, status, key);
      } catch (e) {
        if (!result.error) errors.push(e);
        else this.logger.warn('could not update status', { key, err: e });
      }
    } catch (e) {
      errors.push(e);
    }
    try {
      await this.truncateHistory(set, pods, sorted, current, update, key);
    } catch (e) {
      errors.push(e);
    }
    const err = aggregate(errors);
    if (err) throw err;
    return status;
  }

  /** Runs the phases of the plan; returns the status to record and the error that stopped it. */
  private async execute(set: StatefulSet, updateSet: StatefulSet, plan: Plan, key: string): Promise<{ status: StatefulSetStatus; error?: Error }> {
    const control = new PodControl({ clients: this.ctx.clients, recorder: this.recorder, pending: this.pending }, set, updateSet, key);
    const status = plan.status;
    for (const steps of [plan.replicas, plan.condemnedClaims, plan.condemned]) {
      const r = await runForAll(steps, plan.monotonic, (s) => control.runStep(s));
      if (r.stopped) return { status, error: r.error };
    }
    const action = plan.update?.actions[0];
    if (!action) return { status };
    try {
      await control.run(action);
    } catch (e) {
      if (!isNotFound(e)) return { status, error: e as Error };
    }
    return { status: { ...status, currentReplicas: status.currentReplicas - 1 } };
  }

  // ---- revisions ----

  /** ListRevisions: the namespace's revisions matching the selector, ours or orphaned. */
  private listRevisions(set: StatefulSet, selector: Selector): ControllerRevision[] {
    return this.revisions.byIndex(namespaceIndex, set.metadata!.namespace!).filter((r) => {
      const ref = controllerRef(r);
      return (!ref || ref.uid === set.metadata!.uid) && matchesSelector(selector, r.metadata.labels ?? {});
    });
  }

  private async adoptOrphanRevisions(set: StatefulSet, selector: Selector): Promise<void> {
    const orphans = this.listRevisions(set, selector).filter((r) => !controllerRef(r));
    if (!orphans.length) return;
    const canAdopt = await this.canAdopt(set);
    if (canAdopt) throw new Error(`can't adopt ControllerRevisions: ${canAdopt.message}`);
    for (const r of orphans) {
      const patched = await this.ctx.clients.controllerrevisions.patch(r.metadata!.namespace, r.metadata!.name!,
        { metadata: { ownerReferences: [newControllerRef(set, statefulSetKind)], uid: r.metadata!.uid } }, 'strategic');
      this.pending.wrote(keyOf(set), 'controllerrevisions', patched);
    }
  }

  /** getStatefulSetRevisions' writes: re-use, renumber (rollback) or create the update revision. */
  private async updateRevision(set: StatefulSet, sorted: ControllerRevision[], key: string): Promise<{ update: ControllerRevision; collisionCount: number }> {
    let collisionCount = set.status?.collisionCount ?? 0;
    const choice = chooseUpdateRevision(set, sorted, collisionCount);
    if (choice.action === 'reuse') return { update: choice.revision, collisionCount };
    if (choice.action === 'bump') return { update: await this.renumberRevision(choice.revision, choice.to, key), collisionCount };
    const rev = structuredClone(choice.revision);
    for (;;) {
      rev.metadata!.name = controllerRevisionName(set.metadata!.name!, hashControllerRevision(rev.data, collisionCount));
      try {
        const created = await this.ctx.clients.controllerrevisions.create(set.metadata!.namespace, rev);
        this.pending.wrote(key, 'controllerrevisions', created);
        return { update: created, collisionCount };
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
        const existing = await this.ctx.clients.controllerrevisions.get(set.metadata!.namespace, rev.metadata!.name);
        if (goJSON(existing.data ?? null) === goJSON(rev.data)) return { update: existing, collisionCount };
        collisionCount++;
      }
    }
  }

  /** UpdateControllerRevision: set the revision number, re-reading on conflicts. */
  private async renumberRevision(revision: ControllerRevision, to: number, key: string): Promise<ControllerRevision> {
    let cur = structuredClone(revision);
    for (let attempt = 0; ; attempt++) {
      if (cur.revision === to) return cur;
      try {
        const updated = await this.ctx.clients.controllerrevisions.update({ ...cur, revision: to });
        this.pending.wrote(key, 'controllerrevisions', updated);
        return updated;
      } catch (e) {
        if (!isConflict(e) || attempt >= retries) throw e;
        cur = await this.ctx.clients.controllerrevisions.get(cur.metadata!.namespace, cur.metadata!.name!);
      }
    }
  }

  private async truncateHistory(set: StatefulSet, pods: Pod[], sorted: ControllerRevision[], current: ControllerRevision | undefined, update: ControllerRevision | undefined, key: string): Promise<void> {
    for (const r of revisionsToTruncate(set, pods, sorted, current, update)) {
      try {
        await this.ctx.clients.controllerrevisions.delete(r.metadata!.namespace, r.metadata!.name!);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      this.pending.deleted(key, 'controllerrevisions', keyOf(r), r.metadata!.uid!);
    }
  }

  // ---- status ----

  /** updateStatefulSetStatus: complete a finished rolling update; write only what changed. */
  private async writeStatus(set: StatefulSet, computed: StatefulSetStatus, key: string): Promise<void> {
    const status = completeRollingUpdate(set, computed);
    if (!inconsistentStatus(set, status)) return;
    let cur = set;
    for (let attempt = 0; ; attempt++) {
      try {
        const updated = await this.ctx.clients.statefulsets.updateStatus({ ...cur, status: statusObject(status) });
        this.pending.wrote(key, 'statefulsets', updated);
        return;
      } catch (e) {
        if (!isConflict(e) || attempt >= retries) throw e;
        cur = await this.ctx.clients.statefulsets.get(set.metadata!.namespace, set.metadata!.name!);
      }
    }
  }

  // ---- pod ownership ----

  /** RecheckDeletionTimestamp: the set still exists (same UID) and is not being deleted; an Error when not. */
  private async canAdopt(set: StatefulSet): Promise<Error | undefined> {
    try {
      const fresh = await this.ctx.clients.statefulsets.get(set.metadata!.namespace, set.metadata!.name!);
      if (fresh.metadata.uid !== set.metadata!.uid) {
        return new Error(`original StatefulSet ${keyOf(set)} is gone: got uid ${fresh.metadata.uid}, wanted ${set.metadata!.uid}`);
      }
      if (fresh.metadata.deletionTimestamp) return new Error(`${keyOf(set)} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
      return undefined;
    } catch (e) {
      return e as Error;
    }
  }

  /**
   * ClaimPods: our pods that still match (selector and name) are kept; ours
   * that no longer match are released; matching orphans are adopted unless
   * the set or the pod is being deleted.
   */
  private async claimPods(set: StatefulSet, selector: Selector): Promise<Pod[]> {
    const uid = set.metadata!.uid;
    const candidates = [...this.pods.byIndex(controllerUIDIndex, uid!), ...this.pods.byIndex(orphansByNamespaceIndex, set.metadata!.namespace!)]
      .filter((p) => p.metadata.namespace === set.metadata!.namespace);
    const match = (p: Pod) => matchesSelector(selector, p.metadata!.labels ?? {}) && isMemberOf(set, p);
    const claimed: Pod[] = [];
    const errors: unknown[] = [];
    let adoptCheck: Promise<Error | undefined> | undefined;
    const setDeleting = !!set.metadata!.deletionTimestamp;
    await Promise.all(candidates.map(async (pod) => {
      const ref = controllerRef(pod);
      try {
        if (ref) {
          if (ref.uid !== uid) return;
          if (match(pod)) { claimed.push(pod); return; }
          if (setDeleting) return;
          await this.patchPod(set, pod, { metadata: { ownerReferences: [{ $patch: 'delete', uid }], uid: pod.metadata.uid } });
          return;
        }
        if (setDeleting || !match(pod) || pod.metadata.deletionTimestamp) return;
        adoptCheck ??= this.canAdopt(set);
        const cannot = await adoptCheck;
        if (cannot) throw new Error(`can't adopt Pod ${keyOf(pod)} (${pod.metadata.uid}): ${cannot.message}`);
        claimed.push(await this.patchPod(set, pod, { metadata: { ownerReferences: [newControllerRef(set, statefulSetKind)], uid: pod.metadata.uid } }));
      } catch (e) {
        if (!isNotFound(e)) errors.push(e);
      }
    }));
    const err = aggregate(errors);
    if (err) throw err;
    return claimed;
  }

  private async patchPod(set: StatefulSet, pod: Pod, patch: unknown): Promise<Pod> {
    const patched = await this.ctx.clients.pods.patch(pod.metadata!.namespace, pod.metadata!.name!, patch, 'strategic');
    this.pending.wrote(keyOf(set), 'pods', patched);
    return patched;
  }
}

/** LabelSelectorAsSelector of the set's selector, or undefined when invalid. */
function parseSelector(set: StatefulSet): Selector | undefined {
  try {
    return selectorFromLabelSelector(set.spec?.selector);
  } catch {
    return undefined;
  }
}
