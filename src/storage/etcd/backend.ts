/**
 * The Backend contract (../backend.ts) on etcd's v3 API, the way upstream's
 * k8s.io/apiserver/pkg/storage/etcd3 store uses it:
 * - create = Txn(If CreateRevision(key) == 0, Then Put); update and delete =
 *   Txn(If ModRevision(key) == expected, Then Put/Delete with prev_kv, Else Get), so a lost
 *   guard answers with the current value in the same round trip;
 * - every write's revision is its Txn header's; reads at a revision are Range at that revision;
 * - etcd acknowledges a write after its raft commit and fsync, so a SIGKILL of k8ts loses nothing
 *   acknowledged, and several k8ts servers on one etcd share one store, revisions and watches.
 *
 * etcd does not report its compacted revision. compactedRevision() finds it: reads are
 * refused exactly below it, so it is the oldest revision a Range still answers at, searched
 * from the highest one this process knows of (its own compactions, compaction answers of
 * watches). Nothing in the API server calls it on a hot path.
 */
import type { Etcd3, IRangeRequest, IRangeResponse, ITxnResponse } from 'etcd3';
import {
  CompactedError, type Backend, type KeyValue, type ListOptions, type ListResult, type Watcher,
  type WatchOptions, type WriteResult,
} from '../backend.js';
import { BackendClosedError } from '../backend.js';
import type { StorageLogger } from '../backend.js';
import { startAutoCompaction } from './auto-compaction.js';
import { isCompactedError, isFutureRevisionError } from './errors.js';
import { prefixRange, toKeyValue } from './keys.js';
import { createClient, defaultCompactIntervalMs, resolveLogger, type EtcdBackendOptions } from './options.js';
import { watchEtcd } from './watch.js';
import { directKv, type KvCalls } from './direct-kv.js';

/** A key no object uses, for reads that only want the header (upstream's compactor uses it too). */
const REVISION_PROBE_KEY = Buffer.from('compact_rev_key');

/** Connects lazily: the first call reaches the servers (see ping()). */
export function openEtcdBackend(opts: EtcdBackendOptions): EtcdBackend {
  const client = createClient(opts);
  return new EtcdBackend(client, opts.compactIntervalMs ?? defaultCompactIntervalMs, resolveLogger(opts), directKv(client, opts.servers.length));
}

export class EtcdBackend implements Backend {
  private closed = false;
  private knownCompacted = 0;
  private readonly watchers = new Set<Watcher>();
  private readonly stopCompaction: () => void;

  private readonly kv: KvCalls;

  constructor(private readonly client: Etcd3, compactIntervalMs: number, private readonly logger: StorageLogger, kv?: KvCalls) {
    this.kv = kv ?? { txn: (req) => client.kv.txn(req), range: (req) => client.kv.range(req) };
    this.stopCompaction = startAutoCompaction(this, compactIntervalMs, logger);
  }

  /** One round trip; rejects when no server answers (startup checks etcd with it, as /readyz's etcd check does upstream). */
  async ping(): Promise<void> {
    await this.currentRevision();
  }

  async currentRevision(): Promise<number> {
    const res = await this.range({ key: REVISION_PROBE_KEY, count_only: true });
    return Number(res.header.revision);
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
    const { res, revision } = await this.rangeAt({ key: Buffer.from(key) }, opts?.revision);
    const kv = res.kvs[0];
    return kv ? { kv: toKeyValue(kv), revision } : { revision };
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : 0;
    const { res, revision } = await this.rangeAt({ ...prefixRange(prefix, opts.startKey), limit }, opts.revision);
    return { kvs: res.kvs.map(toKeyValue), revision, more: res.more };
  }

  async count(prefix: string, opts: Pick<ListOptions, 'revision' | 'startKey'> = {}): Promise<number> {
    const { res } = await this.rangeAt({ ...prefixRange(prefix, opts.startKey), count_only: true }, opts.revision);
    return Number(res.count);
  }

  async create(key: string, value: string): Promise<WriteResult> {
    const k = Buffer.from(key);
    const res = await this.txn({
      compare: [{ key: k, target: 'Create', result: 'Equal', create_revision: 0 }],
      success: [{ request_put: { key: k, value: Buffer.from(value) } }],
      failure: [{ request_range: { key: k } }],
    });
    if (!res.succeeded) return this.lost(res);
    const revision = Number(res.header.revision);
    return { ok: true, kv: { key, value, createRevision: revision, modRevision: revision } };
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<WriteResult> {
    if (expectedModRevision <= 0) return this.refuse(key);
    const k = Buffer.from(key);
    const res = await this.txn({
      compare: [{ key: k, target: 'Mod', result: 'Equal', mod_revision: expectedModRevision }],
      success: [{ request_put: { key: k, value: Buffer.from(value), prev_kv: true } }],
      failure: [{ request_range: { key: k } }],
    });
    if (!res.succeeded) return this.lost(res);
    const prev = res.responses[0].response_put.prev_kv;
    return { ok: true, kv: { key, value, createRevision: Number(prev.create_revision), modRevision: Number(res.header.revision) } };
  }

  async delete(key: string, expectedModRevision: number): Promise<WriteResult> {
    if (expectedModRevision <= 0) return this.refuse(key);
    const k = Buffer.from(key);
    const res = await this.txn({
      compare: [{ key: k, target: 'Mod', result: 'Equal', mod_revision: expectedModRevision }],
      success: [{ request_delete_range: { key: k, prev_kv: true } }],
      failure: [{ request_range: { key: k } }],
    });
    if (!res.succeeded) return this.lost(res);
    const prev = res.responses[0].response_delete_range.prev_kvs[0];
    return { ok: true, kv: { ...toKeyValue(prev), modRevision: Number(res.header.revision) } };
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
    const w = watchEtcd(this.client, prefix, {
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
      await this.open().kv.compact({ revision: target, physical: false });
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

  private open(): Etcd3 {
    if (this.closed) throw new BackendClosedError();
    return this.client;
  }

  private range(req: IRangeRequest): Promise<IRangeResponse> {
    this.open();
    return this.kv.range(req);
  }

  private async txn(req: Parameters<Etcd3['kv']['txn']>[0]): Promise<ITxnResponse> {
    this.open();
    return this.kv.txn(req);
  }

  /** ModRevision == 0 holds for a missing key, but no update or delete may expect that: lost, as any stale guard. */
  private async refuse(key: string): Promise<WriteResult> {
    const { kv } = await this.get(key);
    return kv ? { ok: false, current: kv } : { ok: false };
  }

  /** A lost guard: the failure branch's Get is the key's current value. */
  private lost(res: ITxnResponse): WriteResult {
    const kv = res.responses[0]?.response_range?.kvs[0];
    return kv ? { ok: false, current: toKeyValue(kv) } : { ok: false };
  }

  /**
   * A Range at `requested` (0 or absent: the latest). A revision etcd has not reached is read
   * at the latest, as the contract says; one below compaction is CompactedError.
   */
  private async rangeAt(req: IRangeRequest, requested?: number): Promise<{ res: IRangeResponse; revision: number }> {
    if (!requested) {
      const res = await this.range(req);
      return { res, revision: Number(res.header.revision) };
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
      await this.range({ key: REVISION_PROBE_KEY, count_only: true, revision });
      return true;
    } catch (err) {
      if (isCompactedError(err)) return false;
      throw err;
    }
  }
}
