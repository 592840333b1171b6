/**
 * Every read of the log: values at the latest or an older revision, counts, and the changes a
 * watch replays. Synchronous; the backend wraps these in promises.
 */
import type Database from 'better-sqlite3';
import type { KeyValue } from '../backend.js';
import type { KeyRange } from './key-range.js';
import { RangedStatement } from './ranged-statement.js';
import { KEY_VALUE_COLUMNS, type LogRow } from './rows.js';

/** SQLite's "no limit". */
export const NO_LIMIT = -1;

type HistoricRow = KeyValue & { deleted: number };

export class LogReader {
  private readonly latestStmt: Database.Statement<[string], KeyValue>;
  private readonly latestRowIdStmt: Database.Statement<[string], number>;
  private readonly atStmt: Database.Statement<[string, number], HistoricRow>;
  private readonly listLatestStmt: RangedStatement<KeyValue>;
  private readonly listAtStmt: RangedStatement<KeyValue>;
  private readonly countStmt: RangedStatement<number>;
  private readonly countAtStmt: RangedStatement<number>;
  private readonly changesStmt: RangedStatement<LogRow>;

  constructor(db: Database.Database) {
    // CROSS JOIN keeps kv_current as the outer loop, so rows come out in key order without a sort.
    this.latestStmt = db.prepare(
      `SELECT ${KEY_VALUE_COLUMNS} FROM kv_current c CROSS JOIN kv_log k ON k.id = c.id WHERE c.name = ?`);
    // A key's rows are ordered by prev_revision as well as by id (see schema.ts), so the unique
    // index finds the newest row, tombstones included, with one seek.
    this.latestRowIdStmt = db.prepare<[string], number>(
      'SELECT id FROM kv_log WHERE name = ? ORDER BY prev_revision DESC LIMIT 1').pluck();
    // The same index walked newest first: the first row at or below the revision is the one.
    this.atStmt = db.prepare(
      `SELECT ${KEY_VALUE_COLUMNS}, k.deleted FROM kv_log k
       WHERE k.name = ? AND k.id <= ? ORDER BY k.prev_revision DESC LIMIT 1`);
    this.listLatestStmt = new RangedStatement(db, 'c.name', (upper) =>
      `SELECT ${KEY_VALUE_COLUMNS} FROM kv_current c CROSS JOIN kv_log k ON k.id = c.id
       WHERE c.name >= @from ${upper} ORDER BY c.name LIMIT @limit`);
    // A row is the key's value at @rev when it is at or below @rev and its successor (the row
    // whose prev_revision is its id: one seek in the unique index) is not.
    this.listAtStmt = new RangedStatement(db, 'k.name', (upper) =>
      `SELECT ${KEY_VALUE_COLUMNS} FROM kv_log k
       WHERE k.name >= @from ${upper} AND k.id <= @rev AND k.deleted = 0
         AND NOT EXISTS (SELECT 1 FROM kv_log n
                         WHERE n.name = k.name AND n.prev_revision = k.id AND n.id <= @rev)
       ORDER BY k.name LIMIT @limit`);
    this.countStmt = new RangedStatement(db, 'c.name', (upper) =>
      `SELECT count(*) FROM kv_current c WHERE c.name >= @from ${upper}`);
    this.countAtStmt = new RangedStatement(db, 'k.name', (upper) =>
      `SELECT count(*) FROM kv_log k
       WHERE k.name >= @from ${upper} AND k.id <= @rev AND k.deleted = 0
         AND NOT EXISTS (SELECT 1 FROM kv_log n
                         WHERE n.name = k.name AND n.prev_revision = k.id AND n.id <= @rev)`);
    this.changesStmt = new RangedStatement(db, 'k.name', (upper) =>
      `SELECT k.*, p.value AS prev_value FROM kv_log k
       LEFT JOIN kv_log p ON p.id = k.prev_revision AND k.created = 0
       WHERE k.id > @after AND k.id <= @until AND k.name >= @from ${upper}
       ORDER BY k.id LIMIT @limit`);
  }

  /** The live value of `key`, if it exists. */
  latest(key: string): KeyValue | undefined {
    return this.latestStmt.get(key);
  }

  /** The id of the newest row of `key`, tombstones included; 0 when the log has none. */
  latestRowId(key: string): number {
    return this.latestRowIdStmt.get(key) ?? 0;
  }

  /** The value of `key` at `revision`, if it existed then. */
  at(key: string, revision: number): KeyValue | undefined {
    const row = this.atStmt.get(key, revision);
    if (!row || row.deleted) return undefined;
    const { deleted: _deleted, ...kv } = row;
    return kv;
  }

  listLatest(range: KeyRange, limit: number): KeyValue[] {
    return this.listLatestStmt.all(range, { limit });
  }

  listAt(range: KeyRange, revision: number, limit: number): KeyValue[] {
    return this.listAtStmt.all(range, { rev: revision, limit });
  }

  countLatest(range: KeyRange): number {
    return this.countStmt.pluck(range) as number;
  }

  /** The number of keys in the range that were live at `revision`. */
  countAt(range: KeyRange, revision: number): number {
    return this.countAtStmt.pluck(range, { rev: revision }) as number;
  }

  /** Rows in (after, until] under the range, in revision order: what a watch replays. */
  changes(range: KeyRange, after: number, until: number, limit: number): LogRow[] {
    return this.changesStmt.all(range, { after, until, limit });
  }
}
