/**
 * A 422 Invalid Status encoded where it was found, in the heavy lane's
 * worker, so the loop only writes bytes. Upstream's NewInvalid
 * (apimachinery/pkg/api/errors) keeps one cause per field error and joins
 * the errors' texts into the message through ErrorList.ToAggregate, which
 * drops repeated texts. k8ts reports the first maxReportedFieldErrors of
 * them and one cause saying there were more (field-errors.ts,
 * reportedFieldErrors): the hardening issue's protobuf Pod with 1,000,000
 * empty containers has 2,999,999 field errors, a Status of about 430 MB.
 *
 * The JSON form is byte for byte what respond.ts writes for
 * `invalidObject(...)` (statusWireForm, then JSON.stringify and upstream's
 * newline), written straight into one buffer in two passes (the first
 * measures it): no string of that size (near V8's limit), no garbage per
 * error beyond its text, and one allocation outside the heap (each growth
 * of external memory prompts a full collection of the request's large heap).
 * The protobuf form is built from the Status object: clients that ask for it
 * are rare, and it still runs here.
 */
import { fieldErrorBody, reportedFieldErrors, type FieldError } from '../../api/field-errors.js';
import { invalidObject, statusWireForm } from '../../api/status.js';
import { encodeObject, protobufMediaType } from '../../api/protobuf/envelope.js';
import type { PulledBytes } from './pulled-bytes.js';

/**
 * A Status already encoded for the wire: its bytes in order (buffers with
 * memory of their own, so a worker can hand them to the loop without a
 * copy; a large answer is pulled instead, see pulled-bytes.ts), their media
 * type and the HTTP code.
 */
export interface EncodedStatus { code: number; reason: string; contentType: string; body: Uint8Array[] | PulledBytes }

/**
 * JSON text as bytes: measured first (`buf` undefined), then written. Strings
 * of printable ASCII are copied a character at a time; any other string goes
 * through JSON.stringify, so the escapes are exactly the loop's.
 */
class JSONBytes {
  at = 0;
  constructor(readonly buf?: Buffer) {}
  /** ASCII text that needs no escaping (the literal parts). */
  raw(s: string): void {
    const { buf } = this;
    if (buf) for (let i = 0; i < s.length; i++) buf[this.at + i] = s.charCodeAt(i);
    this.at += s.length;
  }
  /** The inside of a JSON string literal for s, without its quotes. */
  str(s: string): void {
    const { buf } = this;
    let at = this.at;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c >= 0x7f) return this.slow(s);
      if (c === 0x22 || c === 0x5c) {
        if (buf) buf[at] = 0x5c;
        at++;
      }
      if (buf) buf[at] = c;
      at++;
    }
    this.at = at;
  }
  private slow(s: string): void {
    const inner = JSON.stringify(s).slice(1, -1);
    this.at += this.buf ? this.buf.write(inner, this.at) : Buffer.byteLength(inner);
  }
}

/**
 * A Buffer over memory of its own. A small Buffer is a slice of Node's
 * shared pool, which cannot be transferred to another thread.
 */
function owned(b: Uint8Array): Uint8Array {
  if (b.byteOffset === 0 && b.buffer.byteLength === b.byteLength) return b;
  const copy = new Uint8Array(new ArrayBuffer(b.byteLength));
  copy.set(b);
  return copy;
}

/**
 * ToAggregate's dedupe of texts, over millions of errors without a Set of
 * millions of strings (which, with the heap this request already holds, cost
 * more in garbage collection than everything else here): an open-addressing
 * table of error indexes in typed arrays, keyed by a hash of the field and
 * the body (a text is `field: body`), equal texts confirmed by comparing them.
 */
class SeenMessages {
  private readonly slots: Int32Array;
  private readonly hashes: Uint32Array;
  private readonly mask: number;
  constructor(count: number) {
    let size = 16;
    while (size < count * 2) size *= 2;
    this.slots = new Int32Array(size);
    this.hashes = new Uint32Array(count);
    this.mask = size - 1;
  }
  /** True the first time this text is seen; `i` numbers the errors in order. */
  add(i: number, field: string, body: string): boolean {
    const h = fnv1a(body, fnv1a(field, 0x811c9dc5));
    this.hashes[i] = h;
    for (let slot = h & this.mask; ; slot = (slot + 1) & this.mask) {
      const held = this.slots[slot];
      if (held === 0) {
        this.slots[slot] = i + 1;
        return true;
      }
      const j = held - 1;
      if (this.hashes[j] === h && this.fieldOf(j) === field && this.bodyOf(j) === body) return false;
    }
  }
  private texts?: (j: number) => [string, string];
  /** How an earlier error's field and body are found again (set by the encoder). */
  lookup(texts: (j: number) => [string, string]): void { this.texts = texts; }
  private fieldOf(j: number): string { return this.texts!(j)[0]; }
  private bodyOf(j: number): string { return this.texts!(j)[1]; }
}

function fnv1a(s: string, h: number): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export function encodeInvalidStatus(kind: string, group: string, name: string, all: readonly FieldError[], protobuf: boolean): EncodedStatus & { body: Uint8Array[] } {
  const errors = reportedFieldErrors(all);
  if (protobuf || !errors.length) {
    const status = statusWireForm(invalidObject(kind, group, name, [...errors]).status);
    const body = protobuf ? encodeObject(status) : undefined;
    if (body) return { code: 422, reason: 'Invalid', contentType: protobufMediaType, body: [owned(body)] };
    return { code: 422, reason: 'Invalid', contentType: 'application/json', body: [owned(Buffer.from(`${JSON.stringify(status)}\n`))] };
  }
  return { code: 422, reason: 'Invalid', contentType: 'application/json', body: invalidStatusJSON(kind, group, name, errors) };
}

function invalidStatusJSON(kind: string, group: string, name: string, errors: readonly FieldError[]): Uint8Array[] {
  // Each error's body once (most are the shared bare words), and which texts the message keeps.
  const bodies = errors.map(fieldErrorBody);
  const seen = new SeenMessages(errors.length);
  seen.lookup((j) => [errors[j].field, bodies[j]]);
  const keep = new Uint8Array(errors.length);
  let kept = 0;
  for (let i = 0; i < errors.length; i++) if (seen.add(i, errors[i].field, bodies[i])) { keep[i] = 1; kept++; }
  const write = (out: JSONBytes) => {
    out.raw('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"');
    out.str(`${group ? `${kind}.${group}` : kind} "${name}" is invalid: `);
    if (kept > 1) out.raw('[');
    let first = true;
    for (let i = 0; i < errors.length; i++) {
      if (!keep[i]) continue;
      if (!first) out.raw(', ');
      first = false;
      out.str(errors[i].field);
      out.raw(': ');
      out.str(bodies[i]);
    }
    if (kept > 1) out.raw(']');
    out.raw('","reason":"Invalid","details":{');
    let sep = '';
    if (name) { out.raw('"name":"'); out.str(name); out.raw('"'); sep = ','; }
    if (group) { out.raw(`${sep}"group":"`); out.str(group); out.raw('"'); sep = ','; }
    if (kind) { out.raw(`${sep}"kind":"`); out.str(kind); out.raw('"'); sep = ','; }
    out.raw(`${sep}"causes":[`);
    for (let i = 0; i < errors.length; i++) {
      const e = errors[i];
      out.raw(i === 0 ? '{"reason":"' : ',{"reason":"');
      out.str(e.type);
      const body = bodies[i];
      if (body) { out.raw('","message":"'); out.str(body); }
      if (e.field) { out.raw('","field":"'); out.str(e.field); }
      out.raw('"}');
    }
    out.raw(']},"code":422}\n');
  };
  const measure = new JSONBytes();
  write(measure);
  const out = new JSONBytes(Buffer.from(new ArrayBuffer(measure.at)));
  write(out);
  return [out.buf!];
}

