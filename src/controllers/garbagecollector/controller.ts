/**
 * The garbage collector (upstream `pkg/controller/garbagecollector`,
 * "garbage-collector-controller"): deletes objects whose owners are all gone
 * (background cascading), removes references to an owner deleted with the
 * `orphan` finalizer and then the finalizer, and for an owner deleted with
 * `foregroundDeletion` deletes its dependents and removes the finalizer once
 * no dependent with blockOwnerDeletion remains.
 *
 * Informers feed the dependency graph (graph.ts); two work queues keyed by
 * uid drive attemptToDelete and attemptToOrphan. Every decision re-reads the
 * object and its owners from the API server (never trusting the cache for a
 * deletion): an owner is gone only when a GET by name returns 404 or another uid.
 */
import type { Unstructured } from '../../api/unstructured.js';
import type { EventRecorder, GVR, ResourceName } from '../../client/index.js';
import { Informer, ResourceClient, WorkQueue, isConflict, isNotFound } from '../../client/index.js';
import { discoverCustomResources, type DiscoveredResource } from './discovery.js';
import type { Controller, ControllerContext } from '../types.js';
import type { Logger } from '../../util/log.js';
import { FinalizerDeleteDependents, FinalizerOrphanDependents, Graph, identityKey } from './graph.js';
import type { Enqueue, GraphNode, ObjectIdentity, OwnerReference } from './graph.js';
import { decide, deleteOwnerRefsPatch, unblockOwnerRefsPatch } from './decide.js';
import type { ClassifiedReferences, DeletionPropagation } from './decide.js';
import { defaultMonitoredResources, kindOfResource, resolveKind } from './resources.js';

export const controllerName = 'garbage-collector-controller';

export interface GarbageCollectorOptions {
  /** The resources whose objects are tracked as dependents and owners. */
  resources: ResourceName[];
  /** --concurrent-gc-syncs (upstream 20). */
  workers: number;
  /** Size of the cache of owners known to be absent (upstream 500). */
  absentOwnerCacheSize: number;
  /** How often discovery is read again for custom resources to monitor (upstream's GC resync: 30 s). */
  discoveryPeriodMs: number;
}

export const defaultGarbageCollectorOptions: GarbageCollectorOptions = {
  resources: defaultMonitoredResources, workers: 20, absentOwnerCacheSize: 500, discoveryPeriodMs: 30_000,
};

type Outcome = 'forget' | 'requeue';

/** A lookup that will not succeed on retry. */
class PermanentError extends Error {}

export class GarbageCollectorController implements Controller {
  readonly name = controllerName;
  private readonly graph: Graph;
  private readonly attemptToDelete = new WorkQueue();
  private readonly attemptToOrphan = new WorkQueue();
  private readonly absentOwners = new Map<string, true>();
  private readonly clientCache = new Map<string, ResourceClient>();
  private readonly recorder: EventRecorder;
  private readonly logger: Logger;
  private readonly opts: GarbageCollectorOptions;
  /** Custom resources found by discovery, and the informers watching them (by group/resource). */
  private discovered: DiscoveredResource[] = [];
  private readonly dynamicInformers = new Map<string, Informer>();
  private discoveryTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly ctx: ControllerContext, opts: Partial<GarbageCollectorOptions> = {}) {
    this.opts = { ...defaultGarbageCollectorOptions, ...opts };
    this.logger = ctx.logger.with(controllerName);
    this.recorder = ctx.recorder(controllerName);
    this.graph = new Graph((apiVersion, kind) => this.resolve(apiVersion, kind)?.namespaced);
    for (const name of this.opts.resources) this.monitor(name);
  }

  private resolve(apiVersion: string, kind: string): GVR | undefined {
    return resolveKind(apiVersion, kind, this.discovered);
  }

  run(): void {
    this.logger.info('Starting controller', { controller: controllerName });
    void this.syncMonitors();
    for (let i = 0; i < this.opts.workers; i++) void this.loop(this.attemptToDelete, (uid) => this.attemptToDeleteWorker(uid));
    for (let i = 0; i < Math.max(1, Math.floor(this.opts.workers / 4)); i++) void this.loop(this.attemptToOrphan, (uid) => this.attemptToOrphanWorker(uid));
  }

  stop(): void {
    this.stopped = true;
    if (this.discoveryTimer) clearTimeout(this.discoveryTimer);
    for (const inf of this.dynamicInformers.values()) inf.stop();
    this.attemptToDelete.shutDown();
    this.attemptToOrphan.shutDown();
  }

  /**
   * Monitors the custom resources discovery lists now, and stops monitoring
   * those that went away (upstream's resyncMonitors), then again after the period.
   */
  private async syncMonitors(): Promise<void> {
    try {
      this.discovered = await discoverCustomResources(this.ctx.clients.rest);
      const wanted = new Map(this.discovered.map((d) => [`${d.group}/${d.resource}`, d]));
      for (const [key, inf] of this.dynamicInformers) {
        if (!wanted.has(key)) { inf.stop(); this.dynamicInformers.delete(key); }
      }
      for (const [key, d] of wanted) {
        if (this.dynamicInformers.has(key) || this.stopped) continue;
        const inf = new Informer(new ResourceClient(this.ctx.clients.rest, d), { logger: this.logger });
        this.observe(inf, `${d.group}/${d.version}`, d.kind);
        this.dynamicInformers.set(key, inf);
        inf.start();
      }
    } catch (e) {
      this.logger.warn('garbage collector discovery failed', { err: e });
    }
    if (!this.stopped) {
      this.discoveryTimer = setTimeout(() => void this.syncMonitors(), this.opts.discoveryPeriodMs);
      this.discoveryTimer.unref();
    }
  }

  /** For tests: whether the graph knows a uid. */
  graphHasUID(uid: string): boolean { return !!this.graph.get(uid); }

  private monitor(name: ResourceName): void {
    const { apiVersion, kind } = kindOfResource(name);
    this.observe(this.ctx.informers.informer(name), apiVersion, kind);
  }

  /** Feeds an informer's objects (of one apiVersion and kind) into the dependency graph. */
  private observe(informer: Informer, apiVersion: string, kind: string): void {
    const identity = (o: Unstructured): ObjectIdentity => ({ apiVersion, kind, name: o.metadata!.name!, namespace: o.metadata!.namespace ?? '', uid: o.metadata!.uid! });
    informer.addEventHandler({
      add: (o) => this.apply(this.graph.observe(identity(o), o)),
      update: (old, o) => this.apply(this.graph.observe(identity(o), o, old)),
      delete: (o) => this.apply(this.graph.remove(identity(o), false)),
    });
  }

  private apply(e: Enqueue): void {
    for (const id of e.absent) this.addAbsent(id);
    for (const n of e.attemptToDelete) this.attemptToDelete.add(n.uid);
    for (const n of e.attemptToOrphan) this.attemptToOrphan.add(n.uid);
    for (const { dependent, owner } of e.invalidNamespaceRefs) {
      const d = dependent.identity;
      const ref = { apiVersion: d.apiVersion, kind: d.kind, metadata: { name: d.name, namespace: d.namespace, uid: d.uid } };
      this.recorder.event(ref, 'Warning', 'OwnerRefInvalidNamespace',
        `ownerRef [${owner.apiVersion}/${owner.kind}, namespace: ${d.namespace}, name: ${owner.name}, uid: ${owner.uid}] does not exist in namespace "${d.namespace}"`);
    }
  }

  private async loop(queue: WorkQueue, work: (uid: string) => Promise<Outcome>): Promise<void> {
    for (;;) {
      const uid = await queue.get();
      if (uid === undefined) return;
      let outcome: Outcome = 'requeue';
      try { outcome = await work(uid); } catch (e) { this.logger.warn('error syncing item', { uid, err: e }); }
      if (outcome === 'forget') queue.forget(uid); else queue.addRateLimited(uid);
      queue.done(uid);
    }
  }

  // ---- attemptToDelete ----

  private async attemptToDeleteWorker(uid: string): Promise<Outcome> {
    const n = this.graph.get(uid);
    if (!n) return 'forget';
    try {
      if (await this.attemptToDeleteItem(n) === 'virtualDeleted') return 'forget';
    } catch (e) {
      if (e instanceof PermanentError) return 'forget';
      this.logger.warn('error syncing item', { item: identityKey(n.identity), err: e });
      return 'requeue';
    }
    // A virtual node for an object added and removed while the watch was away would otherwise stay.
    return n.observed ? 'forget' : 'requeue';
  }

  private async attemptToDeleteItem(item: GraphNode): Promise<'virtualDeleted' | void> {
    if (item.beingDeleted && !item.deletingDependents) return;
    const latest = await this.getObject(item.identity);
    if (!latest || latest.metadata.uid !== item.uid) return this.virtualDelete(item.identity);
    if (item.deletingDependents) return this.processDeletingDependentsItem(item);
    const ownerReferences: OwnerReference[] = latest.metadata.ownerReferences ?? [];
    if (!ownerReferences.length) return;
    const refs = await this.classifyReferences(item, ownerReferences);
    const deps = [...item.dependents];
    const d = decide({
      ownerReferences, finalizers: latest.metadata.finalizers ?? [], hasDependents: deps.length > 0,
      dependentDeletingDependents: deps.some((x) => x.deletingDependents),
    }, refs);
    switch (d.action) {
      case 'none': return;
      case 'removeOwnerReferences':
        this.logger.debug('remove dangling references and waiting references for item', { item: identityKey(item.identity), uids: d.uids });
        if (!await this.patch(item.identity, deleteOwnerRefsPatch(item.uid, d.uids))) return this.virtualDelete(item.identity);
        return;
      case 'delete': {
        if (d.unblockFirst) {
          const p = unblockOwnerRefsPatch(item.uid, ownerReferences);
          if (p && !await this.patch(item.identity, p)) return this.virtualDelete(item.identity);
        }
        this.logger.debug('Deleting item', { item: identityKey(item.identity), propagationPolicy: d.policy });
        if (!await this.deleteObject(item.identity, latest.metadata.resourceVersion, ownerReferences, d.policy)) return this.virtualDelete(item.identity);
      }
    }
  }

  /** The owner is deleting its dependents: done when none blocks it, else push the blocking ones. */
  private async processDeletingDependentsItem(item: GraphNode): Promise<void> {
    const blocking = item.blockingDependents();
    if (!blocking.length) {
      this.logger.debug('remove DeleteDependents finalizer for item', { item: identityKey(item.identity) });
      await this.removeFinalizer(item.identity, FinalizerDeleteDependents);
      return;
    }
    for (const dep of blocking) if (!dep.deletingDependents) this.attemptToDelete.add(dep.uid);
  }

  private async classifyReferences(item: GraphNode, refs: readonly OwnerReference[]): Promise<ClassifiedReferences> {
    const out: ClassifiedReferences = { solid: [], dangling: [], waiting: [] };
    for (const ref of refs) {
      const owner = await this.lookUpOwner(ref, item);
      if (!owner) out.dangling.push(ref);
      else if (owner.metadata!.deletionTimestamp && (owner.metadata!.finalizers ?? []).includes(FinalizerDeleteDependents)) out.waiting.push(ref);
      else out.solid.push(ref);
    }
    return out;
  }

  /** isDangling: the live owner, or undefined when it is gone (404 or another uid). */
  private async lookUpOwner(ref: OwnerReference, item: GraphNode): Promise<Unstructured | undefined> {
    const coords = { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid };
    if (this.hasAbsent({ ...coords, namespace: '' }) || this.hasAbsent({ ...coords, namespace: item.identity.namespace })) return undefined;
    const gvr = this.resolve(ref.apiVersion, ref.kind);
    if (!gvr) throw new Error(`unable to get REST mapping for ${ref.apiVersion}/${ref.kind}`);
    if (!item.identity.namespace && gvr.namespaced) {
      this.logger.info('item is cluster-scoped, but refers to a namespaced owner', { item: identityKey(item.identity), owner: ref.name });
      throw new PermanentError('cluster-scoped objects cannot refer to namespaced owners');
    }
    const key = { ...coords, namespace: gvr.namespaced ? item.identity.namespace : '' };
    let owner: Unstructured;
    try {
      owner = await this.client(ref.apiVersion, ref.kind).get(key.namespace || undefined, ref.name);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      this.addAbsent(key);
      return undefined;
    }
    if (owner.metadata!.uid !== ref.uid) { this.addAbsent(key); return undefined; }
    return owner;
  }

  // ---- attemptToOrphan ----

  private async attemptToOrphanWorker(uid: string): Promise<Outcome> {
    const owner = this.graph.get(uid);
    if (!owner) return 'forget';
    const results = await Promise.allSettled([...owner.dependents].map((d) => this.patch(d.identity, deleteOwnerRefsPatch(d.uid, [uid]))));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) {
      this.logger.warn('orphanDependents failed', { owner: identityKey(owner.identity), err: (failed as PromiseRejectedResult).reason });
      return 'requeue';
    }
    await this.removeFinalizer(owner.identity, FinalizerOrphanDependents);
    return 'forget';
  }

  // ---- API ----

  private client(apiVersion: string, kind: string): ResourceClient {
    const gvr = this.resolve(apiVersion, kind);
    if (!gvr) throw new Error(`unable to get REST mapping for ${apiVersion}/${kind}`);
    const key = `${gvr.group}/${gvr.resource}`;
    let c = this.clientCache.get(key);
    if (!c) { c = new ResourceClient(this.ctx.clients.rest, gvr); this.clientCache.set(key, c); }
    return c;
  }

  private ns(id: ObjectIdentity): string | undefined {
    return this.resolve(id.apiVersion, id.kind)?.namespaced ? id.namespace : undefined;
  }

  /** The live object, or undefined when not found. */
  private async getObject(id: ObjectIdentity): Promise<any | undefined> {
    try {
      return await this.client(id.apiVersion, id.kind).get(this.ns(id), id.name);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /** A strategic merge patch; false when the object is gone. */
  private async patch(id: ObjectIdentity, body: unknown): Promise<boolean> {
    try {
      await this.client(id.apiVersion, id.kind).patch(this.ns(id), id.name, body, 'strategic');
      return true;
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
  }

  /**
   * DELETE with uid and resourceVersion preconditions; when only the
   * resourceVersion moved on and the ownerReferences are unchanged, retried
   * with the uid alone. False when the object is gone.
   */
  private async deleteObject(id: ObjectIdentity, resourceVersion: string, owners: readonly OwnerReference[], policy: DeletionPropagation): Promise<boolean> {
    const client = this.client(id.apiVersion, id.kind);
    const ns = this.ns(id);
    const del = (rv?: string) => client.delete(ns, id.name, { propagationPolicy: policy, preconditions: { uid: id.uid, ...(rv ? { resourceVersion: rv } : {}) } });
    try {
      await del(resourceVersion);
      return true;
    } catch (e) {
      if (isNotFound(e)) return false;
      if (!isConflict(e) || !resourceVersion) throw e;
      const live = await this.getObject(id);
      if (!live || live.metadata.uid !== id.uid) return false;
      if (JSON.stringify(live.metadata.ownerReferences ?? []) !== JSON.stringify(owners)) throw e;
      try {
        await del();
        return true;
      } catch (e2) {
        if (isNotFound(e2)) return false;
        throw e2;
      }
    }
  }

  /** Removes one finalizer with a merge patch guarded by resourceVersion, retrying conflicts. */
  private async removeFinalizer(id: ObjectIdentity, finalizer: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const obj = await this.getObject(id);
      if (!obj) return;
      const finalizers: string[] = obj.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return;
      const rest = finalizers.filter((f) => f !== finalizer);
      try {
        await this.client(id.apiVersion, id.kind).patch(this.ns(id), id.name,
          { metadata: { resourceVersion: obj.metadata.resourceVersion, finalizers: rest.length ? rest : null } }, 'merge');
        return;
      } catch (e) {
        if (isNotFound(e)) return;
        if (!isConflict(e) || attempt >= 4) throw e;
      }
    }
  }

  private virtualDelete(id: ObjectIdentity): 'virtualDeleted' {
    this.apply(this.graph.remove(id, true));
    return 'virtualDeleted';
  }

  private hasAbsent(id: ObjectIdentity): boolean { return this.absentOwners.has(identityKey(id)); }

  private addAbsent(id: ObjectIdentity): void {
    const k = identityKey(id);
    this.absentOwners.delete(k);
    this.absentOwners.set(k, true);
    if (this.absentOwners.size > this.opts.absentOwnerCacheSize) this.absentOwners.delete(this.absentOwners.keys().next().value!);
  }
}
