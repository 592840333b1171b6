/**
 * Group commit: the writes requested during one turn of the event loop are committed together,
 * in one transaction with one fsync, from a setImmediate callback. Concurrent requests then share
 * the cost of the fsync instead of queueing behind one fsync each (etcd batches its backend
 * commits the same way). Every write keeps its own guard and revision, in request order; its
 * promise settles only after the commit, so an acknowledged write is durable, and its watch event
 * is published right after the commit, as before.
 */
import type { WatchEvent, WriteResult } from '../backend.js';
import type { LogWriter, WriteOutcome } from './log-writer.js';

/** Writes per transaction: bounds how long one commit holds the event loop. */
const MAX_BATCH = 1000;

interface Queued {
  write: () => WriteOutcome;
  resolve: (result: WriteResult) => void;
  reject: (err: unknown) => void;
}

export class GroupCommit {
  private queue: Queued[] = [];
  private scheduled = false;

  constructor(private readonly writer: LogWriter, private readonly publish: (event: WatchEvent) => void) {}

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

  /** Commits everything queued now; used by the timer and by close. */
  flush(): void {
    this.scheduled = false;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      this.commit(batch);
    }
  }

  private commit(batch: Queued[]): void {
    let results;
    try {
      results = this.writer.batch(batch.map((q) => q.write));
    } catch (err) {
      for (const q of batch) q.reject(err);
      return;
    }
    results.forEach((r, i) => {
      if ('error' in r) return batch[i]!.reject(r.error);
      if (r.outcome.event) this.publish(r.outcome.event);
      batch[i]!.resolve(r.outcome.result);
    });
  }
}
