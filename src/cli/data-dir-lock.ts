/**
 * One k8ts at a time on a data directory. A second `npm start` (another
 * terminal, another --port) would otherwise write into the same SQLite
 * database as the first and overwrite admin.conf with its own address, leaving
 * the running cluster's kubeconfig pointing at nothing.
 *
 * The lock is SQLite's own exclusive lock on DATA/k8ts.lock, held by a write
 * transaction left open for the life of the process: the kernel drops it when
 * the process ends, however it ends, so no stale lock outlives a crash (as
 * etcd's flock on its data directory).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';

// Required rather than imported, as storage/sqlite/schema.ts does (start-up cost).
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

export const lockFileName = 'k8ts.lock';

/** Takes the data directory's lock, or throws saying another k8ts holds it; returns the release. */
export function lockDataDir(dir: string): () => void {
  const db = new Database(join(dir, lockFileName), { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (e) {
    db.close();
    if ((e as { code?: string }).code?.startsWith('SQLITE_BUSY')) {
      throw new Error('another k8ts is running on it; stop that one first (Ctrl-C where it runs), or start this one with another --data-dir');
    }
    throw e;
  }
  return () => {
    if (!db.open) return;
    try { db.exec('ROLLBACK'); } finally { db.close(); }
  };
}
