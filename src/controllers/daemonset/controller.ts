/**
 * The DaemonSet controller (upstream pkg/controller/daemon/daemon_controller.go
 * and update.go). Event handlers only find the owning DaemonSet, count
 * expectations down and enqueue its key; a sync reads everything again from
 * the caches:
 *  1. Gone: forget its expectations. Selecting everything: a SelectingAll
 *     warning and nothing else. Being deleted: nothing (the GC owns it).
 *  2. Construct the history; the current revision's hash labels new pods.
 *  3. Expectations not met: only write status (observedGeneration kept).
 *  4. manage: create pods on nodes that should run one, delete pods that
 *     should go (one writer, slow-start batches, burst cap, expectations).
 *  5. RollingUpdate, if the expectations are met: replace old pods within
 *     maxUnavailable / maxSurge. OnDelete: nothing.
 *  6. Clean up old revisions; write status when it changed.
 */
import type { Controller, ControllerContext, ControllerFactory } from '../types.js';
import type { Informer, EventRecorder } from '../../client/index.js';
import { WorkQueue, runWorkers, metaKey, isNotFound, isConflict, isNamespaceTerminating } from '../../client/index.js';
import { selectorFromLabelSelector, isEverything, matchesSelector } from '../../api/labels.js';
import type { Selector } from '../../api/labels.js';
import type { Logger } from '../../util/log.js';
import { controllerRef, podIsReady, podIsTerminal } from '../../api/pods.js';
import { ControllerExpectations, Backoff, expectationsTimeoutMs } from './expectations.js';
import { claim, recheckDaemonSet } from './claim.js';
import { constructHistory, cleanupHistory } from './revisions.js';
import type { HistoryDeps } from './revisions.js';
import { groupByNode, planManage, planRollingUpdate, computeStatus } from './plan.js';
import type { NodeToDaemonPods, PlanContext, DaemonSetCounts } from './plan.js';
import { nodeShouldRunDaemonPod, sameDaemonPodInputs } from './predicates.js';
import { controllerRevisionHashLabel, createPodTemplate, isDeleting, newDaemonPod, targetNodeName, templateGeneration } from './util.js';
import type { ControllerRevision, DaemonSet, DaemonSetStatus } from 'kubernetes-types/apps/v1.js';
import type { Writable } from '../../api/writable.js';
import type { Node, Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { sameControllerRef, sameLabels, type Owned } from '../controller-ref.js';
import { withMembers } from '../../util/with-members.js';

/** Upstream BurstReplicas: at most this many creates (and deletes) per sync. */
export const burstReplicas = 250;
/** controller.SlowStartInitialBatchSize. */
const slowStartInitialBatchSize = 1;

export interface DaemonSetControllerOptions {
  burstReplicas?: number;
  expectationsTimeoutMs?: number;
  /** Failed-pod back-off per node: initial and maximum (upstream 1 s and 15 min). */
  failedPodBackoffInitialMs?: number;
  failedPodBackoffMaxMs?: number;
}

const byController = 'daemonset:controllerUID';
const orphansByNamespace = 'daemonset:orphans';
const indexByController = (obj: Owned): string[] => { const r = controllerRef(obj); return r && r.kind === 'DaemonSet' ? [r.uid] : []; };
const indexOrphans = (obj: Owned): string[] => (controllerRef(obj) ? [] : [obj.metadata?.namespace ?? '']);
/** The DaemonSet as an event's involved object; withMembers, as the informer's copies may lack both (util/with-members.ts). */
const withKind = (ds: DaemonSet) => withMembers(ds, { apiVersion: 'apps/v1', kind: 'DaemonSet' });

export class DaemonSetsController implements Controller {
  readonly name = 'daemonset';
  private readonly queue = new WorkQueue();
  readonly expectations: ControllerExpectations;
  private readonly backoff: Backoff;
  private readonly dsInformer: Informer;
  private readonly podInformer: Informer;
  private readonly nodeInformer: Informer;
  private readonly historyInformer: Informer;
  private readonly recorder: EventRecorder;
  private readonly logger: Logger;
  private readonly burst: number;
  private readonly scan: boolean;
  private gcTimer?: NodeJS.Timeout;

  constructor(private readonly ctx: ControllerContext, opts: DaemonSetControllerOptions = {}) {
    this.logger = ctx.logger.with('daemonset');
    this.recorder = ctx.recorder('daemonset-controller');
    this.burst = opts.burstReplicas ?? burstReplicas;
    this.expectations = new ControllerExpectations(ctx.clock, opts.expectationsTimeoutMs ?? expectationsTimeoutMs);
    this.backoff = new Backoff(ctx.clock, opts.failedPodBackoffInitialMs, opts.failedPodBackoffMaxMs);
    this.dsInformer = ctx.informers.informer('daemonsets');
    this.podInformer = ctx.informers.informer('pods');
    this.nodeInformer = ctx.informers.informer('nodes');
    this.historyInformer = ctx.informers.informer('controllerrevisions');
    // An index added to an informer that already holds objects would miss them: scan instead.
    this.scan = this.podInformer.size > 0 || this.podInformer.hasSynced() || this.historyInformer.size > 0 || this.historyInformer.hasSynced();
    if (!this.scan) {
      for (const inf of [this.podInformer, this.historyInformer]) {
        inf.addIndex(byController, indexByController);
        inf.addIndex(orphansByNamespace, indexOrphans);
      }
    }
    this.registerHandlers();
  }

  run(): void {
    void runWorkers(this.queue, this.ctx.config.workers, (key) => this.syncDaemonSet(key),
      (key, err) => (isConflict(err) ? this.logger.debug : this.logger.warn)('sync failed', { daemonset: key, err }));
    this.gcTimer = setInterval(() => this.backoff.gc(), 60_000);
    this.gcTimer.unref();
  }

  stop(): void {
    this.queue.shutDown();
    if (this.gcTimer) clearInterval(this.gcTimer);
  }

  enqueue(ds: DaemonSet): void { this.queue.add(metaKey(ds)); }
  private enqueueAfter(ds: DaemonSet, ms: number): void { this.queue.addAfter(metaKey(ds), ms); }

  // ---- event handlers: find the owner, count expectations, enqueue ----

  private registerHandlers(): void {
    this.dsInformer.addEventHandler({
      add: (ds: DaemonSet) => this.enqueue(ds),
      update: (old: DaemonSet, cur: DaemonSet) => {
        if (old.metadata!.uid !== cur.metadata!.uid) this.deleteDaemonSet(old);
        this.enqueue(cur);
      },
      delete: (ds: DaemonSet) => this.deleteDaemonSet(ds),
    });
    this.podInformer.addEventHandler({
      add: (pod: Pod) => this.addPod(pod),
      update: (old: Pod, cur: Pod) => this.updatePod(old, cur),
      delete: (pod: Pod) => this.deletePod(pod),
    });
    this.nodeInformer.addEventHandler({
      add: (node: Node) => { for (const ds of this.dsInformer.list() as DaemonSet[]) if (nodeShouldRunDaemonPod(node, ds).shouldRun) this.enqueue(ds); },
      update: (old: Node, cur: Node) => this.updateNode(old, cur),
    });
    this.historyInformer.addEventHandler({
      add: (h: ControllerRevision) => this.addHistory(h),
      update: (old: ControllerRevision, cur: ControllerRevision) => this.updateObject(old, cur),
      delete: (h: ControllerRevision) => this.deleteHistory(h),
    });
  }

  private deleteDaemonSet(ds: DaemonSet): void {
    const key = metaKey(ds);
    this.expectations.delete(key);
    this.queue.add(key);
  }

  /** resolveControllerRef: the DaemonSet a controller ref names, if its uid matches. */
  private resolveControllerRef(namespace: string, ref: OwnerReference | undefined): DaemonSet | undefined {
    if (ref?.kind !== 'DaemonSet') return undefined;
    const ds: DaemonSet | undefined = this.dsInformer.get(`${namespace}/${ref.name}`);
    return ds && ds.metadata!.uid === ref.uid ? ds : undefined;
  }

  /** DaemonSets in the object's namespace whose (non-empty) selector matches its labels. */
  private matchingDaemonSets(obj: Owned): DaemonSet[] {
    const out: DaemonSet[] = [];
    for (const ds of this.dsInformer.list() as DaemonSet[]) {
      if (ds.metadata!.namespace !== obj.metadata!.namespace) continue;
      const sel = safeSelector(ds);
      if (sel && !isEverything(sel) && matchesSelector(sel, obj.metadata!.labels)) out.push(ds);
    }
    return out;
  }

  /** Enqueue the owner of a controlled object, or every DaemonSet that might adopt an orphan. */
  private ownerOrMatching(obj: Owned, orphansToo: boolean): DaemonSet | undefined {
    const ref = controllerRef(obj);
    if (ref) {
      const ds = this.resolveControllerRef(obj.metadata!.namespace!, ref);
      if (ds) this.enqueue(ds);
      return ds;
    }
    if (orphansToo) for (const ds of this.matchingDaemonSets(obj)) this.enqueue(ds);
    return undefined;
  }

  private addPod(pod: Pod): void {
    if (isDeleting(pod)) { this.deletePod(pod); return; }
    const ds = this.ownerOrMatching(pod, true);
    if (ds) this.expectations.creationObserved(metaKey(ds));
  }

  private updatePod(old: Pod, cur: Pod): void {
    if (old.metadata!.resourceVersion === cur.metadata!.resourceVersion) return;
    if (isDeleting(cur)) { this.deletePod(cur); return; }
    const ds = this.updateObject(old, cur);
    const minReady = ds?.spec?.minReadySeconds ?? 0;
    if (ds && minReady > 0 && !podIsReady(old) && podIsReady(cur)) this.enqueueAfter(ds, minReady * 1000 + 1000);
  }

  /** updatePod/updateHistory: wake the old owner if the ref changed, then the current one, or adopters of a changed orphan. */
  private updateObject(old: Owned, cur: Owned): DaemonSet | undefined {
    const curRef = controllerRef(cur);
    const oldRef = controllerRef(old);
    const refChanged = !sameControllerRef(curRef, oldRef);
    if (refChanged && oldRef) {
      const prev = this.resolveControllerRef(old.metadata!.namespace!, oldRef);
      if (prev) this.enqueue(prev);
    }
    if (curRef) return this.ownerOrMatching(cur, false);
    const labelsChanged = !sameLabels(cur.metadata!.labels, old.metadata!.labels);
    if (labelsChanged || refChanged) this.ownerOrMatching(cur, true);
    return undefined;
  }

  private deletePod(pod: Pod): void {
    const ds = this.resolveControllerRef(pod.metadata!.namespace!, controllerRef(pod));
    if (!ds) return;
    this.expectations.deletionObserved(metaKey(ds));
    this.enqueue(ds);
  }

  /** addHistory: a controlled revision needs nothing (its owner wrote it); an orphan wakes its possible adopters. */
  private addHistory(h: ControllerRevision): void {
    if (isDeleting(h)) { this.deleteHistory(h); return; }
    if (!controllerRef(h)) this.ownerOrMatching(h, true);
  }

  private deleteHistory(h: ControllerRevision): void {
    const ds = this.resolveControllerRef(h.metadata!.namespace!, controllerRef(h));
    if (ds) this.enqueue(ds);
  }

  /**
   * updateNode: enqueue the DaemonSets whose shouldRun or shouldContinueRunning
   * changed. Those depend only on the node's name, labels and taints, so other
   * updates (heartbeats, conditions) are skipped at once.
   */
  private updateNode(old: Node, cur: Node): void {
    if (sameDaemonPodInputs(old, cur)) return;
    for (const ds of this.dsInformer.list() as DaemonSet[]) {
      const a = nodeShouldRunDaemonPod(old, ds);
      const b = nodeShouldRunDaemonPod(cur, ds);
      if (a.shouldRun !== b.shouldRun || a.shouldContinueRunning !== b.shouldContinueRunning) this.enqueue(ds);
    }
  }

  // ---- reading the caches ----

  /** getDaemonPods: the DaemonSet's pods, adopting matching orphans and releasing pods that no longer match. */
  private async claimPods(ds: DaemonSet): Promise<Pod[]> {
    const selector = safeSelector(ds);
    if (!selector) throw new Error(`invalid selector for daemon set ${ds.metadata!.namespace}/${ds.metadata!.name}`);
    return claim({
      ds, selector, client: this.ctx.clients.pods,
      ...this.candidates(this.podInformer, ds),
      recheck: recheckDaemonSet(this.ctx.clients.daemonsets, ds),
    });
  }

  private async claimRevisions(ds: DaemonSet): Promise<ControllerRevision[]> {
    const selector = safeSelector(ds);
    if (!selector) throw new Error(`invalid selector for daemon set ${ds.metadata!.namespace}/${ds.metadata!.name}`);
    return claim({
      ds, selector, client: this.ctx.clients.controllerrevisions,
      ...this.candidates(this.historyInformer, ds),
      recheck: recheckDaemonSet(this.ctx.clients.daemonsets, ds),
    });
  }

  /** Objects in the DaemonSet's namespace it controls, and orphans there. */
  private candidates<T extends Owned>(inf: Informer, ds: DaemonSet): { owned: T[]; orphans: T[] } {
    const ns = ds.metadata!.namespace;
    if (this.scan) {
      const all: T[] = inf.list().filter((o: T) => o.metadata!.namespace === ns);
      return { owned: all.filter((o) => indexByController(o)[0] === ds.metadata!.uid), orphans: all.filter((o) => !controllerRef(o)) };
    }
    return {
      owned: inf.byIndex(byController, ds.metadata!.uid!).filter((o: T) => o.metadata!.namespace === ns),
      orphans: inf.byIndex(orphansByNamespace, ns!),
    };
  }

  /** getNodesToDaemonPods: claimed pods by target node; deleted terminal pods only when asked. */
  private async nodesToDaemonPods(ds: DaemonSet, includeDeletedTerminal: boolean): Promise<NodeToDaemonPods> {
    const pods = (await this.claimPods(ds)).filter((p) => includeDeletedTerminal || !(podIsTerminal(p) && isDeleting(p)));
    return groupByNode(pods, targetNodeName);
  }

  private historyDeps(): HistoryDeps {
    return { clients: this.ctx.clients, claimRevisions: (ds) => this.claimRevisions(ds), claimPods: (ds) => this.claimPods(ds) };
  }

  private planContext(ds: DaemonSet, hash: string): PlanContext {
    const generation = ds.status?.observedGeneration ?? 0;
    return {
      ds, hash, now: this.ctx.clock.now(),
      failedPodBackoff: (node) => this.backoff.remaining(`${ds.metadata!.uid}/${generation}/${node}`),
    };
  }

  // ---- the sync ----

  async syncDaemonSet(key: string): Promise<void> {
    const ds: DaemonSet | undefined = this.dsInformer.get(key);
    if (!ds) { this.expectations.delete(key); return; } // 1
    const selector = ds.spec?.selector;
    if (!selector || (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0)) {
      this.recorder.event(withKind(ds), 'Warning', 'SelectingAll', 'This daemon set is selecting all pods. A non-empty selector is required.');
      return;
    }
    if (isDeleting(ds)) return;
    const nodes: Node[] = this.nodeInformer.list();
    const { cur, old } = await constructHistory(this.historyDeps(), ds); // 2
    const hash: string = cur.metadata!.labels?.[controllerRevisionHashLabel] ?? '';
    if (!this.expectations.satisfied(key)) return this.updateStatus(ds, nodes, hash, false); // 3
    let err: unknown;
    try {
      await this.updateDaemonSet(ds, nodes, hash, key, old);
    } catch (e) {
      err = e;
    }
    try {
      await this.updateStatus(ds, nodes, hash, true);
    } catch (statusErr) {
      if (!err) throw statusErr;
      this.logger.error('failed to update status', { daemonset: key, err: statusErr });
    }
    if (err) throw err;
  }

  private async updateDaemonSet(ds: DaemonSet, nodes: Node[], hash: string, key: string, old: ControllerRevision[]): Promise<void> {
    await this.manage(ds, nodes, hash); // 4
    if (this.expectations.satisfied(key) && ds.spec?.updateStrategy?.type === 'RollingUpdate') { // 5
      const plan = planRollingUpdate(nodes, await this.nodesToDaemonPods(ds, false), this.planContext(ds, hash));
      if ('error' in plan) throw new Error(plan.error);
      await this.syncNodes(ds, plan.podsToDelete, plan.nodesToCreate, hash);
    }
    const limit = ds.spec?.revisionHistoryLimit ?? 10;
    if (old.length > limit) { // 6
      const pods = [...(await this.nodesToDaemonPods(ds, true)).values()].flat();
      await cleanupHistory(this.historyDeps(), ds, old, pods);
    }
  }

  private async manage(ds: DaemonSet, nodes: Node[], hash: string): Promise<void> {
    const ctx = this.planContext(ds, hash);
    const plan = planManage(nodes, await this.nodesToDaemonPods(ds, false), ctx);
    for (const e of plan.events) this.recorder.event(withKind(ds), e.type, e.reason, e.message);
    const generation = ds.status?.observedGeneration ?? 0;
    for (const node of plan.backoffNodes) this.backoff.next(`${ds.metadata!.uid}/${generation}/${node}`);
    if (plan.requeueAfterMs !== undefined) this.enqueueAfter(ds, plan.requeueAfterMs);
    await this.syncNodes(ds, plan.podsToDelete, plan.nodesNeedingDaemonPods, hash);
  }

  /**
   * syncNodes, the one writer: expectations are set before the first await;
   * creates go in slow-start batches (1, 2, 4, ...) and stop after a batch
   * with a failure (the skipped creates are no longer expected); at most
   * `burst` creates and `burst` deletes per sync.
   */
  async syncNodes(ds: DaemonSet, podsToDelete: string[], nodesNeedingDaemonPods: string[], hash: string): Promise<void> {
    const key = metaKey(ds);
    const createDiff = Math.min(nodesNeedingDaemonPods.length, this.burst);
    const deleteDiff = Math.min(podsToDelete.length, this.burst);
    this.expectations.set(key, createDiff, deleteDiff);
    const errors: unknown[] = [];
    const template = createPodTemplate(ds.spec!.template, templateGeneration(ds) ?? ds.metadata!.generation, hash);
    let batch = Math.min(createDiff, slowStartInitialBatchSize);
    for (let pos = 0; pos < createDiff; pos += batch, batch = Math.min(2 * batch, createDiff - pos)) {
      const before = errors.length;
      await Promise.all(nodesNeedingDaemonPods.slice(pos, pos + batch).map((node) => this.createPod(ds, template, node, key, errors)));
      const skipped = createDiff - (pos + batch);
      if (errors.length > before && skipped > 0) {
        this.expectations.lower(key, skipped, 0);
        break;
      }
    }
    await Promise.all(podsToDelete.slice(0, deleteDiff).map((name) => this.deletePodNamed(ds, name, key, errors)));
    if (errors.length) throw errors[0];
  }

  private async createPod(ds: DaemonSet, template: PodTemplateSpec, node: string, key: string, errors: unknown[]): Promise<void> {
    try {
      const pod = newDaemonPod(ds, template, node);
      if (Object.keys(pod.metadata!.labels!).length === 0) throw new Error('unable to create pods, no labels');
      // Through the client's undici pool, as the scheduler's bindings: a sync's batches are bursts
      // of up to 128 creates, at well under half the client CPU of Node's http client per request.
      // The answer (the whole created pod) is decoded only to name it in SuccessfulCreate; once the
      // recorder's spam filter would drop that event (25 per DaemonSet), it is not decoded at all.
      const involved = withKind(ds);
      const named = this.recorder.wouldRecord(involved);
      const created = await this.ctx.clients.pods.create(ds.metadata!.namespace, pod, { light: true, noResult: !named });
      if (created) this.recorder.event(involved, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
    } catch (e) {
      if (isNamespaceTerminating(e)) return; // every later create fails the same way; upstream neither records nor lowers
      this.recorder.event(withKind(ds), 'Warning', 'FailedCreate', `Error creating: ${(e as Error).message}`);
      this.expectations.creationObserved(key);
      errors.push(e);
    }
  }

  private async deletePodNamed(ds: DaemonSet, name: string, key: string, errors: unknown[]): Promise<void> {
    try {
      await this.ctx.clients.pods.delete(ds.metadata!.namespace, name);
      this.recorder.event(withKind(ds), 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
    } catch (e) {
      this.expectations.deletionObserved(key);
      if (isNotFound(e)) return;
      this.recorder.event(withKind(ds), 'Warning', 'FailedDelete', `Error deleting: ${(e as Error).message}`);
      errors.push(e);
    }
  }

  // ---- status ----

  private async updateStatus(ds: DaemonSet, nodes: Node[], hash: string, updateObservedGen: boolean): Promise<void> {
    const counts = computeStatus(nodes, await this.nodesToDaemonPods(ds, false), this.planContext(ds, hash));
    await this.storeStatus(ds, counts, updateObservedGen);
    const minReady = ds.spec?.minReadySeconds ?? 0;
    if (minReady > 0 && counts.numberReady !== counts.numberAvailable) this.enqueueAfter(ds, minReady * 1000);
  }

  /**
   * storeDaemonSetStatus: write /status only when a number changed or the generation is unobserved;
   * retry once on a fresh read.
   *
   * From the informer's copy as it is now, not the sync's (read before its creates): the sync that
   * follows a status write usually began before that write's watch event came, so its copy holds
   * the resourceVersion before the write, and a PUT from it met a 409, then a GET and a second PUT
   * (17 of 40 status writes in a 5,000-node rollout, each two more round trips between one burst of
   * creates and the next). The informer's copy is the one upstream's retry would GET, the counts and
   * observedGeneration written are this sync's either way, and when that copy already shows them
   * (another sync wrote them) there is nothing to write.
   */
  async storeStatus(ds: DaemonSet, counts: DaemonSetCounts, updateObservedGen: boolean): Promise<void> {
    const latest = this.newestCopy(ds);
    const st: Partial<DaemonSetStatus> = latest.status ?? {};
    const same = (Object.keys(counts) as (keyof DaemonSetCounts)[]).every((k) => (st[k] ?? 0) === counts[k]);
    if (same && (st.observedGeneration ?? 0) >= (ds.metadata!.generation ?? 0)) return;
    let toUpdate: Writable<DaemonSet> = structuredClone(latest);
    for (let i = 0; ; i++) {
      toUpdate.status = { ...(toUpdate.status ?? {}), ...counts };
      if (updateObservedGen) toUpdate.status.observedGeneration = ds.metadata!.generation;
      try {
        await this.ctx.clients.daemonsets.updateStatus(withKind(toUpdate));
        return;
      } catch (e) {
        if (i >= 1) throw e;
        toUpdate = await this.ctx.clients.daemonsets.get(ds.metadata!.namespace, ds.metadata!.name!);
      }
    }
  }

  /** The informer's copy of the same DaemonSet (never older than `ds`, which it handed out), else `ds`. */
  private newestCopy(ds: DaemonSet): DaemonSet {
    const cur: DaemonSet | undefined = this.dsInformer.get(metaKey(ds));
    return cur?.metadata?.uid === ds.metadata?.uid ? cur! : ds;
  }
}

function safeSelector(ds: DaemonSet): Selector | undefined {
  try {
    return selectorFromLabelSelector(ds.spec?.selector);
  } catch {
    return undefined;
  }
}


export const daemonSetController: ControllerFactory = (ctx) => new DaemonSetsController(ctx);
