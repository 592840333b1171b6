/**
 * What crosses between the serving loop and the etcd client's thread (./thread-client.ts,
 * ./etcd-client-worker.ts): one flat array of calls per loop turn one way, one flat array of
 * replies the other. Flat: a call or a reply is a code, its id and its fields as strings and
 * numbers in a fixed order (pushCall and readCalls; pushTxnResult, pushWatchResponse, pushError,
 * pushResult and readReplies), not an object of objects:
 * structured clone writes every property name of every object and the reading side interns each
 * again, which for a create's Txn, its answer and its watch event cost more than the values
 * themselves (bench/RESULTS.md `etcd6-client-2026-12-06`). Ranges, moves, compactions and watch
 * creates are rare and cross as objects. Buffers arrive as Uint8Arrays and are made Buffers again here.
 */
import type { KeyValue } from '../backend.js';
import type { ChannelOptions } from './wire/channel.js';
import type { GuardedWrite, KeyMove, RangeRequest, RangeResult, TxnResult, WatchCreate, WatchResult, WireEvent } from './wire/messages.js';

export type Call =
  | { id: number; op: 'txn'; write: GuardedWrite }
  | { id: number; op: 'range'; req: RangeRequest }
  | { id: number; op: 'move'; move: KeyMove }
  | { id: number; op: 'compact'; revision: number }
  | { id: number; op: 'watch'; req: WatchCreate }
  /** Ends the watch opened by call `id`. */
  | { id: number; op: 'cancel' };

/** A call without its id, per op (the id is given when it is queued). */
export type NewCall = Call extends infer C ? C extends Call ? Omit<C, 'id'> : never : never;

/** An error as it crosses: a gRPC status keeps its code and details (the backend reads compaction from them). */
export interface WireError { message: string; code?: number; details?: string }

export type ThreadOptions = ChannelOptions;

/** The client thread's name (/proc/<pid>/task/<tid>/comm), by which tools and benchmarks find it. */
export const etcdClientThreadName = 'k8ts-etcd';

/** A batch as it crosses: codes, ids and fields, flat. */
export type Batch = unknown[];

const TXN = 0;
const RANGE = 1;
const COMPACT = 2;
const WATCH = 3;
const CANCEL = 4;
const MOVE = 5;

/**
 * Appends call `id` to `out`. A Txn is [TXN, id, key, mod guard, revision, value or null (a delete), answer]:
 * answer 1 the put's prev_kv, 2 the key's create revision after the put, 0 nothing.
 */
export function pushCall(out: Batch, id: number, c: NewCall): void {
  switch (c.op) {
    case 'txn': {
      const w = c.write;
      out.push(TXN, id, w.key, w.guard === 'mod', w.revision, w.put ? w.put.value : null, w.put?.prevKv ? 1 : w.put?.createRevision ? 2 : 0);
      return;
    }
    case 'range': out.push(RANGE, id, c.req); return;
    case 'compact': out.push(COMPACT, id, c.revision); return;
    case 'watch': out.push(WATCH, id, c.req); return;
    case 'cancel': out.push(CANCEL, id); return;
    case 'move': out.push(MOVE, id, c.move);
  }
}

/** The calls of a batch, in order. */
export function readCalls(b: Batch, on: (c: Call) => void): void {
  for (let i = 0; i < b.length;) {
    const code = b[i] as number;
    const id = b[i + 1] as number;
    switch (code) {
      case TXN: {
        const value = b[i + 5] as Uint8Array | string | null;
        const write: GuardedWrite = { key: asBuffer(b[i + 2] as Uint8Array | string), guard: b[i + 3] ? 'mod' : 'create', revision: b[i + 4] as number };
        if (value !== null) {
          const answer = b[i + 6] as number;
          write.put = answer === 2 ? { value: asBuffer(value), prevKv: false, createRevision: true } : { value: asBuffer(value), prevKv: answer === 1 };
        }
        on({ id, op: 'txn', write });
        i += 7;
        break;
      }
      case RANGE: {
        const req = b[i + 2] as RangeRequest;
        on({ id, op: 'range', req: { ...req, key: asBuffer(req.key), rangeEnd: asBuffer(req.rangeEnd) } });
        i += 3;
        break;
      }
      case COMPACT: on({ id, op: 'compact', revision: b[i + 2] as number }); i += 3; break;
      case WATCH: {
        const req = b[i + 2] as WatchCreate;
        on({ id, op: 'watch', req: { ...req, key: asBuffer(req.key), rangeEnd: asBuffer(req.rangeEnd) } });
        i += 3;
        break;
      }
      case CANCEL: on({ id, op: 'cancel' }); i += 2; break;
      case MOVE: {
        const m = b[i + 2] as KeyMove;
        on({ id, op: 'move', move: { ...m, from: asBuffer(m.from), to: asBuffer(m.to), value: asBuffer(m.value) } });
        i += 3;
        break;
      }
      default: throw new Error(`etcd client thread: unknown call ${String(code)}`);
    }
  }
}

const RESULT = 0;
const TXN_RESULT = 1;
const ERROR = 2;
const WATCH_RESPONSE = 3;

/** A range's or a compaction's answer, as an object. */
export function pushResult(out: Batch, id: number, result: RangeResult | undefined): void {
  out.push(RESULT, id, result);
}

/** [TXN_RESULT, id, revision, succeeded, kv count, kvs...]. */
export function pushTxnResult(out: Batch, id: number, r: TxnResult): void {
  out.push(TXN_RESULT, id, r.revision, r.succeeded, r.kvs.length);
  for (const kv of r.kvs) pushKv(out, kv);
}

/** The call failed, or the watch ended (once, last). */
export function pushError(out: Batch, id: number, e: WireError): void {
  out.push(ERROR, id, e.message, e.code ?? -1, e.details ?? '');
}

/** [WATCH_RESPONSE, id, created, canceled, cancelReason, compactRevision, event count, events...]; an event is delete, kv, has prevKv[, prevKv]. */
export function pushWatchResponse(out: Batch, id: number, w: WatchResult): void {
  out.push(WATCH_RESPONSE, id, w.created, w.canceled, w.cancelReason, w.compactRevision, w.events.length);
  for (const e of w.events) {
    out.push(e.type === 'delete');
    pushKv(out, e.kv);
    out.push(!!e.prevKv);
    if (e.prevKv) pushKv(out, e.prevKv);
  }
}

export interface ReplyHandlers {
  result(id: number, value: unknown): void;
  error(id: number, e: WireError): void;
  watch(id: number, w: WatchResult): void;
}

/** The replies of a batch, in order. */
export function readReplies(b: Batch, on: ReplyHandlers): void {
  for (let i = 0; i < b.length;) {
    const code = b[i] as number;
    const id = b[i + 1] as number;
    switch (code) {
      case RESULT: on.result(id, b[i + 2]); i += 3; break;
      case TXN_RESULT: {
        const n = b[i + 4] as number;
        const r: TxnResult = { revision: b[i + 2] as number, succeeded: b[i + 3] as boolean, kvs: [] };
        i += 5;
        for (let k = 0; k < n; k++, i += 4) r.kvs.push(readKv(b, i));
        on.result(id, r);
        break;
      }
      case ERROR: {
        const code = b[i + 3] as number;
        on.error(id, code < 0 ? { message: b[i + 2] as string } : { message: b[i + 2] as string, code, details: b[i + 4] as string });
        i += 5;
        break;
      }
      case WATCH_RESPONSE: {
        const w: WatchResult = { created: b[i + 2] as boolean, canceled: b[i + 3] as boolean, cancelReason: b[i + 4] as string, compactRevision: b[i + 5] as number, events: [] };
        const n = b[i + 6] as number;
        i += 7;
        for (let k = 0; k < n; k++) {
          const type: WireEvent['type'] = b[i] ? 'delete' : 'put';
          const kv = readKv(b, i + 1);
          i += 6;
          if (b[i - 1]) { w.events.push({ type, kv, prevKv: readKv(b, i) }); i += 4; } else w.events.push({ type, kv });
        }
        on.watch(id, w);
        break;
      }
      default: throw new Error(`etcd client thread: unknown reply ${String(code)}`);
    }
  }
}

function pushKv(out: Batch, kv: KeyValue): void {
  out.push(kv.key, kv.value, kv.createRevision, kv.modRevision);
}

function readKv(b: Batch, i: number): KeyValue {
  return { key: b[i] as string, value: b[i + 1] as string, createRevision: b[i + 2] as number, modRevision: b[i + 3] as number };
}

/** A Buffer again, from what structured clone made of one (strings pass as they are). */
export function asBuffer<T extends Uint8Array | string | undefined>(b: T): T extends Uint8Array ? Buffer : T {
  return (b instanceof Uint8Array && !Buffer.isBuffer(b) ? Buffer.from(b.buffer, b.byteOffset, b.byteLength) : b) as T extends Uint8Array ? Buffer : T;
}
