/**
 * Group commit: the writes requested during one turn of the event loop are committed together,
 * in one transaction, from a setImmediate callback; the fsync that makes them durable runs on the
 * thread pool (wal-sync.ts), so the serving loop keeps working while the disk does. Every write
 * keeps its own guard and revision, in request order. Its promise settles, and its watch event is
 * published, only after an fsync that began after its commit: an acknowledged write is durable,
 * and a watcher never sees an event that a power loss could take back.
 *
 * While one fsync runs, later writes queue uncommitted; when it ends they commit in one
 * transaction and the next fsync starts (etcd's backend batches its commits the same way), so under
 * load each fsync carries more writes and each watcher gets their events in one write. Committed
 * during the fsync they would wait for the next one all the same; committed together they cost one
 * transaction, and one WAL frame for each page they share (the log's last leaf, the indexes'),
 * instead of one transaction a loop turn: at 16 clients that was 4-5 pwrites a create.
 */
import type { WatchEvent, WriteResult } from '../backend.js';
import type { BatchResult, LogWriter, WriteOutcome } from './log-writer.js';
import type { WalSync } from './wal-sync.js';
import { inQuantumFirst } from '../../util/loop-quantum.js';

/** Writes per transaction: bounds how long one commit holds the event loop. */
const MAX_BATCH = 1000;

interface Queued {
  write: () => WriteOutcome;
  resolve: (result: WriteResult) => void;
  reject: (err: unknown) => void;
}

/** A committed batch waiting for its fsync, with the writer's revision right after it. */
interface Committed { batch: Queued[]; results: BatchResult[]; revision: number }

export class GroupCommit {
  private queue: Queued[] = [];
  private scheduled = false;
  /** Committed batches no fsync has started for yet, oldest first. */
  private committed: Committed[] = [];
  private syncing = false;
  private synced?: () => void;
  /** Holds (checkpointer.ts) in force: while any is, writes queue and nothing commits. */
  private holds = 0;
  /** Every write at or below this revision is durable and its event published (its acknowledgement may still wait for the loop's quantum). */
  durableRevision: number;

  constructor(
    private readonly writer: LogWriter,
    private readonly wal: WalSync,
    private readonly publish: (event: WatchEvent) => void,
    /** Called after each fsync that made writes durable (the WAL checkpointer's cue). */
    private readonly durable: () => void = () => {},
  ) {
    this.durableRevision = writer.currentRevision;
  }

  /** Queues `write` for the next commit; settles once that commit is durable. */
  submit(write: () => WriteOutcome): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits everything queued now and starts its fsync, unless one is running: its end commits them. */
  flush(): void {
    this.scheduled = false;
    if (this.holds > 0 || this.syncing) return;
    this.commitQueued();
    this.startSync();
  }

  private commitQueued(): void {
    while (this.queue.length > 0) this.commit(this.queue.splice(0, MAX_BATCH));
  }

  /**
   * Stops committing until the returned function is called: writes queue meanwhile, and the loop
   * keeps serving (the WAL's TRUNCATE checkpoint, which a commit would have to wait for).
   */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds === 0 && this.queue.length > 0 && !this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    };
  }

  /** Commits what is queued, waits for a running fsync, then syncs and settles the rest at once. */
  async close(): Promise<void> {
    this.scheduled = false;
    this.commitQueued();
    if (this.syncing) await new Promise<void>((resolve) => { this.synced = resolve; });
    const rest = this.committed;
    this.committed = [];
    let err: Error | null = null;
    try { if (rest.length) this.wal.syncNow(); } catch (e) { err = e as Error; }
    this.settle(rest, err);
    this.wal.close();
  }

  private commit(batch: Queued[]): void {
    let results;
    try {
      results = this.writer.batch(batch.map((q) => q.write));
    } catch (err) {
      // Nothing of the batch was written (the transaction rolled back): no fsync to wait for.
      for (const q of batch) q.reject(err);
      return;
    }
    this.committed.push({ batch, results, revision: this.writer.currentRevision });
  }

  private startSync(): void {
    if (this.syncing || this.committed.length === 0) return;
    const covered = this.committed;
    this.committed = [];
    this.syncing = true;
    this.wal.sync((err) => {
      this.syncing = false;
      this.settle(covered, err);
      if (!err) this.durable();
      if (this.synced) {
        const wake = this.synced;
        this.synced = undefined;
        wake();
        return;
      }
      // What queued during the fsync commits now, together (a checkpoint's hold defers it to its release).
      if (this.holds === 0) this.commitQueued();
      this.startSync();
    });
  }

  /**
   * Publishes and acknowledges, in commit order. A failed fsync fails the writes it covered (a
   * 500: their durability is unknown), but their events still go out: the rows are in the database
   * and every reader sees them, so the watch streams must too.
   */
  private settle(covered: Committed[], err: Error | null): void {
    for (const { batch, results, revision } of covered) {
      results.forEach((r, i) => {
        if ('error' in r) return batch[i]!.reject(r.error);
        if (r.outcome.event) this.publish(r.outcome.event);
        // Each acknowledgement runs the rest of its request (the answer, its TLS write): one
        // fsync covers up to a few dozen under a flood, so they take the loop's time quantum
        // (util/loop-quantum.ts) and another client's GET is read between groups of them; ahead
        // of new writes' steps, which would otherwise keep a durable write's client waiting.
        const q = batch[i]!;
        inQuantumFirst(err ? () => q.reject(err) : () => q.resolve(r.outcome.result));
      });
      this.durableRevision = revision;
    }
  }
}
