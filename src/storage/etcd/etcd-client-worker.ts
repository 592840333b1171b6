/**
 * The etcd client's thread (./thread-client.ts): the channel client (gRPC on node:http2) runs
 * here, off the serving loop. Calls come in batches; replies (results, errors, watch responses)
 * go back in one message per turn of this thread's loop. The thread is named k8ts-etcd, so its CPU
 * is told apart from the serving thread's and V8's (`top -H`, `perf script --comm k8ts-etcd`,
 * bench/side-by-side.ts's "etcd client thread" column).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { nameThisThread } from '../../util/thread-name.js';
import { channelClient } from './channel-client.js';
import { GrpcError } from './wire/channel.js';
import {
  asBuffer, etcdClientThreadName, pushError, pushResult, pushTxnResult, pushWatchResponse, readCalls, type Batch, type Call, type ThreadOptions, type WireError,
} from './thread-protocol.js';

nameThisThread(etcdClientThreadName);
const port = parentPort!;
const opts = workerData as ThreadOptions;
const client = channelClient({ url: opts.url, ca: asBuffer(opts.ca), cert: asBuffer(opts.cert), key: asBuffer(opts.key) });
const watches = new Map<number, { close(): void }>();
let replies: Batch = [];
let scheduled = false;

/** The batch being filled, sent once this turn of the loop is over. */
function out(): Batch {
  if (!scheduled) {
    scheduled = true;
    setImmediate(() => { scheduled = false; const batch = replies; replies = []; port.postMessage(batch); });
  }
  return replies;
}

function wireError(err: unknown): WireError {
  if (err instanceof GrpcError) return { message: err.message, code: err.code, details: err.details };
  return { message: err instanceof Error ? err.message : String(err) };
}

const failed = (id: number) => (err: unknown) => pushError(out(), id, wireError(err));

function handle(c: Call): void {
  const id = c.id;
  switch (c.op) {
    case 'txn':
      client.txn(c.write).then((r) => pushTxnResult(out(), id, r), failed(id));
      return;
    case 'range':
      client.range(c.req).then((r) => pushResult(out(), id, r), failed(id));
      return;
    case 'move':
      client.move(c.move).then((r) => pushTxnResult(out(), id, r), failed(id));
      return;
    case 'compact':
      client.compact(c.revision).then(() => pushResult(out(), id, undefined), failed(id));
      return;
    case 'watch':
      watches.set(id, client.watch(c.req, {
        onResponse: (w) => pushWatchResponse(out(), id, w),
        onError: (err) => { if (watches.delete(id)) pushError(out(), id, wireError(err)); },
      }));
      return;
    case 'cancel':
      watches.get(id)?.close();
      watches.delete(id);
  }
}

port.on('message', (calls: Batch | 'close') => {
  if (calls === 'close') { client.close(); port.close(); return; }
  readCalls(calls, handle);
});
