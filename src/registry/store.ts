/**
 * The generic store: the create/get/list/update/delete/watch flow written once
 * for every kind (upstream's genericregistry.Store). Kinds differ only through
 * their Strategy. resourceVersion is the storage revision, set on every read.
 */
import type { Backend, KeyValue, WatchEvent, WriteResult } from '../storage/backend.js';
import { CompactedError } from '../storage/backend.js';
import type { ResourceInfo } from '../api/resources.js';
import { apiVersionOf, kindKey } from '../api/resources.js';
import { printerFor, type KindPrinter } from './printers/index.js';
import { resetFields, updateManagedFields } from '../api/managedfields/index.js';
import {
  alreadyExists, badRequest, conflict, gone, invalidObject, maxStoredRequestBytes, notFound, requestTimeout, storageRequestTooLarge, StatusError, GroupResource,
} from '../api/status.js';
import { required } from '../api/field-errors.js';
import type { Clock } from '../util/clock.js';
import { rfc3339 } from '../util/clock.js';
import { withMembers } from '../util/with-members.js';
import type { Strategy } from './strategy.js';
import { defaultsAsTheKind } from './strategies/generic.js';
import type { DeleteOptions, ListOptions, WatchEventOut, WatchOptions } from './types.js';
import { listPrefix, objectKey } from './keys.js';
import { clone, generateName, jsonEqual, newUID } from './meta.js';
import { compileSelection, Selection } from './selection.js';
import { lastMember, withResourceVersion, withResourceVersionLast } from './stored-json.js';
import { inStoredOrder } from './subresource-order.js';
import { KeyTurnAbandoned, KeyTurns, signalOf, type RequestSignal } from './key-turns.js';
import type { RequestContext } from './request-context.js';
import { defaultFreshnessWaitMs, waitUntilFresh } from './fresh.js';
import { parseResourceVersion } from '../api/list-options.js';
import { decodeContinue, encodeContinue } from './continue-token.js';
import type { CacheSource, WatchCache } from './watch-cache/cache.js';
import { cachedListMode } from './watch-cache/list-mode.js';
import { hasRenderedJSON, objectJSON, seedRenderedJSON } from './watch-cache/rendered-json.js';
import { tooLargeResourceVersion } from '../api/list-options.js';
import { dropOmittedZeros } from '../api/protobuf/omitempty.js';
import { fillGoZeroValues } from '../api/go-zero-values.js';
import type { Unstructured } from '../api/unstructured.js';
import type { Writable } from '../api/writable.js';
import type { ManagedFieldsEntry, ObjectMeta } from 'kubernetes-types/meta/v1.js';

/** The top-level fields a status write takes from its body (generic.ts prepareForStatusUpdate). */
const statusWriteKeeps: ReadonlySet<string> = new Set(['apiVersion', 'kind', 'metadata', 'status']);
/** Subresources whose writes keep all but their own part of the object as stored (the strategy's prepareForStatusUpdate). */
const ownSubresourceWrites: ReadonlySet<string> = new Set(['status', 'approval', 'ephemeralcontainers']);

/**
 * Hooks the apiserver plugs in: admission, namespace lifecycle. Each gets the write's request
 * context (undefined for the server's own writes) as its last argument.
 */
export interface StoreHooks {
  /** Mutating then validating admission; may throw a StatusError. */
  admit?(op: 'create' | 'update', info: ResourceInfo, obj: any, old?: any, ctx?: RequestContext): Promise<void> | void;
  /**
   * Validating admission (ResourceQuota), after the object passed validation and just before
   * it is written; may throw a StatusError. A dry run is checked, never charged.
   */
  validate?(op: 'create' | 'update', info: ResourceInfo, obj: any, old: any | undefined, opts: { dryRun: boolean; subresource?: string }, ctx?: RequestContext): Promise<void> | void;
  /** Sends a valid write's warnings (the strategy's) to its client: Warning headers of the response. */
  warn?(texts: readonly string[], ctx: RequestContext): void;
  /** Admission of a DELETE (NodeRestriction), given the object as stored; may throw a StatusError. */
  admitDelete?(info: ResourceInfo, obj: any, ctx?: RequestContext): Promise<void> | void;
  /** Throws when objects may not be created in this namespace (absent or terminating). */
  checkNamespace?(namespace: string, gr: GroupResource, name: string): Promise<void> | void;
}

export interface StoreDeps {
  backend: Backend;
  clock: Clock;
  hooks?: StoreHooks;
  /** How long a read for a resourceVersion the store has not reached waits for it (upstream: 3 s). */
  freshnessWaitMs?: number;
  /** metadata.generateName's names (meta.ts's generateName, upstream's SimpleNameGenerator, unless a test picks them). */
  generateName?: (base: string) => string;
}

/** Upstream's maxNameGenerationCreateAttempts (RetryGenerateName, GA in 1.32): a create with generateName tries 8 names. */
export const nameGenerationAttempts = 8;

/**
 * The version a resource is stored in when it is not the one it is served
 * in (upstream's storage version and cohabiting resources): its keys are
 * `info`'s, objects are converted on every write and read.
 */
export interface StorageVersion {
  info: ResourceInfo;
  toStorage(obj: any): any;
  fromStorage(obj: any): any;
}

/**
 * Conversion that needs I/O (a CRD's conversion webhook). A store that has one
 * decodes objects to their stored form and converts them here on the way out,
 * and converts what is written to the storage version on the way in. Every
 * other store has none, and its decoding stays synchronous.
 */
export interface AsyncConversion {
  /** Stored-form objects in the served version, in one call for the lot (a list is one ConversionReview). */
  toServed(objs: Unstructured[]): Promise<Unstructured[]>;
  /** A served-version object in the storage version. */
  toStored(obj: Unstructured): Promise<Unstructured>;
}

export interface ListResult<T = any> { items: T[]; resourceVersion: string; continue?: string; remainingItemCount?: number }

/** Who a write is recorded for in metadata.managedFields (an Update operation). */
export interface FieldManagerOptions {
  manager: string;
  /** 'status' or 'scale' for subresource writes. */
  subresource?: string;
}

export interface CreateOptions {
  dryRun?: boolean;
  fieldManager?: FieldManagerOptions;
  /**
   * `input` is the caller's to give away (a request body JSON.parse just made): the create takes
   * it as its own copy and mutates it, instead of copying it first. Only for plain JSON values.
   */
  inputOwned?: boolean;
  /** As UpdateOptions.resultShared. */
  resultShared?: boolean;
  /** The request the create is made for, handed to admission (undefined: the server's own write). */
  context?: RequestContext;
  /**
   * The create's managedFields as the heavy lane computed them for fieldManager on this same body,
   * with the kind's defaults (apiserver/heavy/create-preflight.ts): taken instead of computing them
   * again, with this write's time, when this store defaults as the kind does and the name was given.
   */
  managedFields?: ManagedFieldsEntry[];
}

export interface UpdateOptions {
  subresource?: string;
  dryRun?: boolean;
  fieldManager?: FieldManagerOptions;
  /**
   * The object as stored at its resourceVersion, from a watch-fed cache
   * (upstream's cachedExistingObject): the first attempt starts from it
   * instead of reading storage, and its revision guards the write, so a
   * stale copy only costs the read a lost race costs anyway. Callers must
   * not mutate it.
   */
  current?: any;
  /**
   * The request's context: once aborted (its deadline passed, its client left), a write that
   * lost a race stops retrying. Without it a write without precondition retries until it succeeds.
   * A function is called only when the write has to wait for its key's turn or lost a race.
   */
  signal?: RequestSignal;
  /** The request the write is made for, handed to admission (undefined: the server's own write). */
  context?: RequestContext;
  /**
   * The caller only reads the result (renders it, or drops it as a binding does) and never
   * mutates it: the written object may become the watch cache's own copy for the write's event
   * (and the caller's rendered JSON its watchers'), which saves parsing the stored value again.
   */
  resultShared?: boolean;
  /**
   * `mutate` builds a new object and never changes its argument, nor anything reachable from it,
   * in place (the binding does): it gets the current object itself, which may be the watch cache's
   * shared copy, instead of a private copy parsed for it (a parse of the whole object per write).
   */
  mutateCopies?: boolean;
  /**
   * For update (PUT): the input is the caller's to give away (a request body decoded for this
   * request alone), so the first attempt mutates it rather than a copy (a stringify and a parse of
   * the whole object per write); an attempt after a lost race, which needs the input as sent, gets
   * this function's fresh copy (the body decoded again).
   */
  inputAgain?: () => unknown;
}

export interface Watch {
  close(): void;
  /** Everything up to this revision is delivered (or not wanted): what a bookmark may claim before any event. */
  readonly startRevision: number;
  /** Served from the watch cache: every event up to this revision has been delivered (what a bookmark may claim now). */
  progress?(): number;
}

/** Larger limits mean "everything"; this keeps them exact integers on the way to SQLite. */
const maxListLimit = Number.MAX_SAFE_INTEGER - 1;

export class Store {
  readonly gr: GroupResource;
  readonly apiVersion: string;

  private readonly keyInfo: ResourceInfo;
  private readonly writers = new KeyTurns();
  /** The resource's watch cache, when the registry gave it one: lists and watches are served from it. */
  private cache?: WatchCache;
  /** Set by stores whose conversion calls a webhook (custom resources with strategy Webhook). */
  protected asyncConversion?: AsyncConversion;

  constructor(readonly info: ResourceInfo, readonly strategy: Strategy, private readonly deps: StoreDeps, private readonly storage?: StorageVersion) {
    this.gr = { group: info.group, resource: info.plural };
    this.apiVersion = apiVersionOf(info);
    this.keyInfo = storage?.info ?? info;
  }

  key(namespace: string | undefined, name: string): string { return objectKey(this.keyInfo, namespace, name); }

  /** decodedJSON (lists) relies on this being JSON.parse plus resourceVersion: change them together. */
  decode(kv: KeyValue): any {
    const conversion = this.strategy.conversion;
    const obj = conversion ? conversion.fromStorage(JSON.parse(kv.value)) : JSON.parse(kv.value);
    obj.metadata.resourceVersion = String(kv.modRevision);
    return this.storage ? this.storage.fromStorage(obj) : obj;
  }

  private encode(input: Unstructured): string {
    const obj: Unstructured = this.storage ? this.storage.toStorage(input) : input;
    const { resourceVersion: _rv, ...metadata } = obj.metadata!;
    const served = { ...obj, apiVersion: this.encodeAs(), kind: this.keyInfo.kind, metadata };
    return JSON.stringify(this.strategy.conversion ? this.strategy.conversion.toStorage(served) : served);
  }

  /**
   * The stored form of a write, refused past etcd's default request limit on
   * every backend alike, so SQLite keeps no object an etcd-backed cluster
   * could not. Measured on k8ts' stored JSON (with its key), which is what
   * the backend is sent.
   */
  private encodeForWrite(key: string, obj: Unstructured): string {
    const value = this.encode(obj);
    // A UTF-16 code unit is at most 3 bytes of UTF-8: nearly every object is far under the limit by its length
    // alone, and is not scanned for its byte count (every write of a 2-4 KB pod did that).
    if ((value.length + key.length) * 3 <= maxStoredRequestBytes) return value;
    if (Buffer.byteLength(value) + Buffer.byteLength(key) > maxStoredRequestBytes) throw storageRequestTooLarge();
    return value;
  }

  /** Serve lists and watches from this cache from now on (undefined: from storage again). */
  useWatchCache(cache: WatchCache | undefined): void { this.cache = cache; }

  get watchCache(): WatchCache | undefined { return this.cache; }

  /** The key prefix of the whole resource (every namespace). */
  get resourcePrefix(): string { return listPrefix(this.keyInfo, undefined); }

  /** What a watch cache of this resource reads: this store's decoding, storage's list at a revision. */
  cacheSource(): CacheSource {
    return {
      decode: (kv) => this.decode(kv),
      listAt: (prefix, revision, startKey) => this.deps.backend.list(prefix, { revision, limit: 10_000, startKey }),
    };
  }

  /** The apiVersion objects are stored with (custom resources: their storage version). */
  protected encodeAs(): string { return apiVersionOf(this.keyInfo); }

  /** The label and field selection of a list or watch (custom resources add their selectable fields). */
  protected selection(opts: { labelSelector?: string; fieldSelector?: string }): Selection {
    return compileSelection(this.info, opts);
  }

  /** The server-side printer of this resource's tables. */
  tablePrinter(): KindPrinter { return printerFor(kindKey(this.info)); }

  async get(namespace: string | undefined, name: string): Promise<any> {
    const { kv } = await this.deps.backend.get(this.key(namespace, name));
    if (!kv) throw notFound(this.gr, name);
    return this.asyncConversion ? this.decodeServed(kv) : this.decode(kv);
  }

  /** decode(kv) in the served version: the same as decode() unless the store converts through a webhook. */
  private async decodeServed(kv: KeyValue): Promise<Unstructured> {
    const obj = this.decode(kv);
    return this.asyncConversion ? (await this.asyncConversion.toServed([obj]))[0] : obj;
  }

  /** The stored form of a write: encodeForWrite, after a webhook's conversion to the storage version when the store has one. */
  private async storedValue(key: string, obj: Unstructured): Promise<string> {
    return this.encodeForWrite(key, this.asyncConversion ? await this.asyncConversion.toStored(obj) : obj);
  }

  /** The JSON text of decode(kv), from the stored text when it can be spliced (stored-json.ts). */
  decodedJSON(kv: KeyValue): string {
    if (this.strategy.conversion || this.storage) return JSON.stringify(this.decode(kv));
    return withResourceVersion(kv.value, String(kv.modRevision)) ?? JSON.stringify(this.decode(kv));
  }

  async list(namespace: string | undefined, opts: ListOptions = {}): Promise<ListResult> {
    const cached = await this.listFromCache(namespace, opts, (obj) => obj);
    if (cached) return cached;
    return this.listWith(namespace, opts, (kv, sel) => {
      const obj = this.decode(kv);
      return sel.matches(obj) ? obj : undefined;
    });
  }

  /**
   * list() with each item as its JSON text, JSON.stringify(item) exactly. Without selectors the
   * objects are never decoded: a large list costs a scan of the stored text, not a parse.
   */
  async listJSON(namespace: string | undefined, opts: ListOptions = {}): Promise<ListResult<string>> {
    // A recent object's text is reused; the others' is rendered for this list and not kept (rendered-json.ts).
    // A cold object's text is inflated as it was written (watch-cache/cold.ts): no decode, no render.
    const cached = await this.listFromCache(namespace, opts, objectJSON, (json) => json);
    if (cached) return cached;
    return this.listWith(namespace, opts, (kv, sel) => {
      if (sel.everything) return this.decodedJSON(kv);
      const obj = this.decode(kv);
      return sel.matches(obj) ? JSON.stringify(obj) : undefined;
    });
  }

  /**
   * A list served by the watch cache, or undefined when storage must answer (upstream's
   * CacheDelegator.GetList and shouldDelegateList: continue tokens and Exact reads go to
   * storage; a consistent read goes there too when the cache does not catch up in time).
   */
  private async listFromCache<T>(
    namespace: string | undefined, opts: ListOptions, pick: (obj: any) => T, pickText?: (json: string) => T,
  ): Promise<ListResult<T> | undefined> {
    const cache = this.cache;
    const mode = cache ? cachedListMode(opts) : 'storage';
    if (!cache || mode === 'storage') return undefined;
    const sel = this.selection(opts);
    const wanted = parseResourceVersion(opts.resourceVersion);
    const waitMs = this.deps.freshnessWaitMs ?? defaultFreshnessWaitMs;
    await cache.whenReady();
    if (mode === 'consistent') {
      // 1.31+ ConsistentListFromCache: storage's current revision, then wait for the cache to reach it.
      if (!await cache.waitFor(await this.deps.backend.currentRevision(), waitMs)) return undefined;
    } else if (wanted > 0n && !await cache.waitFor(Number(wanted), waitMs)) {
      throw tooLargeResourceVersion(wanted, cache.revision);
    }
    // resourceVersion "0" is a list from the cache whatever its limit (the 1.32 cacher ignores limit there).
    const limit = opts.resourceVersion !== '0' && opts.limit && opts.limit > 0 ? opts.limit : 0;
    // A metadata.name field selector in one namespace (or of a cluster-scoped kind) names one key.
    const name = sel.name !== undefined && (!this.info.namespaced || namespace) ? sel.name : undefined;
    const page = await cache.list(listPrefix(this.keyInfo, namespace), sel, limit, pick, name, pickText);
    const result: ListResult<T> = { items: page.items, resourceVersion: String(page.revision) };
    if (page.continueFrom !== undefined) {
      // The next page is read from storage at the cache's revision, as upstream's token says.
      result.continue = encodeContinue(page.revision, page.continueFrom);
      if (page.remainingItemCount !== undefined) result.remainingItemCount = page.remainingItemCount;
    }
    return result;
  }

  /** The list flow, with `pick` turning a stored value into an item, or undefined when the selection skips it. */
  private async listWith<T>(namespace: string | undefined, opts: ListOptions, pick: (kv: KeyValue, sel: Selection) => T | undefined): Promise<ListResult<T>> {
    const sel = this.selection(opts);
    const prefix = listPrefix(this.keyInfo, namespace);
    let revision = 0;
    let startKey: string | undefined;
    if (opts.continue) {
      const token = decodeContinue(opts.continue, prefix);
      if (opts.resourceVersion && opts.resourceVersion !== '0') throw badRequest('specifying resource version is not allowed when using continue');
      revision = token.rv;
      startKey = token.start;
    } else {
      const wanted = parseResourceVersion(opts.resourceVersion);
      await this.waitUntilFresh(wanted);
      // NotOlderThan (and no match) reads the latest revision, which is now at least the one asked for.
      if (opts.resourceVersionMatch === 'Exact') revision = Number(wanted);
    }
    // Upstream ignores a limit that is not positive.
    const limit = opts.limit && opts.limit > 0 ? Math.min(opts.limit, maxListLimit) : 0;
    const items: T[] = [];
    const chunk = limit ? Math.max(limit, 100) : 0;
    for (;;) {
      const page = await this.readPage(prefix, revision, chunk, startKey, !!opts.continue);
      revision = page.revision;
      for (let i = 0; i < page.kvs.length; i++) {
        const item = pick(page.kvs[i], sel);
        if (item === undefined) continue;
        items.push(item);
        if (limit && items.length === limit) {
          const moreLeft = i < page.kvs.length - 1 || page.more;
          if (!moreLeft) return { items, resourceVersion: String(revision) };
          const next = page.kvs[i].key + '\u0000';
          const result: ListResult<T> = { items, resourceVersion: String(revision), continue: encodeContinue(revision, next) };
          // As upstream's etcd3 store: only an unfiltered list knows how many items are left; etcd's
          // Range tells it (its Count is not cut by the limit), other storage is asked.
          if (sel.everything) {
            result.remainingItemCount = page.count !== undefined
              ? page.count - (i + 1)
              : await this.deps.backend.count(prefix, { revision, startKey: next });
          }
          return result;
        }
      }
      if (!page.more || page.kvs.length === 0) break;
      startKey = page.kvs[page.kvs.length - 1].key + '\u0000';
    }
    return { items, resourceVersion: String(revision) };
  }

  private async readPage(prefix: string, revision: number, limit: number, startKey: string | undefined, continuing: boolean) {
    try {
      return await this.deps.backend.list(prefix, { revision, limit: limit || undefined, startKey });
    } catch (e) {
      if (e instanceof CompactedError) {
        throw gone(continuing
          ? 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.'
          : 'The resourceVersion for the provided list is too old.');
      }
      throw e;
    }
  }

  /** Waits until the store has reached `revision`, or throws upstream's 504 Too large resource version. */
  private waitUntilFresh(revision: bigint): Promise<void> {
    if (revision === 0n) return Promise.resolve();
    return waitUntilFresh(this.deps.backend, revision, this.deps.freshnessWaitMs ?? defaultFreshnessWaitMs);
  }

  async create(namespace: string | undefined, input: any, opts: CreateOptions = {}): Promise<any> {
    const obj = opts.inputOwned && input !== null && typeof input === 'object' ? input : clone(input);
    obj.metadata ??= {};
    const meta = obj.metadata;
    this.checkNamespaceMatch(namespace, meta);
    if (this.info.namespaced) meta.namespace = namespace; else delete meta.namespace;
    const nameOf = this.deps.generateName ?? generateName;
    const generated = !meta.name && !!meta.generateName;
    if (generated) meta.name = nameOf(meta.generateName!);
    if (!meta.name) {
      throw invalidObject(this.info.kind, this.info.group, '', [required('metadata.name', 'name or generateName is required')]);
    }
    // Hooks answer at once when they can (no promise to await: each is an allocation and a microtask turn).
    let step: Promise<void> | void;
    if (this.info.namespaced && (step = this.deps.hooks?.checkNamespace?.(namespace!, this.gr, meta.name))) await step;
    obj.apiVersion = this.apiVersion;
    obj.kind = this.info.kind;
    this.strategy.applyDefaults(obj);
    // Tracked as upstream does: on the decoded, defaulted object, before the strategy and admission.
    const managedFields = opts.fieldManager && (this.computedManagedFields(opts, generated) ?? this.managedFieldsFor(undefined, obj, opts.fieldManager));
    this.strategy.prepareForCreate(obj);
    meta.uid = newUID();
    meta.creationTimestamp = rfc3339(this.deps.clock.now());
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.resourceVersion;
    dropEmptyMetadata(meta);
    dropOmittedZeros(obj);
    fillGoZeroValues(obj);
    if ((step = this.deps.hooks?.admit?.('create', this.info, obj, undefined, opts.context))) await step;
    const errs = this.strategy.validate(obj);
    if (errs.length) throw invalidObject(this.info.kind, this.info.group, meta.name, errs);
    this.warn(opts.context, this.strategy.warningsOnCreate, obj);
    if (managedFields !== undefined) setManagedFields(obj, managedFields);
    if ((step = this.deps.hooks?.validate?.('create', this.info, obj, undefined, { dryRun: !!opts.dryRun }, opts.context))) await step;
    if (opts.dryRun) return obj;
    const cache = this.handOverTo(opts);
    for (let attempt = 1; ; attempt++) {
      const key = this.key(namespace, meta.name);
      const value = this.asyncConversion ? await this.storedValue(key, obj) : this.encodeForWrite(key, obj);
      if (opts.context?.ended?.()) throw requestTimeout();
      cache?.expectWrite(key, value, obj);
      const res = await this.deps.backend.create(key, value);
      // obj is the request's own copy (cloned from its body): answered as written, not parsed back from storage.
      if (res.ok) return this.written(obj, res.kv, value);
      cache?.forgetWrite(key, value);
      // A generated name that is taken is generated again (upstream's RetryGenerateName): with 5 characters
      // of 27, a DaemonSet's 5,000 pods draw one taken name in about every second rollout.
      if (!generated || attempt >= nameGenerationAttempts) throw alreadyExists(this.gr, meta.name);
      meta.name = nameOf(meta.generateName!);
    }
  }

  /**
   * A client's write that passed validation hears what the strategy warns of (upstream's
   * WarningsOnCreate/WarningsOnUpdate, after validation); the server's own writes have no one to tell.
   */
  private warn<A extends unknown[]>(ctx: RequestContext | undefined, warnings: ((...a: A) => string[] | undefined) | undefined, ...args: A): void {
    const send = this.deps.hooks?.warn;
    if (!ctx || !send || !warnings) return;
    const texts = warnings(...args);
    if (texts?.length) send(texts, ctx);
  }

  private checkNamespaceMatch(namespace: string | undefined, meta: ObjectMeta) {
    if (this.info.namespaced && meta.namespace && namespace && meta.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
  }

  /** PUT: replace the object; a resourceVersion in the body is a precondition. */
  async update(namespace: string | undefined, name: string, input: any, opts: UpdateOptions = {}): Promise<any> {
    if (input?.metadata?.name && input.metadata.name !== name) {
      throw badRequest(`the name of the object (${input.metadata.name}) does not match the name on the URL (${name})`);
    }
    this.checkNamespaceMatch(namespace, input?.metadata ?? {});
    const wantRV: string | undefined = input?.metadata?.resourceVersion || undefined;
    // A replacement never reads the current object: no private copy of it is made for the mutation.
    let given = false;
    const again = opts.inputAgain;
    const mutate = again ? () => (given ? again() : (given = true, input)) : () => clone(input);
    // withMembers, not `{ ...opts, member }`: members a spread copy lacks give it a hidden class of its own
    // per call (util/with-members.ts), and every read of the options down the write path a megamorphic load.
    return this.guaranteedUpdate(namespace, name, mutate, withMembers(opts, { preconditionRV: wantRV, replace: true }));
  }

  /**
   * Read-modify-write, as upstream's etcd3 GuaranteedUpdate: `mutate` gets a
   * private copy of the current object and returns the desired one. A write
   * whose guard lost a race is tried again on the value that won (the failed
   * guard's answer: no second read; absent when it was deleted) until it succeeds: there is no count,
   * only the request's deadline (opts.signal). A write with a precondition (a
   * resourceVersion in the PUT body or in the patched object) answers 409 at once.
   */
  async guaranteedUpdate(
    namespace: string | undefined, name: string,
    mutate: (current: any) => any | Promise<any>,
    opts: UpdateOptions & { preconditionRV?: string; replace?: boolean } = {},
  ): Promise<any> {
    const key = this.key(namespace, name);
    try {
      // Upstream's Cacher.GuaranteedUpdate: the watch cache's copy, when it has one, is the first attempt's
      // current state (cachedExistingObject); a stale copy costs one lost race, then storage's value is used.
      // A converting store's cache holds stored forms, not the served objects a write starts from.
      // Looked up once this writer's turn has come, not before it waits: the writers ahead of it
      // change the object, and a copy taken in the line is stale by then (every one of sixteen
      // concurrent applies to one ConfigMap merged twice, the first time in vain).
      // The turn's keys go on in the request context, so that a hook writing this key again does not wait for itself.
      const inTurn = (turns: ReadonlySet<string>) => {
        const cached = !opts.current && this.cache && !this.asyncConversion ? this.cache.current(key) : undefined;
        // withMembers, not `{ ...opts, context }` and a member set later: members a spread copy lacks
        // gave each write's options a hidden class of their own (util/with-members.ts).
        const attempt = withMembers(opts, { context: withMembers(opts.context, { turns }), current: cached ?? opts.current });
        return this.readModifyWrite(key, name, mutate, attempt);
      };
      return await this.writers.inTurn(key, inTurn, opts.signal, opts.context?.turns);
    } catch (e) {
      // Left the line because the request is over (its 504 is already sent): as a lost race.
      if (e instanceof KeyTurnAbandoned) throw conflict(this.gr, name);
      throw e;
    }
  }

  private async readModifyWrite(
    key: string, name: string,
    mutate: (current: any) => any | Promise<any>,
    opts: UpdateOptions & { preconditionRV?: string; replace?: boolean },
  ): Promise<any> {
    const fromStorage = async (): Promise<CurrentState> => { const { old, modRevision, kv } = await this.readCurrent(key, name); return { old, modRevision, cached: false, kv }; };
    // The first attempt may start from a watch-fed copy; a lost race starts over from the value that won.
    let cur: CurrentState = opts.current ? fromCache(opts.current) : await fromStorage();
    for (;;) {
      const { modRevision, cached, kv } = cur;
      // Strategies copy parts of the old object into the new one (the spec on /status, the status on the
      // main resource) and later steps normalize the new one in place: the cache's shared copy must not be
      // reachable from it, so a cached current state is used through a private copy, parsed from its
      // JSON (kept while the object is recent: its watchers were just sent it). A binding only reads it (no strategy
      // copies from it, nothing normalizes the new object in place: upstream's binding REST writes storage
      // directly), so it uses the shared copy, a parse less per scheduled pod. So does an apply (a
      // mutate that copies what it keeps) to a kind whose strategy copies nothing of the old object
      // (a ConfigMap: attack 4 of issue 19 made one such parse per apply, an eighth of what it allocated).
      // Rendered at most once per attempt (kept only while the object is recent: rendered-json.ts).
      let oldText: string | undefined;
      const oldCopy = () => JSON.parse(oldText ??= objectJSON(cur.old));
      // A PUT's new object is its body (replace), which shares nothing with the old one either: a Lease
      // renewal (500 a second at 5,000 nodes) parsed a private copy of the old Lease only to read it.
      // A status write whose result is only read (resultShared) takes the stored spec by reference
      // (prepareForStatusUpdate) and normalizes only what it was sent (prepareUpdate): nothing writes
      // to the old object's parts, so the cache's copy serves, without a parse of the whole pod per
      // kubelet status write, and the stored spec's frozen parts (and the creator's field set, decoded
      // once per frozen FieldsV1) stay the same objects in the new version. Not an apply's (mutateCopies):
      // its new status may hold the old one's parts, which the normalizing would then walk.
      const sharesOld = opts.subresource === 'binding' || (opts.subresource === 'status' && opts.resultShared === true && !opts.mutateCopies)
        || ((opts.mutateCopies || opts.replace) && opts.subresource === undefined && this.strategy.updateCopiesNothingOfOld === true);
      const old = cached && !sharesOld ? oldCopy() : cur.old;
      let obj: any;
      try {
        // The private copy: decoding the stored value again costs one parse, a clone a stringify and a parse.
        // A recent cached copy's JSON is kept (its watchers were sent it): one parse then too.
        // A mutate that copies what it changes needs none.
        const next = await mutate(opts.replace ? undefined : opts.mutateCopies ? old : kv ? await this.decodeServed(kv) : cached ? oldCopy() : clone(old));
        // A resourceVersion in the desired object (from a PUT body or a patch) is a precondition.
        const rv = next?.metadata?.resourceVersion;
        // Against a cached copy a mismatch or a no-op may only mean the copy is stale: decide on storage's.
        if (rv && rv !== old.metadata.resourceVersion) {
          if (cached) { cur = await fromStorage(); continue; }
          throw conflict(this.gr, name);
        }
        obj = await this.prepareUpdate(next, old, opts);
      } catch (e) {
        // Upstream's GuaranteedUpdate: an error against a cached copy may come from its staleness; try the live value.
        if (cached) { cur = await fromStorage(); continue; }
        throw e;
      }
      // A binding always sets spec.nodeName, which the current pod lacks (its mutate refuses otherwise):
      // never a no-op, so the deep comparison of the two pods is skipped.
      if (opts.subresource !== 'binding' && jsonEqual(obj, old)) {
        if (cached) { cur = await fromStorage(); continue; }
        return old;
      }
      if (opts.dryRun) return obj;
      if (opts.context?.ended?.()) throw requestTimeout();
      const deleting = shouldDeleteNow(obj) && !this.strategy.holdDeletion?.(obj);
      const write: { res: WriteResult; value?: string } = deleting ? { res: await this.deps.backend.delete(key, modRevision) } : await this.writeUpdate(key, obj, modRevision, opts);
      const res = write.res;
      // The written object is this write's own copy (the request's body, or parsed for this write from the
      // stored value or the cache's rendered JSON): answered as written, not parsed back from storage.
      if (res.ok) return deleting ? this.decodeServed(res.kv) : this.written(obj, res.kv, write.value);
      if (opts.preconditionRV) throw conflict(this.gr, name);
      throwIfGivenUp(opts.signal, this.gr, name);
      if (!res.current) throw notFound(this.gr, name);
      cur = { old: await this.decodeServed(res.current), modRevision: res.current.modRevision, cached: false, kv: res.current };
    }
  }

  /** An update's storage write; the object goes to the watch cache when the caller drops it. */
  private async writeUpdate(key: string, obj: Unstructured, modRevision: number, opts: UpdateOptions) {
    const value = this.asyncConversion ? await this.storedValue(key, obj) : this.encodeForWrite(key, obj);
    const cache = this.handOverTo(opts);
    cache?.expectWrite(key, value, obj);
    const res = await this.deps.backend.update(key, value, modRevision);
    if (!res.ok) cache?.forgetWrite(key, value);
    return { res, value };
  }

  /** The watch cache that may keep the object being written as is (see UpdateOptions.resultShared). */
  private handOverTo(opts: { resultShared?: boolean }): WatchCache | undefined {
    return opts.resultShared && this.storedAsServed() ? this.cache : undefined;
  }

  /** Whether storage keeps objects as served (no conversion, no other storage version): decode is JSON.parse plus resourceVersion. */
  private storedAsServed(): boolean {
    return !this.storage && !this.strategy.conversion && !this.asyncConversion && this.encodeAs() === this.apiVersion;
  }

  /**
   * The object just written, as a read of `kv` would decode it, without parsing
   * the value again where storage keeps it as served (no conversion): `obj` is
   * the write's own copy (decoded from storage for this write, shared with no cache).
   * Its JSON (the answer's, and its watchers') is the stored `value` with the
   * resourceVersion spliced in (stored-json.ts), not a second stringify, when
   * resourceVersion is metadata's last member as that splice writes it (always on create).
   */
  private written(obj: Unstructured, kv: KeyValue, value?: string): Unstructured | Promise<Unstructured> {
    if (!this.storedAsServed()) return this.decodeServed(kv);
    const meta = obj.metadata as Writable<ObjectMeta>;
    meta.resourceVersion = String(kv.modRevision);
    if (value !== undefined && !hasRenderedJSON(obj) && lastMember(meta) === 'resourceVersion') {
      const json = withResourceVersion(value, meta.resourceVersion);
      if (json !== undefined) seedRenderedJSON(obj, json);
    }
    return obj;
  }

  private async readCurrent(key: string, name: string): Promise<{ old: Unstructured; modRevision: number; kv: KeyValue }> {
    const { kv } = await this.deps.backend.get(key);
    if (!kv) throw notFound(this.gr, name);
    return { old: await this.decodeServed(kv), modRevision: kv.modRevision, kv };
  }

  /**
   * The write as an Update operation in metadata.managedFields. Fields the
   * endpoint resets (status on the main resource, all but status on /status)
   * are not the writer's; null means upstream would drop the field.
   */
  private managedFieldsFor(old: Unstructured | undefined, obj: Unstructured, fm: FieldManagerOptions): ManagedFieldsEntry[] | null {
    const ignoredFields = resetFields(this.strategy.hasStatus, fm.subresource, old, obj);
    return updateManagedFields(old, obj, {
      kindKey: kindKey(this.info), apiVersion: this.apiVersion, manager: fm.manager, subresource: fm.subresource, now: this.deps.clock.now(), ignoredFields,
    }) ?? null;
  }

  /** CreateOptions.managedFields with this write's time, when they stand for what managedFieldsFor would say. */
  private computedManagedFields(opts: CreateOptions, generated: boolean): ManagedFieldsEntry[] | undefined {
    if (!opts.managedFields || generated || !defaultsAsTheKind(this.strategy)) return undefined;
    const time = rfc3339(this.deps.clock.now());
    return opts.managedFields.map((e) => ({ ...e, time }));
  }

  private async prepareUpdate(next: any, old: any, opts: UpdateOptions): Promise<any> {
    if (!next || typeof next !== 'object') throw badRequest('the body of the request must be an object');
    next.metadata ??= {};
    next.apiVersion = this.apiVersion;
    next.kind = this.info.kind;
    const m = next.metadata;
    const o = old.metadata;
    // Identity and lifecycle fields belong to the server.
    m.name = o.name;
    if (this.info.namespaced) m.namespace = o.namespace; else delete m.namespace;
    m.uid = o.uid;
    m.creationTimestamp = o.creationTimestamp;
    m.resourceVersion = o.resourceVersion;
    for (const f of ['deletionTimestamp', 'deletionGracePeriodSeconds'] as const) {
      if (o[f] !== undefined) m[f] = o[f]; else delete m[f];
    }
    dropEmptyMetadata(m);
    // A binding sets spec.nodeName and the PodScheduled condition on the stored pod, which its
    // create already defaulted and normalized: upstream's BindingREST writes storage directly
    // (registry/pod-binding.ts), with no strategy, no pod admission (the Binding was admitted
    // as a CREATE of pods/binding before) and no managedFields entry.
    if (opts.subresource === 'binding') return next;
    // A status write keeps only the metadata and status it was sent (prepareForStatusUpdate puts the stored
    // rest back, as upstream's status strategies do): the rest is dropped before defaulting and normalizing,
    // which walked a pod's whole spec on every kubelet status write only to throw it away.
    if (opts.subresource === 'status') for (const k of Object.keys(next)) if (!statusWriteKeeps.has(k)) delete next[k];
    this.strategy.applyDefaults(next);
    const managedFields = opts.fieldManager && this.managedFieldsFor(old, next, opts.fieldManager);
    const ownSubresource = opts.subresource !== undefined && ownSubresourceWrites.has(opts.subresource);
    // A status write's own members (metadata, status) are normalized before the stored rest is put
    // back: that rest was normalized when it was written, and may be the watch cache's shared copy,
    // which nothing may write to (see readModifyWrite's sharesOld).
    const statusWrite = opts.subresource === 'status';
    if (statusWrite) normalizeWritten(next);
    if (ownSubresource) this.strategy.prepareForStatusUpdate(next, old, opts.subresource);
    else this.strategy.prepareForUpdate(next, old);
    if (!statusWrite) normalizeWritten(next);
    let step: Promise<void> | void;
    if ((step = this.deps.hooks?.admit?.('update', this.info, next, old, opts.context))) await step;
    const errs = this.strategy.validateUpdate(next, old, opts.subresource);
    if (errs.length) throw invalidObject(this.info.kind, this.info.group, m.name, errs);
    if (opts.subresource === undefined) this.warn(opts.context, this.strategy.warningsOnUpdate, next, old);
    if (managedFields !== undefined) setManagedFields(next, managedFields);
    if ((step = this.deps.hooks?.validate?.('update', this.info, next, old, { dryRun: !!opts.dryRun, subresource: opts.subresource }, opts.context))) await step;
    // The answer and the watch event are then the stored text with the revision spliced in (written).
    withResourceVersionLast(next);
    // Members were deleted and added back above: upstream's order again (spec before status), and a fast object.
    return ownSubresource ? inStoredOrder(next, old) : next;
  }

  /**
   * DELETE with upstream's order: preconditions, graceful deletion (pods wait
   * for their kubelet), finalizers (the object stays with a deletionTimestamp
   * until they are gone), then removal. Returns the object and whether it is gone.
   */
  async delete(namespace: string | undefined, name: string, options: DeleteOptions = {}, dryRun = false, signal?: RequestSignal, context?: RequestContext): Promise<{ obj: any; deleted: boolean }> {
    const key = this.key(namespace, name);
    let kv = (await this.deps.backend.get(key)).kv;
    for (;;) {
      if (!kv) throw notFound(this.gr, name);
      const cur = await this.decodeServed(kv);
      checkPreconditions(this.gr, cur, options);
      await this.deps.hooks?.admitDelete?.(this.info, cur, context);
      const next = clone(cur);
      const pending = this.markDeleting(next, options);
      if (dryRun) return { obj: pending ? next : cur, deleted: !pending };
      const res = pending
        ? await this.deps.backend.update(key, await this.storedValue(key, next), kv.modRevision)
        : await this.deps.backend.delete(key, kv.modRevision);
      if (res.ok) return { obj: await this.decodeServed(res.kv), deleted: !pending };
      // As upstream's conditional delete: a lost race is checked again on the winner (preconditions included).
      throwIfGivenUp(signal, this.gr, name);
      kv = res.current;
    }
  }

  /** Sets deletion fields; returns true when the object must stay (grace period or finalizers). */
  private markDeleting(obj: Unstructured, options: DeleteOptions): boolean {
    const m: Writable<ObjectMeta> = obj.metadata!;
    const now = this.deps.clock.now();
    const finalizers: string[] = m.finalizers ?? [];
    const policy = options.propagationPolicy ?? (options.orphanDependents ? 'Orphan' : undefined);
    const addFinalizer = (f: string) => { if (!finalizers.includes(f)) finalizers.push(f); };
    if (!m.deletionTimestamp) {
      if (policy === 'Orphan') addFinalizer('orphan');
      if (policy === 'Foreground') addFinalizer('foregroundDeletion');
    }
    if (finalizers.length) m.finalizers = finalizers;
    const grace = this.strategy.gracePeriod?.(obj, options);
    if (grace !== undefined && grace > 0) {
      const until = new Date(now.getTime() + grace * 1000);
      // A second delete may shorten the grace period, never lengthen it.
      if (!m.deletionTimestamp || new Date(m.deletionTimestamp) > until) {
        m.deletionTimestamp = rfc3339(until);
        m.deletionGracePeriodSeconds = grace;
      }
      return true;
    }
    if (finalizers.length || this.strategy.holdDeletion?.(obj)) {
      m.deletionTimestamp ??= rfc3339(now);
      m.deletionGracePeriodSeconds = 0;
      return true;
    }
    return false;
  }

  /**
   * Watch from a resourceVersion; "" and "0" first replay the current state as ADDED events.
   * As upstream's watch cache does, a watch from a revision the store has not reached yet is
   * simply open until writes pass it; only with sendInitialEvents (the state at that revision
   * is asked for) does it wait for the revision and fail with Too large resource version.
   */
  async watch(namespace: string | undefined, opts: WatchOptions, send: (ev: WatchEventOut) => void, onEnd: (err?: Error) => void): Promise<Watch> {
    const sel = this.selection(opts);
    const prefix = listPrefix(this.keyInfo, namespace);
    const wanted = parseResourceVersion(opts.resourceVersion);
    const initial = opts.sendInitialEvents ?? wanted === 0n;
    if (this.cache) {
      await this.cache.whenReady();
      // Departure (docs/design-notes.md): history from before the cache started (a client resuming
      // across a server restart) is still in storage, so such a watch is served from there.
      if (initial || wanted >= BigInt(this.cache.listedAt)) return this.watchFromCache(this.cache, prefix, sel, wanted, opts, send, onEnd);
    }
    let from: number;
    let startRevision: number;
    if (initial) {
      await this.waitUntilFresh(wanted);
      const cur = await this.list(namespace, { labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector });
      for (const item of cur.items) send({ type: 'ADDED', object: item });
      from = startRevision = Number(cur.resourceVersion);
    } else {
      // Past 2^53 the number is no longer exact, but it is still beyond every revision there will be.
      from = Number(wanted);
      startRevision = Math.min(from, await this.deps.backend.currentRevision());
    }
    const w = this.deps.backend.watch(prefix, {
      fromRevision: from,
      onEvents: (events) => { for (const e of events) this.dispatch(e, sel, send); },
      onError: (err) => {
        if (err instanceof CompactedError) {
          send({ type: 'ERROR', object: gone(`too old resource version: ${from} (${err.compacted + 1})`).status });
        }
        onEnd(err);
      },
    });
    return { close: () => w.close(), startRevision };
  }

  /**
   * A watch served by the watch cache (upstream's Cacher.Watch). With sendInitialEvents the
   * state must be at least as fresh as the resourceVersion asked for (unset: storage's
   * current revision, a consistent read), or it is 504 Too large resource version.
   */
  private async watchFromCache(
    cache: WatchCache, prefix: string, sel: Selection, wanted: bigint, opts: WatchOptions,
    send: (ev: WatchEventOut) => void, onEnd: (err?: Error) => void,
  ): Promise<Watch> {
    const initial = opts.sendInitialEvents ?? wanted === 0n;
    await cache.whenReady();
    if (opts.sendInitialEvents) {
      const waitMs = this.deps.freshnessWaitMs ?? defaultFreshnessWaitMs;
      const needed = opts.resourceVersion ? wanted : BigInt(await this.deps.backend.currentRevision());
      if (needed > 0n && !await cache.waitFor(Number(needed), waitMs)) throw tooLargeResourceVersion(needed, cache.revision);
    }
    // Past 2^53 the number is no longer exact, but it is still beyond every revision there will be.
    const w = await cache.watch({ prefix, selection: sel, initial, fromRevision: Number(wanted), send, onEnd });
    return { close: w.close, startRevision: w.startRevision, progress: () => cache.revision };
  }

  private dispatch(e: WatchEvent, sel: Selection, send: (ev: WatchEventOut) => void) {
    const obj = decodeShared(this, e.kv);
    if (e.type === 'delete') {
      if (sel.matches(obj)) send({ type: 'DELETED', object: obj });
      return;
    }
    const now = sel.matches(obj);
    const before = !e.created && e.prevKv ? sel.matches(decodeShared(this, e.prevKv)) : false;
    if (now && before) send({ type: 'MODIFIED', object: obj });
    else if (now) send({ type: 'ADDED', object: obj });
    else if (before) send({ type: 'DELETED', object: obj });
  }
}

/**
 * Many watchers see the same event: decode it once per store (the versions of a
 * custom resource, and the two Event APIs, share keys but decode the same value
 * differently). Watch consumers must not mutate.
 */
const decoded = new WeakMap<Store, WeakMap<KeyValue, Unstructured>>();
function decodeShared(store: Store, kv: KeyValue): Unstructured {
  let cache = decoded.get(store);
  if (!cache) { cache = new WeakMap(); decoded.set(store, cache); }
  const hit = cache.get(kv);
  if (hit) return hit;
  const o: Unstructured = store.decode(kv);
  cache.set(kv, o);
  return o;
}

/** The state a read-modify-write attempt starts from: the watch cache's copy (cached) or storage's value (with its kv). */
interface CurrentState { old: any; modRevision: number; cached: boolean; kv?: KeyValue }

/** A cached object as the first attempt's current state: its resourceVersion is the revision the write is guarded by. */
function fromCache(current: Unstructured): CurrentState {
  return { old: current, modRevision: Number(current.metadata!.resourceVersion), cached: true, kv: undefined };
}

/** An update's object as upstream's Go types would write it: omitempty zeros dropped, Go's always-written zeros filled. */
function normalizeWritten(obj: Unstructured): void {
  dropOmittedZeros(obj);
  fillGoZeroValues(obj);
}

/** Go's `omitempty`: empty metadata lists and maps are not stored (clients see them absent). */
function dropEmptyMetadata(metadata: ObjectMeta): void {
  const meta = metadata as Record<string, unknown>;
  for (const f of ['ownerReferences', 'finalizers', 'managedFields']) if (Array.isArray(meta[f]) && meta[f].length === 0) delete meta[f];
  for (const f of ['labels', 'annotations']) if (meta[f] && typeof meta[f] === 'object' && Object.keys(meta[f]).length === 0) delete meta[f];
}

function shouldDeleteNow(obj: Unstructured): boolean {
  const m = obj.metadata!;
  return !!m.deletionTimestamp && !(m.finalizers?.length) && !((m.deletionGracePeriodSeconds ?? 0) > 0);
}

/**
 * A write that keeps losing races stops when its request is over (upstream's
 * GuaranteedUpdate returns the context's error; the timeout filter has
 * already answered the client 504 by then).
 */
function throwIfGivenUp(signal: RequestSignal | undefined, gr: GroupResource, name: string): void {
  if (signalOf(signal)?.aborted) throw conflict(gr, name);
}

function checkPreconditions(gr: GroupResource, cur: Unstructured, options: DeleteOptions) {
  const p = options.preconditions;
  if (!p) return;
  const meta = cur.metadata!;
  if (p.uid && p.uid !== meta.uid) {
    throw conflict(gr, meta.name!, `Precondition failed: UID in precondition: ${p.uid}, UID in object meta: ${meta.uid}`);
  }
  if (p.resourceVersion && p.resourceVersion !== meta.resourceVersion) {
    throw conflict(gr, meta.name!, `Precondition failed: ResourceVersion in precondition: ${p.resourceVersion}, ResourceVersion in meta: ${meta.resourceVersion}`);
  }
}

export { StatusError };

/** Writes computed managedFields (null or empty: none). */
function setManagedFields(obj: Unstructured, managedFields: ManagedFieldsEntry[] | null): void {
  const meta = obj.metadata!;
  if (managedFields?.length) meta.managedFields = managedFields;
  else delete meta.managedFields;
}
