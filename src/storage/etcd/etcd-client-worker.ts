/**
 * The etcd client's thread (./thread-client.ts): the channel client (gRPC on node:http2) runs
 * here, off the serving loop. Calls come in batches; replies (results, errors, watch responses)
 * go back in one message per turn of this thread's loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { channelClient } from './channel-client.js';
import { GrpcError } from './wire/channel.js';
import { asBuffer, type Call, type Reply, type ThreadOptions, type WireError } from './thread-protocol.js';

const port = parentPort!;
const opts = workerData as ThreadOptions;
const client = channelClient({ url: opts.url, ca: asBuffer(opts.ca), cert: asBuffer(opts.cert), key: asBuffer(opts.key) });
const watches = new Map<number, { close(): void }>();
let replies: Reply[] = [];
let scheduled = false;

function reply(r: Reply): void {
  replies.push(r);
  if (scheduled) return;
  scheduled = true;
  setImmediate(() => { scheduled = false; const out = replies; replies = []; port.postMessage(out); });
}

function wireError(err: unknown): WireError {
  if (err instanceof GrpcError) return { message: err.message, code: err.code, details: err.details };
  return { message: err instanceof Error ? err.message : String(err) };
}

function answer(id: number, p: Promise<unknown>): void {
  p.then((result) => reply({ id, result }), (err: unknown) => reply({ id, error: wireError(err) }));
}

function handle(c: Call): void {
  switch (c.op) {
    case 'txn': {
      const { write } = c;
      answer(c.id, client.txn({ ...write, key: asBuffer(write.key), put: write.put && { ...write.put, value: asBuffer(write.put.value) } }));
      return;
    }
    case 'range':
      answer(c.id, client.range({ ...c.req, key: asBuffer(c.req.key), rangeEnd: asBuffer(c.req.rangeEnd) }));
      return;
    case 'compact':
      answer(c.id, client.compact(c.revision));
      return;
    case 'watch': {
      const id = c.id;
      watches.set(id, client.watch({ ...c.req, key: asBuffer(c.req.key), rangeEnd: asBuffer(c.req.rangeEnd) }, {
        onResponse: (watch) => reply({ id, watch }),
        onError: (err) => { if (watches.delete(id)) reply({ id, error: wireError(err) }); },
      }));
      return;
    }
    case 'cancel':
      watches.get(c.id)?.close();
      watches.delete(c.id);
  }
}

port.on('message', (calls: Call[] | 'close') => {
  if (calls === 'close') { client.close(); port.close(); return; }
  for (const c of calls) handle(c);
});
