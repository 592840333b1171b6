/**
 * Durability off the event loop: the WAL is fsynced (fdatasync) on libuv's thread pool, not inside
 * SQLite's COMMIT on the serving thread.
 *
 * Why this is as durable as `synchronous = FULL`: in WAL mode FULL differs from NORMAL only by an
 * fsync of the WAL at each commit (the SQLite docs, "PRAGMA synchronous"). Here the connection runs
 * NORMAL (SQLite still syncs the WAL before a checkpoint, the database after it, and the WAL header
 * when the WAL is reused) and this class issues that per-commit fsync itself. Group commit
 * (group-commit.ts) acknowledges a write only after an fsync that started after its commit
 * returned, so an acknowledged write survives a power loss as before; SIGKILL loses nothing either
 * way (a committed transaction is in the page cache when COMMIT returns).
 *
 * Meanwhile the loop serves other requests and the next batches commit; one fsync covers every
 * commit before it (etcd batches its backend fsyncs the same way).
 */
import { closeSync, fdatasync, fdatasyncSync, openSync } from 'node:fs';

export class WalSync {
  private fd: number | undefined;

  /** `walPath`: the database's `-wal` file; undefined for an in-memory database (nothing to sync). */
  constructor(private readonly walPath: string | undefined) {}

  /** Makes every commit that returned before this call durable, then calls `done`. */
  sync(done: (err: Error | null) => void): void {
    const fd = this.open();
    if (fd === undefined) return void setImmediate(done, null);
    fdatasync(fd, done);
  }

  /** The same, blocking: for close, when the loop must not return before the writes are durable. */
  syncNow(): void {
    const fd = this.open();
    if (fd !== undefined) fdatasyncSync(fd);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /**
   * The WAL exists from the first transaction on (journal_mode = WAL) until the last connection
   * closes, and a checkpoint truncates it in place, so one descriptor serves the backend's life.
   */
  private open(): number | undefined {
    if (this.walPath === undefined) return undefined;
    this.fd ??= openSync(this.walPath, 'r');
    return this.fd;
  }
}
