/** Rows of kv_log and how they read as the contract's KeyValue and WatchEvent. */
import type { KeyValue, WatchEvent } from '../backend.js';

/** A kv_log row, as the replay query and the writer produce it. */
export interface LogRow {
  id: number;
  name: string;
  created: number;
  deleted: number;
  create_revision: number;
  prev_revision: number;
  value: string;
  /** Not a column: the value at prev_revision, joined in for an update's prevKv. */
  prev_value: string | null;
}

/**
 * The columns a key-value read selects (`k` is kv_log's alias), named so each row already is a
 * KeyValue: listing 100,000 keys then allocates one object per key, not two.
 */
export const KEY_VALUE_COLUMNS =
  'k.name AS key, k.value AS value, k.create_revision AS createRevision, k.id AS modRevision';

export function toKeyValue(row: LogRow): KeyValue {
  return { key: row.name, value: row.value, createRevision: row.create_revision, modRevision: row.id };
}

/**
 * The event a row stands for. Events are frozen because one object goes to every matching watcher.
 * - created: a put with no prevKv, even when a tombstone came before (as etcd reports it).
 * - deleted: the tombstone holds the last value, so prevKv is that value at prev_revision.
 * - otherwise an update: prevKv is the row at prev_revision.
 */
export function toWatchEvent(row: LogRow): WatchEvent {
  const kv = Object.freeze(toKeyValue(row));
  if (row.created) return Object.freeze({ type: 'put', kv, created: true });
  const prevValue = row.deleted ? row.value : (row.prev_value ?? '');
  const prevKv = Object.freeze({
    key: row.name,
    value: prevValue,
    createRevision: row.create_revision,
    modRevision: row.prev_revision,
  });
  return Object.freeze({ type: row.deleted ? 'delete' : 'put', kv, prevKv });
}
