/**
 * Opening the database: durability settings and the kine-style schema (shared/design.md, pattern 6).
 *
 * kv_log is append-only: every create, update and delete inserts one row, and the row id is the
 * revision. The unique index on (name, prev_revision) makes the database itself reject a second
 * write based on the same revision of a key: the guard in the writer checks first, and the index
 * is the backstop should anything else ever write to the file.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

// Required rather than imported: imported from an ES module, Node's loader first runs its CommonJS
// export lexer over the package's files (part of the start-up cost bench/startup.ts measures).
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

const SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE kv_log (
  -- AUTOINCREMENT: ids are never reused, even after compaction deleted the newest rows.
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  name            TEXT    NOT NULL,
  created         INTEGER NOT NULL,  -- 1: this row created the key
  deleted         INTEGER NOT NULL,  -- 1: tombstone; value holds the last value
  create_revision INTEGER NOT NULL,
  prev_revision   INTEGER NOT NULL,  -- id of the key's previous row, 0 if none
  value           TEXT    NOT NULL
  -- No old_value column (kine has one): a watch event's prevKv is the row at prev_revision, and
  -- that row outlives every event that needs it. Compaction at C deletes a row only when its
  -- successor is at or below C, and events at or below C can no longer be watched. So an update
  -- writes its value once, not twice.
);
-- Per key, prev_revision grows with id (each row points at the one before it), so this index
-- also orders a key's history: readers use it to find the latest row of a key.
CREATE UNIQUE INDEX kv_log_name_prev_revision ON kv_log (name, prev_revision);
-- The id of the latest row of every live key, maintained in the write transaction, so reads at
-- the latest revision are a range scan of this table instead of a "latest row per name" query.
CREATE TABLE kv_current (name TEXT PRIMARY KEY, id INTEGER NOT NULL) WITHOUT ROWID;
-- compact_revision: history at or below it is gone.
CREATE TABLE kv_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
-- Samples of (revision, time) taken by automatic compaction, to map the history window to a revision.
CREATE TABLE kv_revision_clock (revision INTEGER PRIMARY KEY, at INTEGER NOT NULL);
`;

export function openDatabase(path: string): BetterSqlite3.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const db = new Database(path);
  try {
    applyPragmas(db);
    migrate(db);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

function applyPragmas(db: BetterSqlite3.Database): void {
  // WAL: readers never block the writer, and a commit appends to one file.
  db.pragma('journal_mode = WAL');
  // NORMAL: SQLite does not fsync the WAL inside COMMIT (which would block the serving loop);
  // group commit fsyncs it on the thread pool before acknowledging (wal-sync.ts), which is what
  // FULL adds over NORMAL in WAL mode. etcd fsyncs every write and so does this: an acknowledged
  // write survives SIGKILL and power loss.
  db.pragma('synchronous = NORMAL');
  // Another process (an operator's sqlite3 shell) may hold a lock briefly; wait instead of failing.
  db.pragma('busy_timeout = 5000');
  // Keep the WAL file from staying large after a burst of writes.
  db.pragma('journal_size_limit = 67108864');
}

function migrate(db: BetterSqlite3.Database): void {
  // Check inside an IMMEDIATE transaction so two processes creating the same file cannot both
  // run the DDL.
  db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version === SCHEMA_VERSION) return;
    if (version !== 0) {
      throw new Error(`storage schema version ${version} is not supported (want ${SCHEMA_VERSION})`);
    }
    db.exec(SCHEMA);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
