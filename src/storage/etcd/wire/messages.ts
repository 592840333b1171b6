/**
 * The etcd v3 messages the backend sends and reads (etcdserverpb rpc.proto, mvccpb kv.proto),
 * encoded and decoded by hand. Field numbers are etcd's; only the fields the backend uses are
 * written, every other field read is skipped. Key-values are decoded straight into the storage
 * contract's KeyValue (key and value as text), the form the backend hands on.
 */
import type { KeyValue } from '../../backend.js';
import { Reader, Writer, byteLength, fieldSize, varintFieldSize, type Bytes } from './protobuf.js';

export interface RangeRequest {
  key: Buffer;
  rangeEnd?: Buffer;
  limit?: number;
  revision?: number;
  countOnly?: boolean;
}

/** A write guarded by one compare, as the backend writes every object (upstream's etcd3 store does the same). */
export interface GuardedWrite {
  key: Bytes;
  /** CreateRevision(key) or ModRevision(key) == revision (0 with 'create': the key is absent). */
  guard: 'create' | 'mod';
  revision: number;
  /**
   * Put `value` (answering the previous value when prevKv), or without it delete the key
   * (answering its value). When the guard fails the Txn gets the key instead, so that a lost
   * guard answers the current value in the same round trip. `createRevision`: answer the key
   * as the Put left it without its value (a keys-only Range after the Put), for an update that
   * needs only the key's create revision: upstream's GuaranteedUpdate asks for no prev_kv either,
   * and the previous value (a whole pod) crossed etcd's answer, the client's decode and the
   * thread hop for nothing.
   */
  put?: { value: Bytes; prevKv: boolean; createRevision?: boolean };
}

/**
 * One key moved to another in one Txn, as the key layout's migration moves objects: if `from`
 * is still at `modRevision` and `to` is absent, put `value` at `to` and delete `from`.
 */
export interface KeyMove { from: Bytes; to: Bytes; modRevision: number; value: Bytes }

export interface RangeResult { revision: number; kvs: KeyValue[]; more: boolean; count: number }

/**
 * A Txn's outcome; `kvs` are those of the first response that has any: the Get's on failure, on
 * success the put's prev_kv, the keys-only Range after the put, or the delete's prev_kvs.
 */
export interface TxnResult { revision: number; succeeded: boolean; kvs: KeyValue[] }

export interface WatchCreate { key: Buffer; rangeEnd: Buffer; startRevision: number; prevKv: boolean }

export interface WireEvent { type: 'put' | 'delete'; kv: KeyValue; prevKv?: KeyValue }

export interface WatchResult {
  created: boolean;
  canceled: boolean;
  cancelReason: string;
  compactRevision: number;
  events: WireEvent[];
}

// ---- encoding ----

/** The gRPC frame of a message of `size` bytes: a writer positioned after the 5-byte prefix (not compressed, length). */
function frame(size: number): Writer {
  const buf = Buffer.allocUnsafe(5 + size);
  buf[0] = 0;
  buf.writeUInt32BE(size, 1);
  return new Writer(buf, 5);
}

export function encodeRange(r: RangeRequest): Buffer {
  const size = fieldSize(r.key.length)
    + (r.rangeEnd ? fieldSize(r.rangeEnd.length) : 0)
    + (r.limit ? varintFieldSize(r.limit) : 0)
    + (r.revision ? varintFieldSize(r.revision) : 0)
    + (r.countOnly ? 2 : 0);
  const w = frame(size);
  writeRangeFields(w, r);
  return w.buf;
}

function writeRangeFields(w: Writer, r: RangeRequest): void {
  w.bytesField(1, r.key, r.key.length);
  if (r.rangeEnd) w.bytesField(2, r.rangeEnd, r.rangeEnd.length);
  if (r.limit) w.varintField(3, r.limit);
  if (r.revision) w.varintField(4, r.revision);
  if (r.countOnly) w.varintField(9, 1);
}

/**
 * TxnRequest{ compare: [{ result: Equal, target, key, create_revision|mod_revision }],
 * success: [put or delete, and a keys-only range key after a put when put.createRevision], failure: [range key] }.
 */
export function encodeGuardedTxn(t: GuardedWrite): Buffer {
  const keyLen = byteLength(t.key);
  const keyField = fieldSize(keyLen);
  // Compare: target (field 2; Equal is 0, the default, and not written), key, and the oneof
  // revision, written even when 0 (a oneof member is always sent).
  const compare = varintFieldSize(t.guard === 'create' ? 1 : 2) + keyField + varintFieldSize(t.revision);
  let valueLen = 0;
  let op: number;
  if (t.put) {
    valueLen = byteLength(t.put.value);
    op = keyField + fieldSize(valueLen) + (t.put.prevKv ? 2 : 0);
  } else {
    op = keyField + 2;
  }
  const success = fieldSize(op);
  // RangeRequest{ key, keys_only: true } in a RequestOp's request_range.
  const after = t.put?.createRevision ? fieldSize(fieldSize(keyField + 2)) : 0;
  const failure = fieldSize(keyField);
  const w = frame(fieldSize(compare) + fieldSize(success) + after + fieldSize(failure));
  w.messageField(1, compare);
  w.varintField(2, t.guard === 'create' ? 1 : 2);
  w.bytesField(3, t.key, keyLen);
  w.varintField(t.guard === 'create' ? 5 : 6, t.revision);
  w.messageField(2, success);
  if (t.put) {
    w.messageField(2, op);
    w.bytesField(1, t.key, keyLen);
    w.bytesField(2, t.put.value, valueLen);
    if (t.put.prevKv) w.varintField(4, 1);
    if (after) {
      w.messageField(2, fieldSize(keyField + 2));
      w.messageField(1, keyField + 2);
      w.bytesField(1, t.key, keyLen);
      w.varintField(8, 1);
    }
  } else {
    w.messageField(3, op);
    w.bytesField(1, t.key, keyLen);
    w.varintField(3, 1);
  }
  w.messageField(3, failure);
  w.messageField(1, keyField);
  w.bytesField(1, t.key, keyLen);
  return w.buf;
}

/**
 * TxnRequest{ compare: [ModRevision(from) == modRevision, CreateRevision(to) == 0],
 * success: [put to, delete from] }: nothing on failure (the caller reads again).
 */
export function encodeMoveTxn(m: KeyMove): Buffer {
  const fromLen = byteLength(m.from);
  const toLen = byteLength(m.to);
  const valueLen = byteLength(m.value);
  const stillThere = varintFieldSize(2) + fieldSize(fromLen) + varintFieldSize(m.modRevision);
  const absent = varintFieldSize(1) + fieldSize(toLen) + varintFieldSize(0);
  const put = fieldSize(toLen) + fieldSize(valueLen);
  const del = fieldSize(fromLen);
  const w = frame(fieldSize(stillThere) + fieldSize(absent) + fieldSize(fieldSize(put)) + fieldSize(fieldSize(del)));
  w.messageField(1, stillThere);
  w.varintField(2, 2);
  w.bytesField(3, m.from, fromLen);
  w.varintField(6, m.modRevision);
  w.messageField(1, absent);
  w.varintField(2, 1);
  w.bytesField(3, m.to, toLen);
  w.varintField(5, 0);
  w.messageField(2, fieldSize(put));
  w.messageField(2, put);
  w.bytesField(1, m.to, toLen);
  w.bytesField(2, m.value, valueLen);
  w.messageField(2, fieldSize(del));
  w.messageField(3, del);
  w.bytesField(1, m.from, fromLen);
  return w.buf;
}

/** WatchRequest{ create_request: { key, range_end, start_revision, prev_kv } }. */
export function encodeWatchCreate(c: WatchCreate): Buffer {
  const inner = fieldSize(c.key.length) + fieldSize(c.rangeEnd.length)
    + (c.startRevision ? varintFieldSize(c.startRevision) : 0) + (c.prevKv ? 2 : 0);
  const w = frame(fieldSize(inner));
  w.messageField(1, inner);
  w.bytesField(1, c.key, c.key.length);
  w.bytesField(2, c.rangeEnd, c.rangeEnd.length);
  if (c.startRevision) w.varintField(3, c.startRevision);
  if (c.prevKv) w.varintField(6, 1);
  return w.buf;
}

/** CompactionRequest{ revision, physical: false }. */
export function encodeCompact(revision: number): Buffer {
  const w = frame(varintFieldSize(revision));
  w.varintField(1, revision);
  return w.buf;
}

// ---- decoding ----

function headerRevision(r: Reader): number {
  let revision = 0;
  while (!r.done) {
    const tag = r.tag();
    if (tag === (3 << 3)) revision = r.varint(); else r.skip(tag & 7);
  }
  return revision;
}

export function decodeKeyValue(r: Reader): KeyValue {
  let key = '';
  let value = '';
  let createRevision = 0;
  let modRevision = 0;
  while (!r.done) {
    const tag = r.tag();
    switch (tag) {
      case (1 << 3) | 2: key = r.string(); break;
      case (2 << 3): createRevision = r.varint(); break;
      case (3 << 3): modRevision = r.varint(); break;
      case (5 << 3) | 2: value = r.string(); break;
      default: r.skip(tag & 7);
    }
  }
  return { key, value, createRevision, modRevision };
}

export function decodeRange(buf: Buffer): RangeResult {
  return rangeFrom(new Reader(buf));
}

function rangeFrom(r: Reader): RangeResult {
  const out: RangeResult = { revision: 0, kvs: [], more: false, count: 0 };
  while (!r.done) {
    const tag = r.tag();
    switch (tag) {
      case (1 << 3) | 2: out.revision = headerRevision(r.message()); break;
      case (2 << 3) | 2: out.kvs.push(decodeKeyValue(r.message())); break;
      case (3 << 3): out.more = r.bool(); break;
      case (4 << 3): out.count = r.varint(); break;
      default: r.skip(tag & 7);
    }
  }
  return out;
}

export function decodeTxn(buf: Buffer): TxnResult {
  const r = new Reader(buf);
  const out: TxnResult = { revision: 0, succeeded: false, kvs: [] };
  while (!r.done) {
    const tag = r.tag();
    switch (tag) {
      case (1 << 3) | 2: out.revision = headerRevision(r.message()); break;
      case (2 << 3): out.succeeded = r.bool(); break;
      case (3 << 3) | 2: {
        const op = r.message();
        if (!out.kvs.length) out.kvs = responseOpKvs(op); else op.pos = op.end;
        break;
      }
      default: r.skip(tag & 7);
    }
  }
  return out;
}

/** The key-values a ResponseOp carries: a range's kvs, a put's prev_kv, a delete's prev_kvs. */
function responseOpKvs(op: Reader): KeyValue[] {
  const kvs: KeyValue[] = [];
  while (!op.done) {
    const tag = op.tag();
    if ((tag & 7) !== 2) { op.skip(tag & 7); continue; }
    const inner = op.message();
    const field = tag >>> 3;
    if (field === 1) return rangeFrom(inner).kvs;
    // PutResponse.prev_kv is field 2, DeleteRangeResponse.prev_kvs field 3.
    const kvField = field === 2 ? 2 : field === 3 ? 3 : 0;
    while (!inner.done) {
      const t = inner.tag();
      if (kvField && t === ((kvField << 3) | 2)) kvs.push(decodeKeyValue(inner.message())); else inner.skip(t & 7);
    }
  }
  return kvs;
}

export function decodeWatch(buf: Buffer): WatchResult {
  const r = new Reader(buf);
  const out: WatchResult = { created: false, canceled: false, cancelReason: '', compactRevision: 0, events: [] };
  while (!r.done) {
    const tag = r.tag();
    switch (tag) {
      case (3 << 3): out.created = r.bool(); break;
      case (4 << 3): out.canceled = r.bool(); break;
      case (5 << 3): out.compactRevision = r.varint(); break;
      case (6 << 3) | 2: out.cancelReason = r.string(); break;
      case (11 << 3) | 2: out.events.push(decodeEvent(r.message())); break;
      default: r.skip(tag & 7);
    }
  }
  return out;
}

function decodeEvent(r: Reader): WireEvent {
  let type: WireEvent['type'] = 'put';
  let kv: KeyValue | undefined;
  let prevKv: KeyValue | undefined;
  while (!r.done) {
    const tag = r.tag();
    switch (tag) {
      case (1 << 3): type = r.varint() === 1 ? 'delete' : 'put'; break;
      case (2 << 3) | 2: kv = decodeKeyValue(r.message()); break;
      case (3 << 3) | 2: prevKv = decodeKeyValue(r.message()); break;
      default: r.skip(tag & 7);
    }
  }
  if (!kv) throw new Error('etcd watch event without kv');
  return prevKv ? { type, kv, prevKv } : { type, kv };
}
