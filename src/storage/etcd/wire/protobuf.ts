/**
 * The protobuf wire format, only as far as etcd's few messages need it: varints, length-delimited
 * fields and skipping what we do not read. Hand-written because protobufjs's reflection
 * (fromObject, toObject, Long) was a large part of a create's CPU on etcd; here a message is
 * measured, then written in one pass into one buffer, and decoded without intermediate objects.
 */

/** Bytes of a varint of a non-negative integer (up to 2^53). */
export function varintSize(n: number): number {
  let size = 1;
  while (n >= 128) { n = Math.floor(n / 128); size++; }
  return size;
}

/** Bytes of a length-delimited field (tag below 16) holding `len` bytes. */
export function fieldSize(len: number): number {
  return 1 + varintSize(len) + len;
}

/** Bytes of a varint field (tag below 16). */
export function varintFieldSize(n: number): number {
  return 1 + varintSize(n);
}

/** A byte field's content: a Buffer as is, a string as UTF-8. */
export type Bytes = Buffer | string;

export function byteLength(b: Bytes): number {
  return typeof b === 'string' ? Buffer.byteLength(b) : b.length;
}

/** Writes into a buffer sized beforehand; every field number is below 16 (one tag byte). */
export class Writer {
  pos: number;
  constructor(readonly buf: Buffer, start = 0) { this.pos = start; }

  varint(n: number): void {
    const buf = this.buf;
    while (n >= 128) {
      buf[this.pos++] = (n % 128) | 128;
      n = Math.floor(n / 128);
    }
    buf[this.pos++] = n;
  }

  tag(field: number, wireType: 0 | 2): void {
    this.buf[this.pos++] = (field << 3) | wireType;
  }

  varintField(field: number, n: number): void {
    this.tag(field, 0);
    this.varint(n);
  }

  /** A length-delimited field of `len` bytes; `b` written as is (its length must be `len`). */
  bytesField(field: number, b: Bytes, len: number): void {
    this.tag(field, 2);
    this.varint(len);
    if (typeof b === 'string') this.pos += this.buf.write(b, this.pos, len, 'utf8');
    else { b.copy(this.buf, this.pos); this.pos += len; }
  }

  /** The header of an embedded message of `len` bytes; its fields follow. */
  messageField(field: number, len: number): void {
    this.tag(field, 2);
    this.varint(len);
  }
}

/** Reads one message (or a slice of one: an embedded message) field by field. */
export class Reader {
  pos: number;
  constructor(readonly buf: Buffer, start = 0, readonly end = buf.length) { this.pos = start; }

  get done(): boolean { return this.pos >= this.end; }

  /** A field's tag: its number is tag >>> 3, its wire type tag & 7. */
  tag(): number {
    return this.varint();
  }

  /** A varint as a number: exact up to 2^53 (revisions, counts); larger ones (uint64 ids, -1) lose precision, and are not read. */
  varint(): number {
    const buf = this.buf;
    let result = 0;
    let scale = 1;
    for (;;) {
      if (this.pos >= this.end) throw new Error('protobuf: truncated varint');
      const b = buf[this.pos++];
      result += (b & 127) * scale;
      if (b < 128) return result;
      scale *= 128;
    }
  }

  bool(): boolean {
    return this.varint() !== 0;
  }

  /** The [start, end) of a length-delimited field's content; the reader moves past it. */
  span(): [number, number] {
    const len = this.varint();
    const start = this.pos;
    const end = start + len;
    if (end > this.end) throw new Error('protobuf: truncated field');
    this.pos = end;
    return [start, end];
  }

  string(): string {
    const [start, end] = this.span();
    return this.buf.toString('utf8', start, end);
  }

  /** A reader of an embedded message. */
  message(): Reader {
    const [start, end] = this.span();
    return new Reader(this.buf, start, end);
  }

  skip(wireType: number): void {
    switch (wireType) {
      case 0: this.varint(); return;
      case 1: this.pos += 8; return;
      case 2: this.span(); return;
      case 5: this.pos += 4; return;
      default: throw new Error(`protobuf: unsupported wire type ${wireType}`);
    }
  }
}
