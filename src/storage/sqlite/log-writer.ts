/**
 * Guarded writes: each appends one kv_log row and keeps kv_current in step, in its own IMMEDIATE
 * transaction, or as part of a batch (group commit: many writes, one commit, one fsync). Either
 * way the transaction is synchronous and has committed before the caller sees the result; group
 * commit makes it durable before anyone is told (group-commit.ts).
 *
 * This process is assumed to be the only writer: the revision counter lives in memory (loaded
 * from sqlite_sequence at open) and watch events are published from here.
 */
import type Database from 'better-sqlite3';
import type { KeyValue, WatchEvent, WriteResult } from '../backend.js';
import type { LogReader } from './log-reader.js';
import { toKeyValue, toWatchEvent, type LogRow } from './rows.js';

export interface WriteOutcome {
  result: WriteResult;
  /** The event to publish to watchers, when the write happened. */
  event?: WatchEvent;
}

/** The row to append given the key's live value and the new row's id, or undefined: the guard failed. */
type Plan = (current: KeyValue | undefined, id: number) => Omit<LogRow, 'id' | 'name'> | undefined;

/** How a write reads the key's live value before planning (by default, the reader's latest). */
type Lookup = (key: string) => KeyValue | undefined;

type Appended = { row: LogRow } | { conflict: KeyValue | undefined };

/** A write of a batch threw on the fast path: the batch is rolled back and run again, a savepoint each. */
class WriteThrew extends Error {}

/** One write of a batch: what it did, or the error that undid it alone. */
export type BatchResult = { outcome: WriteOutcome } | { error: unknown };

export class LogWriter {
  private revision: number;
  /** How a write appends: its own transaction, or inside the batch running now. */
  private appendTx: (key: string, plan: Plan, lookup?: Lookup) => Appended;
  private readonly ownTx: (key: string, plan: Plan, lookup?: Lookup) => Appended;
  private readonly plainAppend: (key: string, plan: Plan, lookup?: Lookup) => Appended;
  private readonly nestedTx: (key: string, plan: Plan, lookup?: Lookup) => Appended;
  private readonly batchTx: (writes: Array<() => WriteOutcome>) => BatchResult[];
  private readonly savepointBatchTx: (writes: Array<() => WriteOutcome>) => BatchResult[];

  constructor(db: Database.Database, private readonly reader: LogReader) {
    // AUTOINCREMENT keeps the highest id ever used here, so revisions continue after a restart
    // even when compaction deleted the newest rows.
    this.revision = db.prepare<[], number>(
      "SELECT seq FROM sqlite_sequence WHERE name = 'kv_log'").pluck().get() ?? 0;
    // Positional parameters: better-sqlite3 binds a named one by making its name a JavaScript
    // string and reading it off the row object, seven times a write.
    const insert = db.prepare<[number, string, number, number, number, number, string]>(
      `INSERT INTO kv_log (id, name, created, deleted, create_revision, prev_revision, value)
       VALUES (?, ?, ?, ?, ?, ?, ?)`);
    const setCurrent = db.prepare<[string, number]>(
      'INSERT INTO kv_current (name, id) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET id = excluded.id');
    const dropCurrent = db.prepare<[string]>('DELETE FROM kv_current WHERE name = ?');
    this.plainAppend = (key: string, plan: Plan, lookup?: Lookup): Appended => {
      const current = lookup ? lookup(key) : this.reader.latest(key);
      // The id is chosen here rather than by SQLite so a create can record it as create_revision.
      const fields = plan(current, this.revision + 1);
      if (!fields) return { conflict: current };
      const row: LogRow = { id: this.revision + 1, name: key, ...fields };
      insert.run(row.id, row.name, row.created, row.deleted, row.create_revision, row.prev_revision, row.value);
      if (row.deleted) dropCurrent.run(key);
      else setCurrent.run(key, row.id);
      // Advanced at once: the next write of the same batch takes the next id.
      this.revision = row.id;
      return { row };
    };
    const tx = db.transaction(this.plainAppend);
    this.ownTx = tx.immediate;
    // Called inside a transaction, a better-sqlite3 transaction function runs as a savepoint.
    this.nestedTx = tx;
    this.appendTx = this.ownTx;
    // The fast path: the writes of a batch share the one transaction with no savepoint each (two
    // statements fewer per write). A write that throws (a constraint, a full disk) rolls the whole
    // batch back, and it runs again the careful way below.
    this.batchTx = db.transaction((writes: Array<() => WriteOutcome>) => writes.map((write): BatchResult => {
      try {
        return { outcome: write() };
      } catch (error) {
        throw new WriteThrew('a write of the batch threw', { cause: error });
      }
    })).immediate;
    // Each append in a savepoint, so a write that throws is rolled back alone and the others still commit.
    this.savepointBatchTx = db.transaction((writes: Array<() => WriteOutcome>) => writes.map((write): BatchResult => {
      try {
        return { outcome: write() };
      } catch (error) {
        return { error };
      }
    })).immediate;
  }

  /**
   * Runs `writes` (calls of create/update/delete) in one IMMEDIATE transaction: one commit and one
   * fsync for all of them, each still guarded and given its own revision, in order. If the commit
   * itself fails, nothing was written and it throws; the revision counter is put back.
   */
  batch(writes: Array<() => WriteOutcome>): BatchResult[] {
    const before = this.revision;
    try {
      return this.inBatch(this.plainAppend, () => this.batchTx(writes));
    } catch (err) {
      this.revision = before;
      if (!(err instanceof WriteThrew)) throw err;
    }
    try {
      return this.inBatch(this.nestedTx, () => this.savepointBatchTx(writes));
    } catch (err) {
      this.revision = before;
      throw err;
    }
  }

  private inBatch<T>(append: (key: string, plan: Plan, lookup?: Lookup) => Appended, run: () => T): T {
    this.appendTx = append;
    try {
      return run();
    } finally {
      this.appendTx = this.ownTx;
    }
  }

  /** The revision of the last write. */
  get currentRevision(): number {
    return this.revision;
  }

  create(key: string, value: string): WriteOutcome {
    // After a delete the new row continues the key's chain from the tombstone.
    let prevRevision = 0;
    return this.append(key, (current, id) => current ? undefined : {
      created: 1, deleted: 0, create_revision: id, prev_revision: prevRevision, value, prev_value: null,
    }, (k) => {
      // A key without any row (nearly every create) has no live value either (a live value's row is
      // never compacted): one index seek instead of two.
      prevRevision = this.reader.latestRowId(k);
      return prevRevision === 0 ? undefined : this.reader.latest(k);
    });
  }

  update(key: string, value: string, expectedModRevision: number): WriteOutcome {
    return this.append(key, (current) => current?.modRevision !== expectedModRevision ? undefined : {
      created: 0, deleted: 0, create_revision: current.createRevision,
      prev_revision: current.modRevision, value, prev_value: current.value,
    });
  }

  /** The tombstone keeps the last value: it is the delete event's kv and prevKv. */
  delete(key: string, expectedModRevision: number): WriteOutcome {
    return this.append(key, (current) => current?.modRevision !== expectedModRevision ? undefined : {
      created: 0, deleted: 1, create_revision: current.createRevision,
      prev_revision: current.modRevision, value: current.value, prev_value: current.value,
    });
  }

  private append(key: string, plan: Plan, lookup?: Lookup): WriteOutcome {
    const before = this.revision;
    let appended: Appended;
    try {
      appended = this.appendTx(key, plan, lookup);
    } catch (err) {
      // Rolled back (its own transaction or its savepoint): its revision was not used.
      this.revision = before;
      throw err;
    }
    if ('conflict' in appended) {
      const current = appended.conflict;
      return { result: current ? { ok: false, current } : { ok: false } };
    }
    return { result: { ok: true, kv: toKeyValue(appended.row) }, event: toWatchEvent(appended.row) };
  }
}
