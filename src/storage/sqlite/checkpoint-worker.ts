/**
 * The WAL checkpointer's thread (checkpointer.ts): its own SQLite connection to the database
 * file, which runs `PRAGMA wal_checkpoint(MODE)` when asked and answers SQLite's three numbers.
 * A checkpoint syncs the WAL, copies pages into the database file and syncs it: milliseconds to
 * seconds of disk time that used to run inside a commit on the serving thread (SQLite's automatic
 * checkpoint). It imports nothing but better-sqlite3.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import type { CheckpointAnswer, CheckpointRequest } from './checkpointer.js';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

const db = new Database((workerData as { path: string }).path);
// NORMAL, as the serving connection: the checkpoint syncs the WAL before it copies a page and the
// database file before it marks the pages copied, so the writer never overwrites a frame that is
// not durable in the database.
db.pragma('synchronous = NORMAL');
// This connection never writes, so it never checkpoints by itself either.
db.pragma('wal_autocheckpoint = 0');
// RESTART waits here (not on the serving thread) for a reader still on the WAL, briefly: the
// serving thread's reads take microseconds, and group commit holds its writes meanwhile, so a
// reader that stays (an operator's sqlite3 shell) makes it give up (busy) rather than hold them.
db.pragma('busy_timeout = 200');

parentPort!.on('message', (req: CheckpointRequest) => {
  if (req.mode === 'close') {
    db.close();
    parentPort!.close();
    return;
  }
  let answer: CheckpointAnswer;
  try {
    const [row] = db.pragma(`wal_checkpoint(${req.mode})`) as { busy: number; log: number; checkpointed: number }[];
    answer = { busy: row!.busy, log: row!.log, checkpointed: row!.checkpointed };
  } catch (e) {
    answer = { error: (e as Error).message };
  }
  parentPort!.postMessage(answer);
});
