/**
 * Automatic compaction keeping about `historyWindowMs` of history.
 *
 * Rows carry no timestamp. Instead each tick records (current revision, now) in kv_revision_clock,
 * and compacts to the newest sampled revision taken at least a window ago: every row at or below
 * it was written before then. History kept is therefore between one window and one window plus
 * one interval, the samples survive restarts, and writes pay nothing for it. (kube-apiserver's
 * compactor works the same way: it compacts to the revision it saw one interval earlier.)
 */
import type Database from 'better-sqlite3';
import type { Compactor } from './compaction.js';
import { BackendClosedError } from '../backend.js';
import type { ResolvedOptions } from './options.js';

export class AutoCompactor {
  private timer?: NodeJS.Timeout;
  private running = false;
  private readonly recordSample: Database.Statement<[number, number]>;
  private readonly revisionBefore: Database.Statement<[number], number | null>;
  private readonly pruneSamples: Database.Statement<[number]>;

  constructor(
    db: Database.Database,
    private readonly compactor: Compactor,
    private readonly currentRevision: () => number,
    private readonly opts: Pick<ResolvedOptions, 'historyWindowMs' | 'compactIntervalMs' | 'now' | 'logger'>,
  ) {
    // OR IGNORE keeps the earliest time a revision was seen: it was current from then on.
    this.recordSample = db.prepare('INSERT OR IGNORE INTO kv_revision_clock (revision, at) VALUES (?, ?)');
    this.revisionBefore = db.prepare<[number], number | null>(
      'SELECT max(revision) FROM kv_revision_clock WHERE at <= ?').pluck();
    this.pruneSamples = db.prepare('DELETE FROM kv_revision_clock WHERE revision < ?');
  }

  start(): void {
    if (this.opts.compactIntervalMs <= 0) return;
    this.timer = setInterval(() => void this.tick(), this.opts.compactIntervalMs);
    // Compaction alone must not keep the process alive.
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One round: sample, then compact to the window's edge. Overlapping rounds are skipped. */
  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const now = this.opts.now();
      this.recordSample.run(this.currentRevision(), now);
      const target = this.revisionBefore.get(now - this.opts.historyWindowMs) ?? 0;
      this.pruneSamples.run(target);
      if (target <= this.compactor.compactedRevision) return;
      const removed = await this.compactor.compact(target);
      this.opts.logger.info('compacted storage history', { revision: target, removedRows: removed });
    } catch (err) {
      if (!(err instanceof BackendClosedError)) this.opts.logger.error('automatic compaction failed', { err });
    } finally {
      this.running = false;
    }
  }
}
