/**
 * The storage contract, shaped like etcd's KV + Watch API so that the SQLite
 * backend (kine-style log table) and an etcd backend are interchangeable.
 *
 * Contract:
 * - Every successful write (create, update, delete) gets a new revision from one
 *   global, strictly increasing counter. The revision of the whole store is the
 *   revision of its last write.
 * - `modRevision` of a key is the revision of its last write; `createRevision`
 *   is the revision that created it. These become `metadata.resourceVersion`.
 * - Writes are guarded: create only if absent; update/delete only if the key's
 *   current modRevision equals the expected one. A failed guard changes nothing
 *   and reports the current value, so the caller can build a Conflict.
 * - A write is durable before its promise resolves (SIGKILL loses nothing acknowledged).
 * - Watches deliver, in revision order and without gaps, every event after
 *   `fromRevision` for keys under a prefix. A revision older than the compacted
 *   history fails with `CompactedError`.
 */

export interface KeyValue {
  key: string;
  /** The serialized object (JSON text). */
  value: string;
  createRevision: number;
  modRevision: number;
}

export interface WatchEvent {
  type: 'put' | 'delete';
  /** For put: the new value. For delete: the last value, with modRevision = the delete's revision. */
  kv: KeyValue;
  /** The value before this event, when there was one. */
  prevKv?: KeyValue;
  /** True when the put created the key. */
  created?: boolean;
}

export interface ListOptions {
  /** Read at this revision (0 or absent: latest). Older than compacted -> CompactedError. */
  revision?: number;
  /** At most this many keys; `more` says whether keys remain. */
  limit?: number;
  /** Start from this key (inclusive), for pagination. */
  startKey?: string;
}

export interface ListResult {
  kvs: KeyValue[];
  /** The revision the list was read at. */
  revision: number;
  /** True when limit cut the list short. */
  more: boolean;
  /**
   * The keys in the range from the start key at the revision, limit or not, when the backend
   * learns it with the list: etcd's Range answers its Count so (upstream's store derives
   * remainingItemCount from it). Absent: ask count().
   */
  count?: number;
}

export type WriteResult =
  | { ok: true; kv: KeyValue }
  /** The guard failed; `current` is the key's value now (absent: key does not exist). */
  | { ok: false; current?: KeyValue };

export interface Watcher {
  close(): void;
}

export interface WatchOptions {
  /** Deliver events with revision > fromRevision. */
  fromRevision: number;
  onEvents(events: WatchEvent[]): void;
  /** Called once if the watch cannot continue (e.g. compacted); no more events follow. */
  onError?(err: Error): void;
  /**
   * false: the watcher keeps every value itself (the watch cache), so storage need not send the
   * previous ones: an update's event may come without prevKv, and a delete's kv may carry only the
   * key and the delete's revision (value ''). On etcd the watch is then opened without prev_kv,
   * which spares etcd a read of the previous revision for every update and delete event and
   * halves such events' bytes (upstream: kubernetes/kubernetes#130939). Default true.
   */
  prevKv?: boolean;
}

/** Every call on a closed backend rejects with this, and open watches end with it. */
export class BackendClosedError extends Error {
  constructor() {
    super('storage backend is closed');
    this.name = 'BackendClosedError';
  }
}

/**
 * The storage's own failure (etcd's "etcdserver: mvcc: database space exceeded"), in the words
 * Go's etcd client gives it. The API answers it as upstream's ErrorToAPIStatus answers any error
 * that is not a Status: 500, no reason, those words as the message.
 */
export class StorageError extends Error {}

/** The slice of a logger a backend needs; `console` fits. */
export interface StorageLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export class CompactedError extends Error {
  constructor(public readonly requested: number, public readonly compacted: number) {
    super(`required revision ${requested} has been compacted (oldest available ${compacted + 1})`);
  }
}

export interface Backend {
  /** The revision of the last write. */
  currentRevision(): Promise<number>;
  /** The oldest revision still watchable/readable minus one (0 if none compacted). */
  compactedRevision(): Promise<number>;
  get(key: string, opts?: { revision?: number }): Promise<{ kv?: KeyValue; revision: number }>;
  /** Keys starting with `prefix`, in key order. */
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /**
   * Number of keys under a prefix, at the latest revision or at `revision`,
   * from `startKey` on when given (etcd's range count, which upstream turns into remainingItemCount).
   */
  count(prefix: string, opts?: Pick<ListOptions, 'revision' | 'startKey'>): Promise<number>;
  create(key: string, value: string): Promise<WriteResult>;
  update(key: string, value: string, expectedModRevision: number): Promise<WriteResult>;
  /** On success, kv is the deleted value with modRevision = the delete's revision. */
  delete(key: string, expectedModRevision: number): Promise<WriteResult>;
  watch(prefix: string, opts: WatchOptions): Watcher;
  /** Forget history at or below `revision` (latest values are always kept). */
  compact(revision: number): Promise<void>;
  close(): Promise<void>;
}
