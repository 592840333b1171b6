/**
 * Compaction: forget history at or below a revision, keeping each key's value at that revision.
 *
 * Like kine, it works from the rows in (compacted, revision] instead of scanning the table: every
 * such row supersedes the row its prev_revision points at, so those rows go, and tombstones in
 * the range go too (a deleted key needs no row). Values that are still the latest are never
 * touched, so the cost follows the writes since the last compaction, not the number of keys.
 * The compacted revision is stored in kv_meta so it survives restarts.
 */
import type Database from 'better-sqlite3';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { BackendClosedError } from '../backend.js';

/** Revisions per transaction, so a large compaction never blocks writers (or the event loop) for long. */
const STEP = 10_000;

export class Compactor {
  private compacted: number;
  private closed = false;
  private readonly stepTx: (from: number, to: number) => number;

  constructor(db: Database.Database) {
    this.compacted = db.prepare<[], number>(
      "SELECT value FROM kv_meta WHERE key = 'compact_revision'").pluck().get() ?? 0;
    const dropSuperseded = db.prepare<[{ from: number; to: number }]>(
      `DELETE FROM kv_log WHERE id IN
         (SELECT prev_revision FROM kv_log WHERE id > @from AND id <= @to AND prev_revision > 0)`);
    const dropTombstones = db.prepare<[{ from: number; to: number }]>(
      'DELETE FROM kv_log WHERE id > @from AND id <= @to AND deleted = 1');
    const record = db.prepare<[number]>(
      `INSERT INTO kv_meta (key, value) VALUES ('compact_revision', ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
    this.stepTx = db.transaction((from: number, to: number): number => {
      // Superseded rows first: the subquery reads prev_revision from tombstones about to go.
      const removed = dropSuperseded.run({ from, to }).changes + dropTombstones.run({ from, to }).changes;
      record.run(to);
      return removed;
    }).immediate;
  }

  /** History at or below this revision is gone. */
  get compactedRevision(): number {
    return this.compacted;
  }

  /** Stops compactions in flight; they reject with BackendClosedError at their next step. */
  close(): void {
    this.closed = true;
  }

  /** Compacts up to `revision` in steps; returns the number of rows removed. */
  async compact(revision: number): Promise<number> {
    let removed = 0;
    while (this.compacted < revision) {
      if (this.closed) throw new BackendClosedError();
      const to = Math.min(revision, this.compacted + STEP);
      removed += this.stepTx(this.compacted, to);
      this.compacted = to;
      if (to < revision) await yieldToEventLoop();
    }
    return removed;
  }
}
