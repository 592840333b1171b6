/**
 * What crosses between the serving loop and the etcd client's thread (./thread-client.ts,
 * ./etcd-client-worker.ts): one array of calls per loop turn one way, one array of replies the other.
 * Buffers arrive as Uint8Arrays (structured clone) and are made Buffers again on the far side.
 */
import type { ChannelOptions } from './wire/channel.js';
import type { GuardedWrite, RangeRequest, WatchCreate, WatchResult } from './wire/messages.js';

export type Call =
  | { id: number; op: 'txn'; write: GuardedWrite }
  | { id: number; op: 'range'; req: RangeRequest }
  | { id: number; op: 'compact'; revision: number }
  | { id: number; op: 'watch'; req: WatchCreate }
  /** Ends the watch opened by call `id`. */
  | { id: number; op: 'cancel' };

/** An error as it crosses: a gRPC status keeps its code and details (the backend reads compaction from them). */
export interface WireError { message: string; code?: number; details?: string }

export type Reply =
  | { id: number; result: unknown }
  /** The call failed, or the watch ended (once, last). */
  | { id: number; error: WireError }
  | { id: number; watch: WatchResult };

export type ThreadOptions = ChannelOptions;

/** A Buffer again, from what structured clone made of one (strings pass as they are). */
export function asBuffer<T extends Uint8Array | string | undefined>(b: T): T extends Uint8Array ? Buffer : T {
  return (b instanceof Uint8Array && !Buffer.isBuffer(b) ? Buffer.from(b.buffer, b.byteOffset, b.byteLength) : b) as T extends Uint8Array ? Buffer : T;
}
