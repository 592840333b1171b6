/** What callers may tune on the SQLite backend, and the defaults the design asks for. */

import type { StorageLogger } from '../backend.js';
import type { CheckpointerOptions } from './checkpointer.js';

export interface SqliteBackendOptions {
  /** History kept for watches and reads at old revisions; older superseded rows are compacted. */
  historyWindowSeconds?: number;
  /** How often automatic compaction runs; 0 turns it off. */
  compactIntervalMs?: number;
  logger?: StorageLogger;
  /** Passed in so tests control time; the shape of util/clock's Clock. */
  clock?: { now(): Date };
  /** When the WAL is checkpointed (checkpointer.ts); tests make it small. */
  checkpoints?: CheckpointerOptions;
}

export interface ResolvedOptions {
  historyWindowMs: number;
  compactIntervalMs: number;
  logger: StorageLogger;
  /** Epoch milliseconds. */
  now: () => number;
  checkpoints?: CheckpointerOptions;
}

/** Silent for routine messages, loud for failures nobody else will see (a throwing watch callback). */
const defaultLogger: StorageLogger = {
  info: () => {},
  error: (message, fields) => console.error(`storage: ${message}`, fields ?? ''),
};

export function resolveOptions(opts: SqliteBackendOptions = {}): ResolvedOptions {
  const clock = opts.clock;
  return {
    historyWindowMs: (opts.historyWindowSeconds ?? 300) * 1000,
    compactIntervalMs: opts.compactIntervalMs ?? 60_000,
    logger: opts.logger ?? defaultLogger,
    now: clock ? () => clock.now().getTime() : Date.now,
    checkpoints: opts.checkpoints,
  };
}
