/**
 * The part of BSON (bsonspec.org) the simulated mongod (mongo.ts) reads and
 * writes: doubles, strings, documents, arrays, booleans, dates, null, int32
 * and int64. Numbers are written as int32 when they are integers that fit,
 * else as doubles (`{ ok: 1 }` is a double, as mongod writes it: BsonDouble).
 */
export type BsonValue = number | bigint | string | boolean | null | Date | BsonValue[] | BsonDocument | Double;
export interface BsonDocument { [key: string]: BsonValue }

/** A number always written as a double (mongod's `ok: 1.0`). */
export class Double { constructor(readonly value: number) {} }

export function encodeBson(doc: BsonDocument): Buffer {
  const parts: Buffer[] = [];
  for (const [key, value] of Object.entries(doc)) parts.push(element(key, value));
  const body = Buffer.concat(parts);
  const out = Buffer.alloc(body.length + 5);
  out.writeInt32LE(out.length, 0);
  body.copy(out, 4);
  return out;
}

function element(key: string, v: BsonValue): Buffer {
  const name = Buffer.from(`${key}\0`, 'utf8');
  const typed = (type: number, payload: Buffer) => Buffer.concat([Buffer.from([type]), name, payload]);
  if (v instanceof Double || (typeof v === 'number' && (!Number.isInteger(v) || Math.abs(v) > 0x7fffffff))) {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(v instanceof Double ? v.value : v);
    return typed(0x01, b);
  }
  if (typeof v === 'number') { const b = Buffer.alloc(4); b.writeInt32LE(v); return typed(0x10, b); }
  if (typeof v === 'bigint') { const b = Buffer.alloc(8); b.writeBigInt64LE(v); return typed(0x12, b); }
  if (typeof v === 'string') {
    const s = Buffer.from(`${v}\0`, 'utf8');
    const len = Buffer.alloc(4);
    len.writeInt32LE(s.length);
    return typed(0x02, Buffer.concat([len, s]));
  }
  if (typeof v === 'boolean') return typed(0x08, Buffer.from([v ? 1 : 0]));
  if (v === null) return typed(0x0a, Buffer.alloc(0));
  if (v instanceof Date) { const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(v.getTime())); return typed(0x09, b); }
  if (Array.isArray(v)) return typed(0x04, encodeBson(Object.fromEntries(v.map((x, i) => [String(i), x]))));
  return typed(0x03, encodeBson(v));
}

/** Decodes the document at `at` of `buf`; what this codec does not know (ObjectId, binary ...) is skipped as null. */
export function decodeBson(buf: Buffer, at = 0): BsonDocument {
  const end = at + buf.readInt32LE(at) - 1;
  const doc: BsonDocument = {};
  let i = at + 4;
  while (i < end) {
    const type = buf[i++];
    const nameEnd = buf.indexOf(0, i);
    const key = buf.toString('utf8', i, nameEnd);
    i = nameEnd + 1;
    [doc[key], i] = value(buf, type, i);
  }
  return doc;
}

function value(buf: Buffer, type: number, i: number): [BsonValue, number] {
  switch (type) {
    case 0x01: return [buf.readDoubleLE(i), i + 8];
    case 0x02: { const n = buf.readInt32LE(i); return [buf.toString('utf8', i + 4, i + 4 + n - 1), i + 4 + n]; }
    case 0x03: return [decodeBson(buf, i), i + buf.readInt32LE(i)];
    case 0x04: return [Object.values(decodeBson(buf, i)), i + buf.readInt32LE(i)];
    case 0x05: return [null, i + 5 + buf.readInt32LE(i)];
    case 0x07: return [null, i + 12];
    case 0x08: return [buf[i] !== 0, i + 1];
    case 0x09: return [new Date(Number(buf.readBigInt64LE(i))), i + 8];
    case 0x0a: return [null, i];
    case 0x10: return [buf.readInt32LE(i), i + 4];
    case 0x11: case 0x12: return [buf.readBigInt64LE(i), i + 8];
    case 0x13: return [null, i + 16];
    default: throw new Error(`BSON type 0x${type.toString(16)} not supported`);
  }
}
