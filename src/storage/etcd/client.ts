/**
 * What the etcd backend asks of etcd, in its own terms: guarded writes (Txn), ranges, compaction
 * and watch streams. Two implementations: the channel client (./channel-client.ts, one server:
 * gRPC on node:http2 with hand-written messages, the fast path) and the pool client
 * (./pool-client.ts, several servers: the etcd3 library's host selection and failover).
 */
import type { GuardedWrite, KeyMove, RangeRequest, RangeResult, TxnResult, WatchCreate, WatchResult } from './wire/messages.js';

export type { GuardedWrite, KeyMove, RangeRequest, RangeResult, TxnResult, WatchCreate, WatchResult, WireEvent } from './wire/messages.js';

export interface WatchHandlers {
  onResponse(res: WatchResult): void;
  /** Once, when the stream breaks or etcd ends it. */
  onError(err: Error): void;
}

export interface EtcdClient {
  txn(write: GuardedWrite): Promise<TxnResult>;
  range(req: RangeRequest): Promise<RangeResult>;
  /** One object to another key in one Txn (the key layout's migration; rare). */
  move(m: KeyMove): Promise<TxnResult>;
  compact(revision: number): Promise<void>;
  /** One Watch stream with one watch on it. */
  watch(req: WatchCreate, handlers: WatchHandlers): { close(): void };
  close(): void;
}
