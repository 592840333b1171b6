/**
 * WAL checkpoints off the serving thread (docs/threads.md, "The serving loop's share of a
 * create"). SQLite's automatic checkpoint runs inside the COMMIT that pushes the WAL past 1,000
 * pages, on the connection that commits: here the serving thread, which then synced the WAL,
 * copied pages into the database file and synced it before answering anyone (single stalls of a
 * second were seen during write floods). The serving connection now runs with
 * `wal_autocheckpoint = 0`, and this class asks a thread of its own (checkpoint-worker.ts, its
 * own connection) for the checkpoints:
 * - PASSIVE, once about 4 MiB (SQLite's default of 1,000 pages) may have been written since the
 *   last one: it takes no lock a writer or reader waits for, and copies what it can. When it
 *   copied everything, the next write starts the WAL again from its beginning, as after an
 *   automatic checkpoint; while writes keep coming it rarely copies everything (a commit lands
 *   while it syncs), so under a write flood the WAL grows, up to the bound below.
 * - The bound: when the WAL has not started again for `restartFrames` frames (4 MiB), the
 *   PASSIVE is followed by a RESTART while group commit holds its writes: they queue (the loop
 *   keeps serving) instead of waiting in SQLite's busy handler on the serving thread, the RESTART
 *   copies the few frames since the PASSIVE and waits for readers to leave the WAL, and the next
 *   write starts it again from its beginning (`journal_size_limit` then trims the file).
 * - Back-pressure: a checkpoint that falls a whole bound behind a write flood (the WAL grew by
 *   `restartFrames` past where the next RESTART is due while the PASSIVE still runs, as on a
 *   loaded machine) holds further commits until it ends, so the next one can RESTART: the WAL's
 *   size stays bounded by the load's shape, not by how fast this thread gets the CPU.
 * Durability is unchanged: both connections run `synchronous = NORMAL`, so a checkpoint syncs the
 * WAL before copying and the database file before the WAL may be reused; acknowledgements still
 * wait for group commit's own fsync (wal-sync.ts).
 *
 * The thread starts on the first checkpoint and ends after a minute without one, so a server that
 * writes little pays nothing for it most of the time. Should it fail, the serving connection
 * checkpoints automatically again (`fallback`), as before.
 */
import { Worker } from 'node:worker_threads';
import type { StorageLogger } from '../backend.js';

/** What the loop asks the checkpointer's thread. */
export interface CheckpointRequest { mode: 'PASSIVE' | 'RESTART' | 'close' }
/** SQLite's answer to `PRAGMA wal_checkpoint`: frames in the WAL and frames copied (-1 when not in WAL mode). */
export type CheckpointAnswer = { busy: number; log: number; checkpointed: number } | { error: string };

export interface CheckpointerOptions {
  /** Estimated bytes written between checkpoints (default 4 MiB, SQLite's automatic 1,000 pages). */
  everyBytes?: number;
  /**
   * A WAL of this many frames is checkpointed with RESTART, writes held (default 1,024: 4 MiB of
   * 4 KiB pages, about where the automatic checkpoint kept it). Not larger: a WAL that keeps
   * growing makes every fsync of group commit also commit the file's new size.
   */
  restartFrames?: number;
  /** The thread ends after this long without a checkpoint (default 60 s). */
  idleMs?: number;
}

/** Pages a write dirties besides its value's own: the log's leaf, the name index's and kv_current's. */
const pagesPerWrite = 2;
const pageBytes = 4096;

const workerURL = new URL('./checkpoint-worker.js', import.meta.url);

export class Checkpointer {
  private worker?: Worker;
  private exited?: Promise<void>;
  private running?: (answer: CheckpointAnswer) => void;
  /** The checkpoint in progress: a PASSIVE, and the RESTART that may follow it. */
  private cycle?: Promise<void>;
  private pending = 0;
  /** Estimated frames in the WAL since it last started again. */
  private frames = 0;
  /** Releases the commits held while a checkpoint is a whole bound behind (back-pressure). */
  private behind?: () => void;
  /** After a RESTART a reader made give up (busy): the WAL size at which to try again. */
  private restartAt: number;
  private idleTimer?: NodeJS.Timeout;
  private closed = false;
  private failed = false;
  private readonly everyBytes: number;
  private readonly restartFrames: number;
  private readonly idleMs: number;

  /**
   * `hold` stops group commit from committing until the function it returns is called;
   * `fallback` turns the serving connection's automatic checkpoint back on.
   */
  constructor(
    private readonly path: string,
    private readonly hold: () => () => void,
    private readonly fallback: () => void,
    private readonly logger: StorageLogger,
    opts: CheckpointerOptions = {},
  ) {
    this.everyBytes = opts.everyBytes ?? 4 * 1024 * 1024;
    this.restartFrames = opts.restartFrames ?? 1024;
    this.idleMs = opts.idleMs ?? 60_000;
    this.restartAt = this.restartFrames;
  }

  /** A write of `valueBytes` was submitted. */
  wrote(valueBytes: number): void {
    const bytes = valueBytes + pagesPerWrite * pageBytes;
    this.pending += bytes;
    this.frames += Math.ceil(bytes / pageBytes);
    if (this.cycle && !this.behind && this.frames >= this.restartAt + this.restartFrames) this.behind = this.hold();
  }

  /**
   * Group commit's fsync returned: checkpoint once enough may have reached the WAL. Not at submit:
   * a checkpoint that starts before the commit it was asked for cannot copy it.
   */
  durable(): void {
    if (this.pending < this.everyBytes || this.cycle || this.closed || this.failed) return;
    this.cycle = this.checkpoint().finally(() => {
      this.cycle = undefined;
      this.behind?.();
      this.behind = undefined;
    });
  }

  /** Waits for a checkpoint in progress, then closes the thread's connection (before the serving one closes). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.idleTimer);
    await this.cycle;
    await this.stopWorker();
  }

  private async checkpoint(): Promise<void> {
    this.pending = 0;
    const passive = await this.ask('PASSIVE');
    if ('error' in passive) return;
    // `log` counts the frames since the WAL last started again: a commit that lands while the
    // PASSIVE runs keeps the next write from starting it again, however much was copied.
    this.frames = passive.log;
    if (passive.log < this.restartFrames) this.restartAt = this.restartFrames;
    else if (passive.log >= this.restartAt && !this.closed) {
      const resume = this.hold();
      let restart: CheckpointAnswer;
      try { restart = await this.ask('RESTART'); } finally { resume(); }
      const busy = 'error' in restart || restart.busy !== 0;
      // A reader that stays on the WAL: try again only once it has grown as much again.
      this.restartAt = busy ? passive.log + this.restartFrames : this.restartFrames;
      if (!busy) this.frames = 0;
    }
  }

  private ask(mode: 'PASSIVE' | 'RESTART'): Promise<CheckpointAnswer> {
    clearTimeout(this.idleTimer);
    const started = performance.now();
    return new Promise<CheckpointAnswer>((resolve) => {
      const worker = this.workerOf();
      // Referenced while it works: a write held for its RESTART must keep the process alive.
      worker.ref();
      this.running = (answer) => {
        this.running = undefined;
        worker.unref();
        if ('error' in answer) this.logger.error('WAL checkpoint failed', { mode, error: answer.error });
        else if (mode === 'RESTART') this.logger.info('WAL checkpoint with writes held', { ...answer, heldMs: Math.round(performance.now() - started) });
        if (!this.closed) this.idleTimer = setTimeout(() => void this.stopWorker(), this.idleMs).unref();
        resolve(answer);
      };
      worker.postMessage({ mode } satisfies CheckpointRequest);
    });
  }

  private workerOf(): Worker {
    if (this.worker) return this.worker;
    // No inherited node flags: they are the server's (an --input-type of a `node -e` would fail it).
    const worker = new Worker(workerURL, { workerData: { path: this.path }, execArgv: [] });
    worker.unref();
    worker.on('message', (answer: CheckpointAnswer) => this.running?.(answer));
    // A thread that cannot open the file or dies: the serving connection checkpoints by itself again.
    worker.on('error', (err) => this.fail(worker, err.message));
    this.exited = new Promise((resolve) => worker.once('exit', () => {
      if (this.worker === worker) {
        this.worker = undefined;
        if (this.running) this.fail(worker, 'checkpointer thread exited');
      }
      resolve();
    }));
    this.worker = worker;
    return worker;
  }

  private fail(worker: Worker, error: string): void {
    if (this.worker !== worker && this.worker !== undefined) return;
    this.worker = undefined;
    if (!this.failed && !this.closed) {
      this.failed = true;
      this.logger.error('WAL checkpointer thread failed; the serving connection checkpoints again', { error });
      this.fallback();
    }
    this.running?.({ error });
    void worker.terminate();
  }

  private async stopWorker(): Promise<void> {
    const worker = this.worker;
    const exited = this.exited;
    if (!worker || this.running) return;
    this.worker = undefined;
    // Referenced until it exited: its connection must close before the serving one does.
    worker.ref();
    worker.postMessage({ mode: 'close' } satisfies CheckpointRequest);
    await exited;
  }
}
