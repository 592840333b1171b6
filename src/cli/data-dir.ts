/**
 * The data directory holds every Secret (state.db and its -wal/-shm) and the
 * cluster's keys: it is 0700 and every file in it 0600, whatever the umask
 * or an older k8ts left there. A directory found looser is tightened at start
 * with a log line, so an operator learns that it had been readable.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../util/log.js';

const dirMode = 0o700;
const fileMode = 0o600;

/** Creates the directory 0700 and tightens what is in it; returns the paths it had to change. */
export function secureDataDir(dir: string): string[] {
  mkdirSync(dir, { recursive: true, mode: dirMode });
  const changed: string[] = [];
  tighten(dir, true, changed);
  return changed;
}

/** secureDataDir, logging what was loose (a fresh directory logs nothing). */
export function secureDataDirLogged(dir: string, logger: Logger): void {
  const changed = secureDataDir(dir);
  if (changed.length) logger.warn('tightened permissions of the data directory: it holds secrets and keys', { dataDir: dir, paths: changed.length, examples: changed.slice(0, 5) });
}

function tighten(path: string, isDir: boolean, changed: string[]): void {
  const want = isDir ? dirMode : fileMode;
  const mode = lstatSync(path).mode & 0o777;
  if (mode & 0o077) {
    chmodSync(path, mode & want);
    changed.push(path);
  }
  if (!isDir) return;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    // Symlinks are left alone: chmod would follow them out of the directory.
    if (entry.isDirectory()) tighten(join(path, entry.name), true, changed);
    else if (entry.isFile()) tighten(join(path, entry.name), false, changed);
  }
}

/**
 * An error from starting on `dir` in words an operator can act on: a full
 * disk shows up as ENOSPC from a write, or as SQLite's "disk I/O error" /
 * "database or disk is full", depending on which write met it first.
 */
export function startupError(err: unknown, dir: string): Error {
  const e = err as NodeJS.ErrnoException & { code?: string };
  const text = e instanceof Error ? e.message : String(err);
  const full = e?.code === 'ENOSPC' || e?.code === 'SQLITE_FULL' || /no space left|disk is full/i.test(text) || (/disk I\/O error/.test(text) && freeBytes(dir) === 0);
  if (full) return new Error(`cannot start: no space left on device for the data directory ${dir} (${text}); free some space and start again`);
  return new Error(`cannot start on the data directory ${dir}: ${text}`);
}

function freeBytes(dir: string): number | undefined {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}
