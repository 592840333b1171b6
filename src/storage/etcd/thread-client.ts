/**
 * The channel client (one etcd server) on a thread of its own, as the EtcdClient the backend uses.
 *
 * Why: node:http2's work per call (a stream per unary Txn: its C++ and nghttp2, its JS and the
 * Node stream machinery around it) was ~120 µs of the serving loop's CPU per create, most of the
 * etcd backend's extra cost over SQLite (bench/RESULTS.md `etcd5-oncpu-2026-12-06`). Handing a
 * call to this thread costs the loop less: the calls of one loop turn cross in one postMessage, the
 * replies and watch responses of one of the thread's turns in one back (bench/etcd-thread-hop.ts:
 * 93 / 75 -> 30 / 20 µs of the loop per create Txn with its watch event, the process's CPU about equal).
 *
 * Semantics are the channel client's, which runs unchanged in the thread: a write in flight when
 * the connection breaks fails (Unavailable) and is not resent; gRPC errors keep their code and
 * details (compaction and future revisions are read from them); a watch ends once, with its error.
 * If the thread itself dies, every call in flight fails Unavailable and every watch ends (the watch
 * cache lists again, as after any storage watch that ends); the next call starts a new thread
 * (test/unit/etcd-thread-death.test.ts ends it under load through endEtcdClientThreads). A thread
 * that dies before it answered anything (one that cannot start: a crash loop) is not started again
 * at once: calls fail Unavailable for a back-off of 100 ms doubling to 5 s, so a loop of failing
 * starts does not take the serving loop's CPU, request after request.
 */
import { Worker } from 'node:worker_threads';
import type { EtcdClient, WatchHandlers } from './client.js';
import { GrpcError, UNAVAILABLE } from './wire/channel.js';
import type { GuardedWrite, KeyMove, RangeRequest, RangeResult, TxnResult, WatchCreate } from './wire/messages.js';
import { pushCall, readReplies, type Batch, type NewCall, type ReplyHandlers, type ThreadOptions, type WireError } from './thread-protocol.js';

const workerURL = new URL('./etcd-client-worker.js', import.meta.url);

/** The back-off after a thread that died before answering anything: 100 ms doubling, at most 5 s. */
export function restartBackoffMs(failedStarts: number): number {
  return failedStarts <= 0 ? 0 : Math.min(100 * 2 ** (failedStarts - 1), 5000);
}

export function threadClient(opts: ThreadOptions): EtcdClient {
  return new ThreadClient(opts);
}

/** The clients of this process whose thread runs, for endEtcdClientThreads. */
const running = new Set<ThreadClient>();

/**
 * Ends every etcd client thread of this process the way a crash of the thread ends it (the
 * Worker's 'exit', as after an uncaught error or its heap limit), for tests of what the serving
 * loop does then (test/unit/etcd-thread-death.test.ts). Resolves with how many it ended.
 */
export async function endEtcdClientThreads(): Promise<number> {
  const ended = await Promise.all([...running].map((c) => c.endThread()));
  return ended.filter(Boolean).length;
}

class ThreadClient implements EtcdClient {
  private worker?: Worker;
  private closed = false;
  private nextId = 1;
  private queue: Batch = [];
  private scheduled = false;
  private readonly calls = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private readonly watches = new Map<number, WatchHandlers>();
  /** Whether the running thread has answered anything; threads in a row that died before they did; no thread starts before restartAt. */
  private answered = false;
  private failedStarts = 0;
  private restartAt = 0;

  constructor(private readonly opts: ThreadOptions) {}

  txn(write: GuardedWrite): Promise<TxnResult> { return this.call({ op: 'txn', write }) as Promise<TxnResult>; }
  range(req: RangeRequest): Promise<RangeResult> { return this.call({ op: 'range', req }) as Promise<RangeResult>; }
  move(m: KeyMove): Promise<TxnResult> { return this.call({ op: 'move', move: m }) as Promise<TxnResult>; }
  async compact(revision: number): Promise<void> { await this.call({ op: 'compact', revision }); }

  watch(req: WatchCreate, handlers: WatchHandlers): { close(): void } {
    const refused = this.refusal();
    if (refused) {
      queueMicrotask(() => handlers.onError(refused));
      return { close: () => {} };
    }
    const id = this.post({ op: 'watch', req });
    this.watches.set(id, handlers);
    return { close: () => { if (this.watches.delete(id) && this.worker) this.post({ op: 'cancel' }, id); } };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    running.delete(this);
    const w = this.worker;
    this.worker = undefined;
    if (w) { w.postMessage('close'); setTimeout(() => void w.terminate(), 1000).unref(); }
    this.fail(closedError(), false);
  }

  /** See endEtcdClientThreads. */
  async endThread(): Promise<boolean> {
    // As a crash would find it mid-call: wait (a few seconds at most) for a call in the thread, so
    // the test sees calls fail however its load happens to be spread on a busy machine.
    for (const until = Date.now() + 5000; this.calls.size === 0 && Date.now() < until;) await new Promise((r) => setImmediate(r));
    const w = this.worker;
    if (!w) return false;
    // Replies the thread posted but the loop has not read yet are dropped, as a thread that died
    // before posting them: the calls in flight then fail whatever the timing.
    w.removeAllListeners('message');
    await w.terminate();
    return true;
  }

  private call(c: NewCall): Promise<unknown> {
    const refused = this.refusal();
    if (refused) return Promise.reject(refused);
    return new Promise((resolve, reject) => { this.calls.set(this.post(c), { resolve, reject }); });
  }

  /** Queues a call for this turn's batch; answers its id. */
  private post(c: NewCall, id = this.nextId++): number {
    this.thread();
    pushCall(this.queue, id, c);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        const batch = this.queue;
        this.queue = [];
        this.worker?.postMessage(batch);
      });
    }
    return id;
  }

  /** Why a call cannot start now: the client is closed, or its thread is in a restart back-off. */
  private refusal(): Error | undefined {
    if (this.closed) return closedError();
    if (this.worker) return undefined;
    const wait = this.restartAt - Date.now();
    return wait > 0 ? new GrpcError(UNAVAILABLE, `etcd client thread failed to start ${this.failedStarts} times in a row; starting again in ${wait} ms`) : undefined;
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    this.answered = false;
    // No inherited node flags: they are the server's (an --input-type of a `node -e` would fail it).
    const w = new Worker(workerURL, { workerData: this.opts, execArgv: [] });
    // The serving loop's own handles keep the process up; this thread never does.
    w.unref();
    w.on('message', (replies: Batch) => { this.answered = true; readReplies(replies, this.receive); });
    const lost = (why: string) => {
      if (this.worker !== w) return;
      this.worker = undefined;
      running.delete(this);
      this.queue = [];
      this.failedStarts = this.answered ? 0 : this.failedStarts + 1;
      this.restartAt = Date.now() + restartBackoffMs(this.failedStarts);
      this.fail(new GrpcError(UNAVAILABLE, `etcd client thread ${why}`), true);
    };
    w.on('error', (err) => lost(`failed: ${err.message}`));
    w.on('exit', (code) => lost(`exited with code ${code}`));
    this.worker = w;
    running.add(this);
    return w;
  }

  private readonly receive: ReplyHandlers = {
    result: (id, value) => {
      const c = this.calls.get(id);
      if (c) { this.calls.delete(id); c.resolve(value); }
    },
    error: (id, e) => {
      const c = this.calls.get(id);
      if (c) { this.calls.delete(id); c.reject(toError(e)); return; }
      const h = this.watches.get(id);
      if (h) { this.watches.delete(id); h.onError(toError(e)); }
    },
    watch: (id, w) => this.watches.get(id)?.onResponse(w),
  };

  /** Every call in flight fails; watches end with `err` (not when the caller closed the client: it ended them). */
  private fail(err: Error, endWatches: boolean): void {
    const calls = [...this.calls.values()];
    this.calls.clear();
    for (const c of calls) c.reject(err);
    const watches = [...this.watches.values()];
    this.watches.clear();
    if (endWatches) for (const h of watches) h.onError(err);
  }
}

function toError(e: WireError): Error {
  return e.code !== undefined ? new GrpcError(e.code, e.details ?? '') : new Error(e.message);
}

function closedError(): Error {
  return new Error('etcd client is closed');
}
