/**
 * The watch cache of one resource (upstream's cacher + watchCache, storage/cacher): the
 * current objects, decoded once, and a bounded ring of the latest events, fed by the
 * CacheFeed. Lists and watches are served from here; storage only sees the cache's own
 * list at start and the reads the cache cannot answer (continue tokens, Exact reads).
 *
 * Contract:
 *  - Objects are decoded once and shared by every list, watcher and lister: nobody mutates them.
 *  - A pod nobody has read for an update or written for a while is kept cold (cold.ts, cold-sweep.ts):
 *    its deflated text and a stub of what selectors and indexes read. Every reader goes through
 *    `objects` with that in mind: lists and watches write a cold object from its text or a fresh
 *    decode, `current` decodes it and keeps it decoded again; served objects do not change.
 *  - A watch from resourceVersion N is served when every event of this resource after N is
 *    still in the ring (N >= `oldest`); otherwise it is 410 Expired "too old resource version",
 *    as upstream's watchCache answers. `oldest` starts at the revision the cache was listed at
 *    and moves to the revision of each event the ring drops.
 *  - Events reach a watcher in revision order, once, with the ADDED/MODIFIED/DELETED a
 *    selector's view calls for (an object that stops matching is DELETED for that watcher).
 *  - When storage's watch ends (reset) every watcher ends; clients watch again from their
 *    last resourceVersion, which may now be 410, exactly as after upstream's cacher re-lists.
 */
import type { KeyValue, WatchEvent } from '../../storage/backend.js';
import { gone } from '../../api/status.js';
import type { WatchEventOut } from '../types.js';
import type { Selection } from '../selection.js';
import type { Logger } from '../../util/log.js';
import type { CacheFeed, FeedMember } from './feed.js';
import { EventRing, type CachedEvent } from './ring.js';
import { SortedKeys } from './sorted-keys.js';
import { NodeIndex, nodeNameOf } from './node-index.js';
import type { Unstructured } from '../../api/unstructured.js';
import { lastMember, withResourceVersion } from '../stored-json.js';
import { forgetRenderedJSON, hasRenderedJSON, seedRenderedJSON } from './rendered-json.js';
import { compact, compactionFor, type Compaction } from './compact.js';
import { coldFormFor, isCold } from './cold.js';
import { ColdSweep, defaultColdOptions, type ColdOptions } from './cold-sweep.js';

/** What the cache needs of its store. */
export interface CacheSource {
  decode(kv: KeyValue): any;
  /** Storage's list of a prefix at a revision, in key order (one page from `startKey`). */
  listAt(prefix: string, revision: number, startKey?: string): Promise<{ kvs: KeyValue[]; more: boolean }>;
}

export interface CacheWatchOptions {
  /** Keys under this prefix (one namespace, or the whole resource). */
  prefix: string;
  selection: Selection;
  /** Start with the current state as ADDED events (resourceVersion 0 or sendInitialEvents). */
  initial: boolean;
  /** Without `initial`: deliver events after this revision. */
  fromRevision: number;
  send(ev: WatchEventOut): void;
  onEnd(err?: Error): void;
}

export interface CacheListPage<T> { items: T[]; revision: number; continueFrom?: string; remainingItemCount?: number }

interface CacheWatcher {
  readonly prefix: string;
  readonly selection: Selection;
  /** Events at or below this revision have been sent (or were not wanted). */
  after: number;
  send(ev: WatchEventOut): void;
  onEnd(err?: Error): void;
}

/** Time before a failed start list is tried again. */
const relistDelayMs = 1000;

export class WatchCache implements FeedMember {
  /** The current objects by key: decoded, or cold (cold.ts: a ColdObject, whose stub selectors and indexes read). */
  private objects = new Map<string, any>();
  private readonly keys = new SortedKeys();
  private ring: EventRing;
  private readonly watchers = new Set<CacheWatcher>();
  /** Pod watchers selecting one spec.nodeName, by that name: an event goes to its pod's node's watchers only. */
  private readonly byNode = new Map<string, Set<CacheWatcher>>();
  /** Pods by spec.nodeName, built by the first list or initial watch of one node's pods and kept from then on. */
  private nodeIndex?: NodeIndex;
  /** Every other watcher: each event is offered to each of them. */
  private readonly unindexed = new Set<CacheWatcher>();
  /**
   * Objects a store has just written, by key, with the stored value they were encoded to: the
   * write's event takes the object instead of parsing the value again (at most one per key;
   * dropped by the key's next event that matches, by its deletion and on every relist).
   */
  private written = new Map<string, { value: string; obj: Unstructured }>();
  /** While the start list runs: the feed's events, applied once it is in. */
  private pending?: WatchEvent[];
  private ready!: Promise<void>;
  private markReady!: () => void;
  private generation = 0;
  private closed = false;
  /** What compact does to this resource's objects: the members shared among them, their strings pooled or not. */
  private readonly compaction: Compaction;
  /** The object of the last create event: a new object's subtrees are tried against its (compact.ts). */
  private lastCreated: unknown;
  /** What makes this resource's untouched objects cold (undefined: they stay decoded). */
  private readonly coldSweep?: ColdSweep;
  /** A watch from below this revision is too old (events of this resource after it are all in the ring). */
  oldest = 0;
  /** The revision the cache was listed at: it has no history from before. */
  listedAt = 0;

  constructor(
    readonly prefix: string, private source: CacheSource, private readonly feed: CacheFeed,
    private readonly capacity: number, private readonly logger?: Logger,
    cold: ColdOptions | false = defaultColdOptions,
  ) {
    this.ring = new EventRing(capacity);
    this.compaction = compactionFor(prefix);
    const form = cold ? coldFormFor(prefix) : undefined;
    if (form && cold) {
      this.coldSweep = new ColdSweep(form, () => this.objects, cold);
      this.coldSweep.start();
    }
    this.newReadiness();
  }

  /**
   * One tick of the sweep that makes untouched objects cold, now (tests, benchmarks; the cache
   * runs it on its own timer). Returns how many went cold.
   */
  sweepCold(budgetMs = Infinity): number { return this.coldSweep?.sweep(budgetMs) ?? 0; }

  /** The store serving through this cache changed (a CRD re-served): decode with the new one from now on. */
  rebind(source: CacheSource): void { this.source = source; }

  /** Resolves once the cache holds the state at the feed's revision. */
  whenReady(): Promise<void> { return this.ready; }

  /** Resolves true once the cache holds every write up to `revision`, false after `waitMs`. */
  waitFor(revision: number, waitMs: number): Promise<boolean> { return this.feed.waitFor(revision, waitMs); }

  /** The revision everything in the cache is current to. */
  get revision(): number { return this.feed.revision; }

  restart(revision: number): void {
    const generation = ++this.generation;
    this.pending = [];
    this.relist(revision, generation).catch((err) => {
      if (generation !== this.generation || this.closed) return;
      this.logger?.warn('watch cache: list failed, trying again', { prefix: this.prefix, err: (err as Error).message, delayMs: relistDelayMs });
      setTimeout(() => { if (generation === this.generation && !this.closed) this.restart(this.feed.revision); }, relistDelayMs).unref();
    });
  }

  /**
   * The store hands over an object it is writing as `value`, which nothing else references or
   * will mutate (the caller drops it): when that write's event comes, the cache keeps `obj` (with the
   * event's resourceVersion) instead of decoding `value`, which must be `obj` as stored.
   */
  expectWrite(key: string, value: string, obj: Unstructured): void {
    if (this.readyResolved && !this.pending && !this.closed) this.written.set(key, { value, obj });
  }

  /** The write handed over with expectWrite failed. */
  forgetWrite(key: string, value: string): void {
    if (this.written.get(key)?.value === value) this.written.delete(key);
  }

  apply(event: WatchEvent): void {
    if (this.pending) this.pending.push(event); else this.applyNow(event);
  }

  reset(err: Error): void {
    this.generation++;
    this.pending = [];
    if (this.readyResolved) this.newReadiness();
    this.endWatchers(err);
  }

  close(): void {
    this.closed = true;
    this.generation++;
    this.coldSweep?.stop();
    this.feed.unregister(this);
    this.endWatchers();
  }

  /**
   * The matching objects under `prefix` in key order, at most `limit` (0: all). `name`: the one
   * name a field selector allows, when `prefix + name` is a key (upstream's cacher serves such
   * lists by key too). `pickText`: the item from the object's JSON text, for a cold object (no
   * decode); without it a cold object is decoded for `pick` (a fresh copy, not kept).
   */
  async list<T>(
    prefix: string, selection: Selection, limit: number, pick: (obj: any) => T, name?: string, pickText?: (json: string) => T,
  ): Promise<CacheListPage<T>> {
    await this.ready;
    const revision = this.feed.revision;
    const items: T[] = [];
    const { keys, start, end } = this.candidates(prefix, selection, name);
    for (let i = start; i < end; i++) {
      const obj = this.objects.get(keys[i]);
      // A cold object's stub has what every selection reads (cold.ts).
      if (!selection.everything && !selection.matches(obj)) continue;
      items.push(!isCold(obj) ? pick(obj) : pickText ? pickText(obj.text()) : pick(obj.decode()));
      if (limit && items.length === limit && i < end - 1) {
        // As upstream: only an unfiltered list knows how many items are left.
        return { items, revision, continueFrom: keys[i] + '\u0000', remainingItemCount: selection.everything ? end - i - 1 : undefined };
      }
    }
    return { items, revision };
  }

  /** Serves a watch from memory; throws the 410 when its resourceVersion is older than the ring. */
  async watch(opts: CacheWatchOptions): Promise<{ close(): void; startRevision: number }> {
    await this.ready;
    const w: CacheWatcher = { prefix: opts.prefix, selection: opts.selection, after: 0, send: opts.send, onEnd: opts.onEnd };
    let startRevision: number;
    if (opts.initial) {
      const { keys, start, end } = this.candidates(opts.prefix, opts.selection);
      for (let i = start; i < end; i++) {
        const obj = this.objects.get(keys[i]);
        // A cold object is sent as a fresh decode whose text is known: its watchers write that text.
        if (opts.selection.matches(obj)) opts.send({ type: 'ADDED', object: isCold(obj) ? obj.decode() : obj });
      }
      w.after = startRevision = this.feed.revision;
    } else {
      if (opts.fromRevision < this.oldest) {
        // Upstream's words (watchCache.getAllEventsSinceLocked): the oldest revision still known.
        throw gone(`too old resource version: ${opts.fromRevision} (${this.oldest})`);
      }
      w.after = opts.fromRevision;
      for (const ev of this.ring.since(opts.fromRevision)) deliver(w, ev);
      startRevision = Math.min(opts.fromRevision, this.feed.revision);
    }
    this.add(w);
    return { close: () => { this.remove(w); }, startRevision };
  }

  /**
   * The keys a selection can match under `prefix`, in key order, as a range of `keys`: the one key
   * a metadata.name selector names, the pods of the node a spec.nodeName selector names, or all.
   */
  private candidates(prefix: string, selection: Selection, name?: string): { keys: string[]; start: number; end: number } {
    if (name === undefined && selection.nodeName !== undefined) {
      this.nodeIndex ??= new NodeIndex(this.objects);
      const keys = this.nodeIndex.keysOn(selection.nodeName, prefix);
      return { keys, start: 0, end: keys.length };
    }
    return this.keys.range(this.objects, prefix, name);
  }

  /**
   * The object under `key` as the cache holds it now (shared: callers must not mutate it), or
   * undefined when the cache is not serving (listing, reset) or has no such key. Upstream's
   * Cacher.GuaranteedUpdate hands the same copy to storage as cachedExistingObject.
   */
  current(key: string): any | undefined {
    if (!this.readyResolved || this.pending) return undefined;
    const obj = this.objects.get(key);
    if (obj === undefined) return undefined;
    this.coldSweep?.touch(key);
    if (!isCold(obj)) return obj;
    // Read for an update: decoded and kept so for a while, as the write that follows and the next ones
    // start from it. Not compacted (40-60 µs a pod): the write's new version is, and its parts are only
    // shared with this one's where equal and frozen (util/shared-trees.ts internLike).
    const warm = obj.decode();
    this.objects.set(key, warm);
    return warm;
  }

  private add(w: CacheWatcher): void {
    this.watchers.add(w);
    const node = w.selection.nodeName;
    if (node === undefined) { this.unindexed.add(w); return; }
    let set = this.byNode.get(node);
    if (!set) { set = new Set(); this.byNode.set(node, set); }
    set.add(w);
  }

  private remove(w: CacheWatcher): void {
    this.watchers.delete(w);
    this.unindexed.delete(w);
    const node = w.selection.nodeName;
    const set = node === undefined ? undefined : this.byNode.get(node);
    if (set?.delete(w) && set.size === 0) this.byNode.delete(node!);
  }

  /** Number of open watchers (metrics, tests). */
  get watcherCount(): number { return this.watchers.size; }

  private async relist(revision: number, generation: number): Promise<void> {
    const fresh = new Map<string, any>();
    let startKey: string | undefined;
    for (;;) {
      const page = await this.source.listAt(this.prefix, revision, startKey);
      if (generation !== this.generation) return;
      // Each object's neighbour in key order is tried first: siblings from one template sit side by side.
      let like: unknown;
      for (const kv of page.kvs) fresh.set(kv.key, like = compact(this.source.decode(kv), undefined, this.compaction, like));
      if (!page.more || page.kvs.length === 0) break;
      startKey = page.kvs[page.kvs.length - 1].key + '\u0000';
    }
    this.objects = fresh;
    if (this.nodeIndex) this.nodeIndex = new NodeIndex(fresh);
    this.written = new Map();
    this.keys.invalidate();
    this.ring = new EventRing(this.capacity);
    this.oldest = this.listedAt = revision;
    const pending = this.pending ?? [];
    this.pending = undefined;
    for (const e of pending) if (e.kv.modRevision > revision) this.applyNow(e);
    this.markReady();
  }

  private applyNow(e: WatchEvent): void {
    const key = e.kv.key;
    // A cold previous version is its stub: enough for the node index and the watchers' selections.
    const prev = this.objects.get(key);
    let obj: Unstructured;
    if (e.type === 'delete' && e.kv.value === '') {
      // The feed's storage watch sends no previous values (prevKv: false): a delete is its key and
      // revision, and the object it deleted is the one held here (decoded again if it went cold).
      this.written.delete(key);
      if (prev === undefined) return;
      obj = deletedAt(isCold(prev) ? prev.decode() : prev, e.kv.modRevision);
    } else {
      obj = this.takeWritten(e) ?? this.source.decode(e.kv);
    }
    if (e.type !== 'delete') {
      compact(obj, isCold(prev) ? undefined : prev, this.compaction, this.lastCreated);
      this.coldSweep?.touch(key);
    }
    // A new object's subtrees are first compared with the last one created's (compact.ts).
    if (prev === undefined && e.type !== 'delete') this.lastCreated = obj;
    if (e.type === 'delete') {
      this.objects.delete(key);
      this.keys.invalidate();
    } else {
      if (prev === undefined) this.keys.invalidate();
      this.objects.set(key, obj);
    }
    this.nodeIndex?.apply(key, prev, e.type === 'delete' ? undefined : obj);
    const ev: CachedEvent = { type: e.type, key, obj, prev, revision: e.kv.modRevision };
    // The version this event replaces keeps no text: its watchers were sent it when it came, its
    // writer has answered (a key's writers take turns), reads and the next write start from the
    // new one; only a replay from an older revision renders it again (objectJSON, not kept). Kept
    // until its event left the ring, the text of every version of an object updated in a loop
    // (attack 4) was over half of what each scavenge copied (bench/apply-alloc.ts).
    if (prev !== undefined) forgetRenderedJSON(prev);
    const dropped = this.ring.push(ev);
    if (dropped) {
      this.oldest = dropped.revision;
      // Its watchers have had it: the object (if still current) stays decoded, its text goes.
      forgetRenderedJSON(dropped.obj);
    }
    this.offer(this.unindexed, ev);
    if (this.byNode.size === 0) return;
    // A node's watcher can only see this event if the pod is, or was, on its node (ADDED/MODIFIED or DELETED for it).
    const node = nodeNameOf(obj);
    const before = prev === undefined ? node : nodeNameOf(prev);
    const onNode = this.byNode.get(node);
    if (onNode) this.offer(onNode, ev);
    const wasOn = before !== node ? this.byNode.get(before) : undefined;
    if (wasOn) this.offer(wasOn, ev);
  }

  private takeWritten(e: WatchEvent): Unstructured | undefined {
    const hint = this.written.get(e.kv.key);
    if (!hint) return undefined;
    if (e.type === 'delete') { this.written.delete(e.kv.key); return undefined; }
    // Another writer's earlier event: the hint waits for its own.
    if (hint.value !== e.kv.value) return undefined;
    this.written.delete(e.kv.key);
    // A stored object always has metadata; its resourceVersion is the write's revision.
    const meta = hint.obj.metadata as { resourceVersion?: string };
    meta.resourceVersion = String(e.kv.modRevision);
    // The event is offered to watchers now, before the writer's answer is made: its JSON is the
    // stored value with the revision spliced in (stored-json.ts) when resourceVersion is metadata's
    // last member, as the writer's answer would seed it, instead of a second JSON.stringify of the object.
    // On etcd the writer's answer usually comes first and has seeded the text already.
    if (!hasRenderedJSON(hint.obj) && lastMember(meta) === 'resourceVersion') {
      const json = withResourceVersion(hint.value, meta.resourceVersion);
      if (json !== undefined) seedRenderedJSON(hint.obj, json);
    }
    return hint.obj;
  }

  private offer(watchers: Set<CacheWatcher>, ev: CachedEvent): void {
    for (const w of watchers) {
      // One watcher's failure must not cost the others (or the cache) this event.
      try {
        deliver(w, ev);
      } catch (err) {
        this.logger?.error('watch cache: a watcher failed to take an event', { prefix: this.prefix, err: (err as Error).message });
      }
    }
  }

  private endWatchers(err?: Error): void {
    const all = [...this.watchers];
    this.watchers.clear();
    this.unindexed.clear();
    this.byNode.clear();
    for (const w of all) w.onEnd(err);
  }

  private readyResolved = false;

  private newReadiness(): void {
    this.readyResolved = false;
    this.ready = new Promise((resolve) => { this.markReady = () => { this.readyResolved = true; resolve(); }; });
  }
}

/** A DELETED event's object: the last version, at the delete's revision (as decoding etcd's prev_kv gave it). */
function deletedAt(prev: Unstructured, revision: number): Unstructured {
  return { ...prev, metadata: { ...prev.metadata, resourceVersion: String(revision) } };
}

/** One event to one watcher, as its selection sees it (upstream's cacheWatcher.convertToWatchEvent). */
function deliver(w: CacheWatcher, ev: CachedEvent): void {
  if (ev.revision <= w.after || !ev.key.startsWith(w.prefix)) return;
  w.after = ev.revision;
  const sel = w.selection;
  if (ev.type === 'delete') {
    if (sel.everything || sel.matches(ev.obj)) w.send({ type: 'DELETED', object: ev.obj });
    return;
  }
  if (sel.everything) {
    w.send({ type: ev.prev === undefined ? 'ADDED' : 'MODIFIED', object: ev.obj });
    return;
  }
  const now = sel.matches(ev.obj);
  const before = ev.prev !== undefined && sel.matches(ev.prev);
  if (now && before) w.send({ type: 'MODIFIED', object: ev.obj });
  else if (now) w.send({ type: 'ADDED', object: ev.obj });
  else if (before) w.send({ type: 'DELETED', object: ev.obj });
}

