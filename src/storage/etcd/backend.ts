/**
 * The Backend contract (../backend.ts) on etcd's v3 API, the way upstream's
 * k8s.io/apiserver/pkg/storage/etcd3 store uses it:
 * - create = Txn(If CreateRevision(key) == 0, Then Put); update = Txn(If ModRevision(key) ==
 *   expected, Then Put and a keys-only Get for the create revision, Else Get); delete = the same
 *   with Delete with prev_kv; so a lost guard answers with the current value in the same round trip;
 * - every write's revision is its Txn header's; reads at a revision are Range at that revision;
 * - etcd acknowledges a write after its raft commit and fsync, so a SIGKILL of k8ts loses nothing
 *   acknowledged, and several k8ts servers on one etcd share one store, revisions and watches;
 * - keys are upstream's in etcd (/registry/pods/..., ./key-layout.ts) and the registry's outside:
 *   every key and prefix going in is mapped, every key coming out (a get's, a list's, a watch
 *   event's) mapped back.
 *
 * etcd does not report its compacted revision. compactedRevision() finds it: reads are
 * refused exactly below it, so it is the oldest revision a Range still answers at, searched
 * from the highest one this process knows of (its own compactions, compaction answers of
 * watches). Nothing in the API server calls it on a hot path.
 */
import { readFileSync } from 'node:fs';
import {
  CompactedError, type Backend, type KeyValue, type ListOptions, type ListResult, type Watcher,
  type WatchOptions, type WriteResult,
} from '../backend.js';
import { BackendClosedError } from '../backend.js';
import type { StorageLogger } from '../backend.js';
import { startAutoCompaction } from './auto-compaction.js';
import type { EtcdClient, GuardedWrite, RangeRequest, RangeResult, TxnResult } from './client.js';
import { threadClient } from './thread-client.js';
import { poolClient } from './pool-client.js';
import { isCompactedError, isFutureRevisionError } from './errors.js';
import { etcdKeyLayout, normalizePrefix, REGISTRY_ROOT, type EtcdKeyLayout } from './key-layout.js';
import { prefixRange } from './keys.js';
import { migrateKeyLayout, type LayoutMigration } from './layout-migration.js';
import { defaultCompactIntervalMs, resolveLogger, type EtcdBackendOptions } from './options.js';
import { watchEtcd } from './watch.js';

/** A key no object uses, for reads that only want the header (upstream's compactor uses it too). */
const REVISION_PROBE_KEY = Buffer.from('compact_rev_key');

/** Connects lazily: the first call reaches the servers (see ping()). */
export function openEtcdBackend(opts: EtcdBackendOptions): EtcdBackend {
  const root = normalizePrefix(opts.prefix ?? REGISTRY_ROOT);
  // --etcd-prefix=/ puts objects at the top (/pods/...), as upstream's path.Join("/", "/", key).
  const layout = etcdKeyLayout(root === '/' ? '' : root);
  return new EtcdBackend(openClient(opts), opts.compactIntervalMs ?? defaultCompactIntervalMs, resolveLogger(opts), layout);
}

/**
 * One server: the channel client (gRPC on node:http2, the request path's fast lane) on a thread of
 * its own, off the serving loop (./thread-client.ts). Several: the etcd3 pool, whose host selection
 * and failover are the point there.
 */
function openClient(opts: EtcdBackendOptions): EtcdClient {
  if (opts.servers.length === 0) throw new Error('--etcd-servers must name at least one server');
  if (opts.servers.length > 1) return poolClient(opts);
  if ((opts.certFile || opts.keyFile) && !(opts.certFile && opts.keyFile)) {
    throw new Error('--etcd-certfile and --etcd-keyfile must be given together');
  }
  return threadClient({
    url: opts.servers[0],
    ca: opts.caFile ? readFileSync(opts.caFile) : undefined,
    cert: opts.certFile ? readFileSync(opts.certFile) : undefined,
    key: opts.keyFile ? readFileSync(opts.keyFile) : undefined,
  });
}

export class EtcdBackend implements Backend {
  private closed = false;
  private knownCompacted = 0;
  private readonly watchers = new Set<Watcher>();
  private readonly stopCompaction: () => void;

  constructor(
    private readonly client: EtcdClient, compactIntervalMs: number, private readonly logger: StorageLogger,
    private readonly layout: EtcdKeyLayout = etcdKeyLayout(),
  ) {
    this.stopCompaction = startAutoCompaction(this, compactIntervalMs, logger);
  }

  /**
   * Moves objects a k8ts before upstream's key layout wrote (/registry/core/pods/...) to their
   * keys now; run once at start, before serving. See ./layout-migration.ts.
   */
  migrateKeyLayout(): Promise<LayoutMigration> {
    return migrateKeyLayout(this.open(), this.layout.root, this.logger);
  }

  /** One round trip; rejects when no server answers (startup checks etcd with it, as /readyz's etcd check does upstream). */
  async ping(): Promise<void> {
    await this.currentRevision();
  }

  async currentRevision(): Promise<number> {
    return (await this.range({ key: REVISION_PROBE_KEY, countOnly: true })).revision;
  }

  async compactedRevision(): Promise<number> {
    const current = await this.currentRevision();
    let lo = Math.max(this.knownCompacted, 1);
    if (await this.readableAt(lo)) return this.knownCompacted;
    // The oldest readable revision lies in (lo, current]: reads are refused exactly below it.
    let hi = current;
    while (lo + 1 < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (await this.readableAt(mid)) hi = mid; else lo = mid;
    }
    this.learnCompacted(hi);
    return hi;
  }

  async get(key: string, opts?: { revision?: number }): Promise<{ kv?: KeyValue; revision: number }> {
    const { res, revision } = await this.rangeAt({ key: Buffer.from(this.layout.toEtcd(key)) }, opts?.revision);
    const kv = res.kvs[0];
    if (!kv) return { revision };
    kv.key = key;
    return { kv, revision };
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : 0;
    const { key, range_end: rangeEnd } = this.etcdRange(prefix, opts.startKey);
    const { res, revision } = await this.rangeAt({ key, rangeEnd, limit }, opts.revision);
    for (const kv of res.kvs) kv.key = this.layout.fromEtcd(kv.key);
    return { kvs: res.kvs, revision, more: res.more, count: res.count };
  }

  async count(prefix: string, opts: Pick<ListOptions, 'revision' | 'startKey'> = {}): Promise<number> {
    const { key, range_end: rangeEnd } = this.etcdRange(prefix, opts.startKey);
    const { res } = await this.rangeAt({ key, rangeEnd, countOnly: true }, opts.revision);
    return res.count;
  }

  /** One Txn, no read: If CreateRevision(key) == 0 Then Put Else Get. */
  async create(key: string, value: string): Promise<WriteResult> {
    const res = await this.txn({ key: this.layout.toEtcd(key), guard: 'create', revision: 0, put: { value, prevKv: false } });
    if (!res.succeeded) return this.lost(res, key);
    return { ok: true, kv: { key, value, createRevision: res.revision, modRevision: res.revision } };
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<WriteResult> {
    if (expectedModRevision <= 0) return this.refuse(key);
    // The key's create revision, not its previous value: a keys-only Range after the Put (./wire/messages.ts).
    const res = await this.txn({ key: this.layout.toEtcd(key), guard: 'mod', revision: expectedModRevision, put: { value, prevKv: false, createRevision: true } });
    if (!res.succeeded) return this.lost(res, key);
    const after = res.kvs[0];
    if (!after) throw new Error(`etcd answered an update of ${key} without the key`);
    return { ok: true, kv: { key, value, createRevision: after.createRevision, modRevision: res.revision } };
  }

  async delete(key: string, expectedModRevision: number): Promise<WriteResult> {
    if (expectedModRevision <= 0) return this.refuse(key);
    const res = await this.txn({ key: this.layout.toEtcd(key), guard: 'mod', revision: expectedModRevision });
    if (!res.succeeded) return this.lost(res, key);
    const prev = res.kvs[0];
    if (!prev) throw new Error(`etcd answered a delete of ${key} without its previous value`);
    return { ok: true, kv: { ...prev, key, modRevision: res.revision } };
  }

  watch(prefix: string, opts: WatchOptions): Watcher {
    if (this.closed) {
      let cancelled = false;
      queueMicrotask(() => cancelled || opts.onError?.(new BackendClosedError()));
      return { close: () => { cancelled = true; } };
    }
    // A watch from below what is known compacted fails at once, as SQLite's does.
    if (opts.fromRevision < this.knownCompacted) {
      const err = new CompactedError(opts.fromRevision, this.knownCompacted);
      let cancelled = false;
      queueMicrotask(() => cancelled || opts.onError?.(err));
      return { close: () => { cancelled = true; } };
    }
    const w = watchEtcd(this.open(), this.layout, prefix, {
      ...opts,
      onError: (err) => { this.watchers.delete(w); opts.onError?.(err); },
    }, this.logger, (rev) => this.learnCompacted(rev));
    const tracked: Watcher = { close: () => { this.watchers.delete(tracked); w.close(); } };
    this.watchers.add(tracked);
    return tracked;
  }

  /** Compacting beyond the current revision compacts to the current revision; never backwards. */
  async compact(revision: number): Promise<void> {
    const target = Math.min(revision, await this.currentRevision());
    if (target <= this.knownCompacted) return;
    try {
      await this.open().compact(target);
    } catch (err) {
      // Another server (or an earlier call) compacted at or past it already.
      if (!isCompactedError(err)) throw err;
    }
    this.learnCompacted(target);
  }

  /** Idempotent. Open watches end with BackendClosedError. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopCompaction();
    for (const w of this.watchers) w.close();
    this.watchers.clear();
    this.client.close();
  }

  private learnCompacted(revision: number): void {
    if (revision > this.knownCompacted) this.knownCompacted = revision;
  }

  private open(): EtcdClient {
    if (this.closed) throw new BackendClosedError();
    return this.client;
  }

  private range(req: RangeRequest): Promise<RangeResult> {
    return this.open().range(req);
  }

  private txn(write: GuardedWrite): Promise<TxnResult> {
    return this.open().txn(write);
  }

  /** ModRevision == 0 holds for a missing key, but no update or delete may expect that: lost, as any stale guard. */
  private async refuse(key: string): Promise<WriteResult> {
    const { kv } = await this.get(key);
    return kv ? { ok: false, current: kv } : { ok: false };
  }

  /** A lost guard: the failure branch's Get is the key's current value. */
  private lost(res: TxnResult, key: string): WriteResult {
    const kv = res.kvs[0];
    if (!kv) return { ok: false };
    kv.key = key;
    return { ok: false, current: kv };
  }

  /** The etcd range of the registry's `prefix`, from `startKey` (a registry key) on. */
  private etcdRange(prefix: string, startKey: string | undefined): { key: Buffer; range_end: Buffer } {
    return prefixRange(this.layout.prefixToEtcd(prefix), startKey === undefined ? undefined : this.layout.toEtcd(startKey));
  }

  /**
   * A Range at `requested` (0 or absent: the latest). A revision etcd has not reached is read
   * at the latest, as the contract says; one below compaction is CompactedError.
   */
  private async rangeAt(req: RangeRequest, requested?: number): Promise<{ res: RangeResult; revision: number }> {
    if (!requested) {
      const res = await this.range(req);
      return { res, revision: res.revision };
    }
    try {
      const res = await this.range({ ...req, revision: requested });
      return { res, revision: requested };
    } catch (err) {
      if (isFutureRevisionError(err)) return this.rangeAt(req);
      if (isCompactedError(err)) throw new CompactedError(requested, await this.compactedRevision());
      throw err;
    }
  }

  private async readableAt(revision: number): Promise<boolean> {
    try {
      await this.range({ key: REVISION_PROBE_KEY, countOnly: true, revision });
      return true;
    } catch (err) {
      if (isCompactedError(err)) return false;
      throw err;
    }
  }
}
