/**
 * The Backend contract (../backend.ts) on embedded SQLite, kine-style.
 *
 * Everything underneath is synchronous better-sqlite3. Writes are group-committed: those requested
 * in one turn of the event loop share a transaction, and an fsync on the thread pool makes them
 * durable (group-commit.ts, wal-sync.ts); a write's promise settles, and its watch event is
 * published, after that fsync. Reads are answered at once from committed data.
 */
import type Database from 'better-sqlite3';
import {
  CompactedError, type Backend, type KeyValue, type ListOptions, type ListResult, type Watcher,
  type WatchOptions, type WriteResult,
} from '../backend.js';
import { AutoCompactor } from './auto-compaction.js';
import { Checkpointer } from './checkpointer.js';
import { Compactor } from './compaction.js';
import { GroupCommit } from './group-commit.js';
import { BackendClosedError } from '../backend.js';
import { keyRange } from './key-range.js';
import { LogReader, NO_LIMIT } from './log-reader.js';
import { LogWriter } from './log-writer.js';
import { resolveOptions, type SqliteBackendOptions } from './options.js';
import { openDatabase } from './schema.js';
import { WalSync } from './wal-sync.js';
import { WatchHub } from './watch-hub.js';

/** Opens (creating if needed) the store at `path`; ":memory:" gives a private in-memory store. */
export function openSqliteBackend(path: string, opts?: SqliteBackendOptions): Backend {
  const options = resolveOptions(opts);
  const db = openDatabase(path);
  const reader = new LogReader(db);
  const writer = new LogWriter(db, reader);
  const compactor = new Compactor(db);
  // Watches replay and go live at the revision whose events have been published (the durable one),
  // so a write committed but still waiting for its fsync reaches a new watcher exactly once, live.
  const late: { commits?: GroupCommit } = {};
  const hub = new WatchHub({
    currentRevision: () => late.commits!.durableRevision,
    compactedRevision: () => compactor.compactedRevision,
    changes: (range, after, until, limit) => reader.changes(range, after, until, limit),
  }, options.logger);
  const auto = new AutoCompactor(db, compactor, () => writer.currentRevision, options);
  auto.start();
  // WAL checkpoints run on a thread of their own (checkpointer.ts), not inside a commit on this one.
  let checkpointer: Checkpointer | undefined;
  if (path !== ':memory:') {
    db.pragma('wal_autocheckpoint = 0');
    checkpointer = new Checkpointer(path, () => commits.hold(), () => db.pragma('wal_autocheckpoint = 1000'), options.logger, options.checkpoints);
  }
  const commits = late.commits = new GroupCommit(writer, new WalSync(path === ':memory:' ? undefined : `${path}-wal`), (event) => hub.publish(event),
    () => checkpointer?.durable());
  return new SqliteBackend({ db, reader, writer, compactor, auto, hub, commits, checkpointer });
}

interface Parts {
  db: Database.Database;
  reader: LogReader;
  writer: LogWriter;
  compactor: Compactor;
  auto: AutoCompactor;
  hub: WatchHub;
  commits: GroupCommit;
  checkpointer?: Checkpointer;
}

const closedWrite = (): Promise<WriteResult> => Promise.reject(new BackendClosedError());

class SqliteBackend implements Backend {
  private closed = false;

  constructor(private readonly parts: Parts) {}

  async currentRevision(): Promise<number> {
    return this.open().writer.currentRevision;
  }

  async compactedRevision(): Promise<number> {
    return this.open().compactor.compactedRevision;
  }

  async get(key: string, opts?: { revision?: number }): Promise<{ kv?: KeyValue; revision: number }> {
    const { reader, writer } = this.open();
    const revision = this.readRevision(opts?.revision);
    const kv = revision === writer.currentRevision ? reader.latest(key) : reader.at(key, revision);
    return kv ? { kv, revision } : { revision };
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const { reader, writer } = this.open();
    const revision = this.readRevision(opts.revision);
    const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : undefined;
    const range = keyRange(prefix, opts.startKey);
    // One row past the limit tells whether more remain.
    const sqlLimit = limit === undefined ? NO_LIMIT : limit + 1;
    const kvs = revision === writer.currentRevision
      ? reader.listLatest(range, sqlLimit)
      : reader.listAt(range, revision, sqlLimit);
    const more = limit !== undefined && kvs.length > limit;
    if (more) kvs.length = limit;
    return { kvs, revision, more };
  }

  async count(prefix: string, opts: Pick<ListOptions, 'revision' | 'startKey'> = {}): Promise<number> {
    const { reader, writer } = this.open();
    const revision = this.readRevision(opts.revision);
    const range = keyRange(prefix, opts.startKey);
    return revision === writer.currentRevision ? reader.countLatest(range) : reader.countAt(range, revision);
  }

  // The writes are not async functions: one returning the group commit's promise would wrap it in
  // another, and resolving a promise with a promise costs two more microtask turns a write. A
  // closed backend still answers with a rejected promise, as the async functions did.
  create(key: string, value: string): Promise<WriteResult> {
    const parts = this.writable(key.length + value.length);
    if (!parts) return closedWrite();
    const { writer } = parts;
    return parts.commits.submit(() => writer.create(key, value));
  }

  update(key: string, value: string, expectedModRevision: number): Promise<WriteResult> {
    const parts = this.writable(key.length + value.length);
    if (!parts) return closedWrite();
    const { writer } = parts;
    return parts.commits.submit(() => writer.update(key, value, expectedModRevision));
  }

  delete(key: string, expectedModRevision: number): Promise<WriteResult> {
    // A tombstone row repeats the last value (log-writer.ts); its length is not known here.
    const parts = this.writable(key.length);
    if (!parts) return closedWrite();
    const { writer } = parts;
    return parts.commits.submit(() => writer.delete(key, expectedModRevision));
  }

  /** The parts a write goes through, its bytes counted for the checkpointer; undefined once closed. */
  private writable(bytes: number): Parts | undefined {
    if (this.closed) return undefined;
    this.parts.checkpointer?.wrote(bytes);
    return this.parts;
  }

  /** On a closed backend the watch fails asynchronously with BackendClosedError, like every other call. */
  watch(prefix: string, opts: WatchOptions): Watcher {
    if (!this.closed) return this.parts.hub.watch(prefix, opts);
    let cancelled = false;
    queueMicrotask(() => cancelled || opts.onError?.(new BackendClosedError()));
    return { close: () => { cancelled = true; } };
  }

  /** Compacting beyond the current revision compacts to the current revision. */
  async compact(revision: number): Promise<void> {
    const { compactor, writer } = this.open();
    await compactor.compact(Math.min(revision, writer.currentRevision));
  }

  /**
   * Idempotent. Writes already requested are committed first. Open watches end with
   * BackendClosedError after the events already queued for them.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const { auto, compactor, hub, db, commits, checkpointer } = this.parts;
    // The checkpointer's connection closes first (after a checkpoint in progress, which may hold
    // commits): the serving connection, closing last, checkpoints the rest and removes the WAL.
    await checkpointer?.close();
    await commits.close();
    auto.stop();
    compactor.close();
    hub.failAll(new BackendClosedError());
    // Lets SQLite refresh its planner statistics where they matter; cheap, per the SQLite docs.
    db.pragma('optimize');
    db.close();
  }

  private open(): Parts {
    if (this.closed) throw new BackendClosedError();
    return this.parts;
  }

  /**
   * The revision a read runs at: the latest when none (or a future one) is asked for; an older
   * one unless compaction removed it. Reading at the compacted revision itself is fine: each key's
   * value there was kept.
   */
  private readRevision(requested: number | undefined): number {
    const current = this.parts.writer.currentRevision;
    if (!requested || requested >= current) return current;
    const compacted = this.parts.compactor.compactedRevision;
    if (requested < compacted) throw new CompactedError(requested, compacted);
    return requested;
  }
}
