/**
 * The storage watch that feeds every resource's watch cache: one watch of the whole keyspace,
 * its events handed to the cache whose key prefix holds them, in revision order.
 *
 * Why one watch and not one per resource (upstream's cacher has one each): a consistent read
 * must know that a cache has seen every write up to storage's current revision, also when the
 * last writes were to other resources. Upstream learns that from etcd's progress notifications
 * (RequestWatchProgress); here the feed's own position says it, on SQLite and etcd alike:
 * once the feed has dispatched revision R, every cache holds every write up to R.
 *
 * Contract:
 *  - `revision`: every event at or below it has been handed to its cache.
 *  - A cache that joins (register) is told the revision to list its prefix at; events after it
 *    reach the cache through `apply` (buffered by the cache until its list is in).
 *  - When the storage watch ends (compacted behind a slow feed, etcd restarted) every cache is
 *    reset (its watchers end, clients watch again) and listed anew from a fresh watch.
 */
import type { Backend, WatchEvent, Watcher } from '../../storage/backend.js';
import { BackendClosedError } from '../../storage/backend.js';
import type { Logger } from '../../util/log.js';
import { setLongTimeout, type LongTimeout } from '../../util/long-timeout.js';

/** What the feed needs of a cache. */
export interface FeedMember {
  /** The key prefix of the resource (every namespace). */
  readonly prefix: string;
  /** (Re)starts the cache from a list of its prefix at `revision`. */
  restart(revision: number): void;
  apply(event: WatchEvent): void;
  /** Storage's watch ended: end every watcher (clients watch again). */
  reset(err: Error): void;
}

interface Waiter { revision: number; resolve(ok: boolean): void; timer: LongTimeout }

/** How long a failed storage watch waits before it is opened again. */
const rewatchDelayMs = 1000;

export class CacheFeed {
  private readonly members = new Map<string, FeedMember[]>();
  private watcher?: Watcher;
  private waiters: Waiter[] = [];
  private started?: Promise<void>;
  private closed = false;
  private timer?: NodeJS.Timeout;
  /** Every event at or below this revision has been dispatched. */
  revision = 0;

  constructor(private readonly backend: Backend, private readonly logger?: Logger) {}

  /** Opens the storage watch at the current revision (once; later calls share it). */
  start(): Promise<void> {
    this.started ??= this.open();
    return this.started;
  }

  /** A cache joins: it lists its prefix at the revision the feed has reached, then follows the feed. */
  async register(member: FeedMember): Promise<void> {
    await this.start();
    const list = this.members.get(member.prefix) ?? [];
    list.push(member);
    this.members.set(member.prefix, list);
    member.restart(this.revision);
  }

  unregister(member: FeedMember): void {
    const list = this.members.get(member.prefix)?.filter((m) => m !== member);
    if (list?.length) this.members.set(member.prefix, list); else this.members.delete(member.prefix);
  }

  /**
   * Resolves true once the feed has dispatched `revision`, false after `waitMs` without it
   * (the caller answers upstream's Too large resource version, or reads storage).
   */
  waitFor(revision: number, waitMs: number): Promise<boolean> {
    if (revision <= this.revision) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = { revision, resolve, timer: setLongTimeout(() => { this.dropWaiter(waiter); resolve(false); }, waitMs) };
      this.waiters.push(waiter);
    });
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.watcher?.close();
    for (const w of this.waiters) { w.timer.cancel(); w.resolve(false); }
    this.waiters = [];
  }

  private async open(): Promise<void> {
    const from = await this.backend.currentRevision();
    if (this.closed) return;
    this.revision = from;
    this.watcher = this.backend.watch('', {
      fromRevision: from,
      // Each cache holds the previous value of every key it follows (WatchCache.applyNow).
      prevKv: false,
      onEvents: (events) => this.dispatch(events),
      onError: (err) => this.ended(err),
    });
  }

  private dispatch(events: WatchEvent[]): void {
    for (const e of events) {
      const list = this.memberFor(e.kv.key);
      if (list) for (const m of list) m.apply(e);
    }
    this.revision = Math.max(this.revision, events[events.length - 1]?.kv.modRevision ?? 0);
    if (this.waiters.length) this.wakeWaiters();
  }

  /** The members of the resource a key belongs to: its prefix ends before the name (cluster-scoped) or the namespace. */
  private memberFor(key: string): FeedMember[] | undefined {
    const last = key.lastIndexOf('/');
    if (last <= 0) return undefined;
    return this.members.get(key.slice(0, last + 1)) ?? this.members.get(key.slice(0, key.lastIndexOf('/', last - 1) + 1));
  }

  private wakeWaiters(): void {
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.revision <= this.revision) { w.timer.cancel(); w.resolve(true); } else still.push(w);
    }
    this.waiters = still;
  }

  private dropWaiter(w: Waiter): void { this.waiters = this.waiters.filter((x) => x !== w); }

  /** The storage watch ended: every cache ends its watchers and starts again from a new watch. */
  private ended(err: Error): void {
    this.watcher = undefined;
    for (const list of this.members.values()) for (const m of list) m.reset(err);
    if (this.closed || err instanceof BackendClosedError) return;
    this.logger?.warn('watch cache: storage watch ended, listing again', { err: err.message, delayMs: rewatchDelayMs });
    this.timer = setTimeout(() => { this.reopen().catch((e) => this.ended(e as Error)); }, rewatchDelayMs);
    this.timer.unref();
  }

  private async reopen(): Promise<void> {
    await this.open();
    if (this.closed) return;
    for (const list of this.members.values()) for (const m of list) m.restart(this.revision);
  }
}
