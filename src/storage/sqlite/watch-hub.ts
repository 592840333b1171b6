/**
 * Watches: replay from the log, then live events published by the writer, in revision order
 * with no gap and no duplicate between the two.
 *
 * Why there is no gap: writes are synchronous and happen only in this process. A watcher that is
 * replaying ignores live events; each replay step reads the log up to the current revision, and
 * the step that finds nothing more switches the watcher to live in the same synchronous run. Every
 * write before that switch is in the log read, every write after it is published to the watcher.
 *
 * Callbacks never run inside a write transaction: live events are queued per watcher and
 * delivered from a microtask, replay chunks from setImmediate, one chunk at a time so writers
 * get a turn. A watcher's events are delivered strictly in order.
 */
import { CompactedError, type WatchEvent, type Watcher, type WatchOptions } from '../backend.js';
import { keyRange, type KeyRange } from './key-range.js';
import type { StorageLogger } from '../backend.js';
import { PrefixIndex } from './prefix-index.js';
import { toWatchEvent, type LogRow } from './rows.js';

/** Rows read per replay step. */
const REPLAY_CHUNK = 1000;

/** What the hub reads from the store. */
export interface WatchSource {
  currentRevision(): number;
  compactedRevision(): number;
  changes(range: KeyRange, after: number, until: number, limit: number): LogRow[];
}

interface WatchEntry {
  readonly prefix: string;
  readonly range: KeyRange;
  readonly opts: WatchOptions;
  /** Everything at or below this revision has been delivered or queued. */
  after: number;
  /** closing: failed; queued events still go out, then onError, then nothing. */
  state: 'replaying' | 'live' | 'closing' | 'closed';
  queue: WatchEvent[];
  failure?: Error;
}

export class WatchHub {
  private readonly index = new PrefixIndex<WatchEntry>();
  private readonly dirty = new Set<WatchEntry>();
  private flushScheduled = false;

  constructor(private readonly source: WatchSource, private readonly logger: StorageLogger) {}

  watch(prefix: string, opts: WatchOptions): Watcher {
    const entry: WatchEntry = {
      prefix, range: keyRange(prefix), opts, after: opts.fromRevision, state: 'replaying', queue: [],
    };
    const compacted = this.source.compactedRevision();
    if (opts.fromRevision < compacted) {
      this.fail(entry, new CompactedError(opts.fromRevision, compacted));
    } else {
      this.index.add(prefix, entry);
      // Nothing to replay when the watch starts at (or beyond) the current revision.
      if (opts.fromRevision >= this.source.currentRevision()) entry.state = 'live';
      else setImmediate(() => this.replayStep(entry));
    }
    return { close: () => this.close(entry) };
  }

  /** Route a committed write to the live watchers under its key. */
  publish(event: WatchEvent): void {
    this.index.forEachMatch(event.kv.key, (entry) => {
      if (entry.state !== 'live' || event.kv.modRevision <= entry.after) return;
      entry.queue.push(event);
      this.dirty.add(entry);
    });
    this.scheduleFlush();
  }

  /** End every watch with `err` (after the events already queued). */
  failAll(err: Error): void {
    for (const entry of [...this.index.members()]) this.fail(entry, err);
  }

  private replayStep(entry: WatchEntry): void {
    if (entry.state !== 'replaying') return;
    // Compaction may have run since the last step and removed rows this watcher still needs.
    const compacted = this.source.compactedRevision();
    if (entry.after < compacted) return this.fail(entry, new CompactedError(entry.after, compacted));
    const until = this.source.currentRevision();
    const rows = this.source.changes(entry.range, entry.after, until, REPLAY_CHUNK);
    const caughtUp = rows.length < REPLAY_CHUNK;
    entry.after = caughtUp ? until : rows[rows.length - 1].id;
    if (caughtUp) entry.state = 'live';
    else setImmediate(() => this.replayStep(entry));
    if (rows.length > 0) this.call(entry, 'onEvents', () => entry.opts.onEvents(rows.map(toWatchEvent)));
  }

  private fail(entry: WatchEntry, err: Error): void {
    if (entry.state === 'closing' || entry.state === 'closed') return;
    entry.state = 'closing';
    entry.failure = err;
    this.index.remove(entry.prefix, entry);
    this.dirty.add(entry);
    this.scheduleFlush();
  }

  private close(entry: WatchEntry): void {
    entry.state = 'closed';
    entry.queue = [];
    this.index.remove(entry.prefix, entry);
    this.dirty.delete(entry);
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.dirty.size === 0) return;
    this.flushScheduled = true;
    queueMicrotask(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    const entries = [...this.dirty];
    this.dirty.clear();
    for (const entry of entries) this.deliver(entry);
  }

  private deliver(entry: WatchEntry): void {
    const events = entry.queue;
    entry.queue = [];
    if (events.length > 0 && entry.state !== 'closed') {
      this.call(entry, 'onEvents', () => entry.opts.onEvents(events));
    }
    if (entry.state !== 'closing') return;
    const err = entry.failure!;
    this.close(entry);
    this.call(entry, 'onError', () => entry.opts.onError?.(err));
  }

  /** A throwing callback is the watcher's bug; it must not stop delivery to the others. */
  private call(entry: WatchEntry, what: string, callback: () => void): void {
    try {
      callback();
    } catch (err) {
      this.logger.error(`watch ${what} callback threw`, { prefix: entry.prefix, err });
    }
  }
}
