/**
 * A shared informer (client-go's reflector + store): list, then watch from the
 * list's resourceVersion, keeping a local cache and calling handlers for each
 * change. A closed stream resumes from the last seen resourceVersion; 410
 * Expired relists and reconciles the cache (synthesizing deletes for objects
 * that vanished meanwhile). Handlers must not mutate the objects they get.
 */
import type { ResourceClient, WatchHandle } from './resource.js';
import { ApiError } from './rest.js';
import type { Logger } from '../util/log.js';
import { isCold } from './cold-objects.js';
import { ColdSweep, type ColdOptions } from './cold-sweep.js';

export interface EventHandlers {
  add?(obj: any): void;
  update?(oldObj: any, newObj: any): void;
  delete?(obj: any): void;
}

export const metaKey = (obj: any) => (obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata.name);

export interface InformerOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  logger?: Logger;
  /**
   * Applied to every object before it enters the cache and reaches the handlers (client-go's
   * SharedInformer.SetTransform): kube-controller-manager and kube-scheduler drop managedFields
   * this way, which no control loop reads. It may change and return the object it is given.
   * Its context says which resource, what the cache held under the object's key (`prev`), and
   * for a new object the last one added (`like`): a transform sharing parts of alike objects
   * (util/shared-objects.ts) tries those first.
   */
  transform?: (obj: any, ctx: TransformContext) => any;
  /**
   * Watch events are decoded without object.metadata.managedFields (resource.ts WatchDecodeOpts):
   * for informers whose transform drops them, the same objects for less parsing. Lists are
   * decoded whole (the transform still strips them).
   */
  skipManagedFields?: boolean;
  /**
   * Whether (and after how long untouched) the resource's objects are kept cold, compressed
   * (cold-objects.ts, cold-sweep.ts); undefined: always decoded. Readers see no difference: get,
   * byIndex and list decode a cold object (get and byIndex keep it decoded again for a while).
   */
  cold?: (resource: string) => ColdOptions | undefined;
}

export interface TransformContext { resource: string; prev?: unknown; like?: unknown }

/**
 * The transform kube-controller-manager and kube-scheduler set on their informers (upstream's
 * TransformStripManagedFields). The field is set to undefined rather than deleted: a delete of a
 * property other than the last one turns the object into a slow dictionary (V8), and metadata
 * is read on every event (its name, namespace, resourceVersion). JSON.stringify leaves an
 * undefined field out, so an update sent from the object is the same as without the field.
 */
export function stripManagedFields(obj: any): any {
  if (obj?.metadata?.managedFields !== undefined) obj.metadata.managedFields = undefined;
  return obj;
}

/**
 * The list+watch loop and the cache one or more Informer handles read (client-go's
 * sharedIndexInformer behind the handles its SharedInformerFactory gives out).
 */
export class InformerCore {
  /** The objects by key; an entry may be cold (cold-objects.ts): read them through get, byIndex, list. */
  private readonly cache = new Map<string, any>();
  readonly handlers: EventHandlers[] = [];
  private readonly indexes = new Map<string, { fn: (obj: any) => string[]; map: Map<string, Set<string>> }>();
  private rv = '';
  private synced = false;
  private running = false;
  private stopped = false;
  private handle?: WatchHandle;
  private syncWaiters: (() => void)[] = [];
  private retryTimer?: NodeJS.Timeout;
  /** The last object added (not an update): what a transform compares a new object with first. */
  private lastAdded?: unknown;
  private readonly sweep?: ColdSweep;

  constructor(private readonly client: ResourceClient, private readonly opts: InformerOptions = {}) {
    const cold = opts.cold?.(client.gvr.resource);
    if (cold) this.sweep = new ColdSweep(this.cache, cold);
  }

  addEventHandler(h: EventHandlers): void {
    this.handlers.push(h);
    if (this.synced) for (const obj of this.cache.values()) h.add?.(isCold(obj) ? obj.decode() : obj);
  }

  get size(): number { return this.cache.size; }

  /** How many objects are cold now (tests, benchmarks). */
  coldCount(): number {
    let n = 0;
    for (const entry of this.cache.values()) if (isCold(entry)) n++;
    return n;
  }

  /**
   * The object under `key`. A cold one is decoded and kept decoded again (the transform applied
   * as to an added object) until the sweep finds it untouched once more: a controller that reads
   * an owner's pods by key or index at each sync decodes each once, not at every sync.
   */
  get(key: string): any | undefined {
    const entry = this.cache.get(key);
    if (!isCold(entry)) return entry;
    let obj = entry.decode();
    if (this.opts.transform) obj = this.opts.transform(obj, { resource: this.client.gvr.resource, like: this.lastAdded });
    this.cache.set(key, obj);
    this.sweep!.touch(key);
    return obj;
  }

  /** Every object; cold ones decoded for this list only (a periodic list of all must not warm them all). */
  list(): any[] {
    const out: any[] = [];
    for (const entry of this.cache.values()) out.push(isCold(entry) ? entry.decode() : entry);
    return out;
  }

  /** The values an index has objects under (client-go's ListIndexFuncValues). */
  indexValues(name: string): string[] {
    return [...(this.indexes.get(name)?.map.keys() ?? [])];
  }

  removeEventHandler(h: EventHandlers): void {
    const i = this.handlers.indexOf(h);
    if (i >= 0) this.handlers.splice(i, 1);
  }

  /**
   * Adds an index (e.g. pods by spec.nodeName). Added to a running informer it indexes what the
   * cache holds first (client-go's AddIndexers). A name already there is kept: the same name is the
   * same index (controllers sharing an informer name their indexes by what they compute).
   */
  addIndex(name: string, fn: (obj: any) => string[]): void {
    if (this.indexes.has(name)) return;
    const index = { fn, map: new Map<string, Set<string>>() };
    this.indexes.set(name, index);
    for (const [key, obj] of this.cache) indexInto(index, key, isCold(obj) ? obj.decode() : obj);
  }

  /**
   * The objects under `value` of index `name`; with `labels`, only those whose labels it accepts,
   * asked before a cold object is decoded (a Service's pods among its namespace's).
   */
  byIndex(name: string, value: string, labels?: (labels: Readonly<Record<string, string>> | undefined) => boolean): any[] {
    const keys = this.indexes.get(name)?.map.get(value);
    if (!keys) return [];
    const out: any[] = [];
    for (const k of keys) {
      if (labels) {
        const entry = this.cache.get(k);
        if (!labels(isCold(entry) ? entry.labels : entry?.metadata?.labels)) continue;
      }
      const o = this.get(k);
      if (o) out.push(o);
    }
    return out;
  }

  hasSynced(): boolean { return this.synced; }
  lastResourceVersion(): string { return this.rv; }

  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((r) => this.syncWaiters.push(r));
  }

  /** Starts the list and watch once; a second start (another handle's) is a no-op. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.sweep?.start();
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.sweep?.stop();
    this.handle?.close();
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }

  private async run(): Promise<void> {
    let needList = true;
    let backoff = 100;
    while (!this.stopped) {
      try {
        if (needList) { await this.relist(); needList = false; }
        let expired = false;
        this.handle = await this.client.watch(this.opts.namespace, {
          resourceVersion: this.rv, allowWatchBookmarks: true, labelSelector: this.opts.labelSelector,
          fieldSelector: this.opts.fieldSelector, timeoutSeconds: 300 + Math.floor(Math.random() * 300),
        }, (e) => {
          if (e.type === 'ERROR') { if (e.object?.code === 410) expired = true; this.handle?.close(); return; }
          this.apply(e.type, e.object);
        }, { skipManagedFields: this.opts.skipManagedFields });
        if (this.stopped) this.handle.close();
        await this.handle.done;
        backoff = 100;
        if (expired) needList = true;
      } catch (e) {
        if (this.stopped) return;
        if (e instanceof ApiError && e.code === 410) needList = true;
        this.opts.logger?.debug('informer retry', { resource: this.client.gvr.resource, err: e });
        await new Promise<void>((r) => { this.retryTimer = setTimeout(r, backoff); });
        backoff = Math.min(backoff * 2, 5000);
      }
    }
  }

  private async relist(): Promise<void> {
    const list = await this.client.list(this.opts.namespace, { labelSelector: this.opts.labelSelector, fieldSelector: this.opts.fieldSelector });
    const seen = new Set<string>();
    for (const obj of list.items) {
      seen.add(metaKey(obj));
      this.apply('ADDED', obj);
    }
    for (const [k, old] of [...this.cache]) if (!seen.has(k)) this.apply('DELETED', isCold(old) ? old.decode() : old);
    this.rv = list.metadata.resourceVersion;
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  private apply(type: string, obj: any): void {
    if (obj?.metadata?.resourceVersion) this.rv = obj.metadata.resourceVersion;
    if (type === 'BOOKMARK') return;
    const key = metaKey(obj);
    const entry = this.cache.get(key);
    const cold = isCold(entry);
    if (cold && type !== 'DELETED' && entry.resourceVersion === obj.metadata.resourceVersion) return;
    // A cold previous version is decoded for the handlers' update(old, new) and the indexes' unindex;
    // the transform compares the new object with the last one added instead (no decoded parts to share).
    const old = cold ? entry.decode() : entry;
    if (this.opts.transform) {
      const prev = cold ? undefined : old;
      obj = this.opts.transform(obj, { resource: this.client.gvr.resource, prev, like: prev === undefined ? this.lastAdded : undefined });
      if (!old && type !== 'DELETED') this.lastAdded = obj;
    }
    if (type === 'DELETED') {
      if (!old) return;
      this.cache.delete(key);
      this.unindex(key, old);
      for (const h of this.handlers) h.delete?.(obj);
      return;
    }
    if (old && old.metadata.resourceVersion === obj.metadata.resourceVersion) return;
    this.cache.set(key, obj);
    this.sweep?.touch(key);
    if (old) this.unindex(key, old);
    for (const index of this.indexes.values()) indexInto(index, key, obj);
    for (const h of this.handlers) {
      if (old) h.update?.(old, obj); else h.add?.(obj);
    }
  }

  private unindex(key: string, obj: any): void {
    for (const { fn, map } of this.indexes.values()) {
      for (const v of fn(obj)) {
        const s = map.get(v);
        if (s) { s.delete(key); if (!s.size) map.delete(v); }
      }
    }
  }
}

function indexInto(index: { fn: (obj: any) => string[]; map: Map<string, Set<string>> }, key: string, obj: any): void {
  for (const v of index.fn(obj)) {
    let s = index.map.get(v);
    if (!s) index.map.set(v, (s = new Set()));
    s.add(key);
  }
}

/**
 * A handle on an informer's cache and watch. `new Informer(client, opts)` makes its own;
 * `new Informer(core)` is one more handle on a running one (shared-informers.ts): the same
 * objects, one list and one watch however many handles read them. A handle remembers the
 * handlers added through it, so detach() takes exactly those off again (client-go's
 * RemoveEventHandler) when the component that added them stops.
 */
export class Informer {
  readonly core: InformerCore;
  private readonly own: EventHandlers[] = [];
  private held?: EventHandlers[];

  constructor(client: ResourceClient | InformerCore, opts: InformerOptions = {}) {
    this.core = client instanceof InformerCore ? client : new InformerCore(client, opts);
  }

  addEventHandler(h: EventHandlers): void {
    this.own.push(h);
    if (this.held) this.held.push(h); else this.core.addEventHandler(h);
  }

  /**
   * Handlers added from now on reach the informer at releaseHandlers(): a component's controllers
   * register theirs in their constructors, and on an informer already synced (another component's)
   * the replay of the cached objects (client-go's, asynchronous there) must not call a handler of a
   * controller still being built.
   */
  holdHandlers(): void { this.held ??= []; }

  releaseHandlers(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const h of held) this.core.addEventHandler(h);
  }

  /** Takes off the handlers added through this handle. */
  detach(): void {
    this.held = undefined;
    for (const h of this.own.splice(0)) this.core.removeEventHandler(h);
  }

  /** Adds an index (e.g. pods by spec.nodeName); see InformerCore.addIndex. */
  addIndex(name: string, fn: (obj: any) => string[]): void { this.core.addIndex(name, fn); }
  byIndex(name: string, value: string, labels?: (labels: Readonly<Record<string, string>> | undefined) => boolean): any[] {
    return this.core.byIndex(name, value, labels);
  }
  /** Indexes' values with objects under them (client-go's ListIndexFuncValues). */
  indexValues(name: string): string[] { return this.core.indexValues(name); }
  get(key: string): any | undefined { return this.core.get(key); }
  list(): any[] { return this.core.list(); }
  get size(): number { return this.core.size; }
  hasSynced(): boolean { return this.core.hasSynced(); }
  lastResourceVersion(): string { return this.core.lastResourceVersion(); }
  waitForSync(): Promise<void> { return this.core.waitForSync(); }
  start(): void { this.core.start(); }
  stop(): void { this.core.stop(); }
}
