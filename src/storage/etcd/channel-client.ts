/**
 * The etcd client of a single server: KV and Watch calls on one gRPC channel over node:http2
 * (./wire/channel.ts), messages encoded and decoded by hand (./wire/messages.ts). No per-call
 * retry policy, circuit breaker, auth metadata or reflection, which cost a create on etcd about
 * as much CPU as the rest of its storage work; the etcd3 library is not even loaded.
 */
import type { EtcdClient, WatchHandlers } from './client.js';
import { GrpcChannel, type ChannelOptions } from './wire/channel.js';
import {
  decodeRange, decodeTxn, decodeWatch, encodeCompact, encodeGuardedTxn, encodeMoveTxn, encodeRange, encodeWatchCreate,
  type GuardedWrite, type KeyMove, type RangeRequest, type WatchCreate,
} from './wire/messages.js';

const TXN = '/etcdserverpb.KV/Txn';
const RANGE = '/etcdserverpb.KV/Range';
const COMPACT = '/etcdserverpb.KV/Compact';
const WATCH = '/etcdserverpb.Watch/Watch';

export function channelClient(opts: ChannelOptions): EtcdClient {
  const channel = new GrpcChannel(opts);
  return {
    async txn(write: GuardedWrite) { return decodeTxn(await channel.unary(TXN, encodeGuardedTxn(write))); },
    async range(req: RangeRequest) { return decodeRange(await channel.unary(RANGE, encodeRange(req), true)); },
    async move(m: KeyMove) { return decodeTxn(await channel.unary(TXN, encodeMoveTxn(m))); },
    async compact(revision: number) { await channel.unary(COMPACT, encodeCompact(revision)); },
    watch(req: WatchCreate, handlers: WatchHandlers) {
      const stream = channel.stream(WATCH, {
        onMessage: (message) => handlers.onResponse(decodeWatch(message)),
        onEnd: (err) => handlers.onError(err),
      });
      stream.write(encodeWatchCreate(req));
      return { close: () => stream.close() };
    },
    close: () => channel.close(),
  };
}
