/**
 * The SPDY/3 frames a Kubernetes streaming client needs (draft-mbelshe-
 * httpbis-spdy-00, as Go's spdystream speaks it, version 3 without flow
 * control):
 *
 *  - Control frames: 1 bit set, 15-bit version (3), 16-bit type, 8-bit
 *    flags, 24-bit length, then the payload. Data frames: 1 bit clear,
 *    31-bit stream ID, 8-bit flags, 24-bit length, data.
 *  - Header blocks are one zlib stream per direction, primed with the SPDY/3
 *    dictionary. This side writes its blocks as uncompressed ("stored")
 *    deflate blocks: a valid zlib stream whose header names the dictionary
 *    by its Adler-32, so no state need be kept but "header written".
 *    Incoming header blocks are read by header-reader.ts where needed.
 *  - Stream IDs a client opens are odd.
 */

export const controlType = { synStream: 1, synReply: 2, rstStream: 3, settings: 4, ping: 6, goaway: 7, headers: 8, windowUpdate: 9 } as const;
export const flagFin = 0x01;

/** Adler-32 of the SPDY/3 header dictionary (1423 bytes), the DICTID Go's zlib reader checks. */
const dictionaryID = 0xe3c6a7c2;
/** CMF 0x78 (deflate, 32 KiB window), FLG 0x20 (FDICT; 0x7820 is a multiple of 31). */
const zlibHeader = Buffer.from([0x78, 0x20, dictionaryID >>> 24, (dictionaryID >>> 16) & 0xff, (dictionaryID >>> 8) & 0xff, dictionaryID & 0xff]);
const maxStored = 0xffff;
const syncFlush = Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]);

export type Frame =
  | { control: true; type: number; flags: number; payload: Buffer }
  | { control: false; streamId: number; flags: number; data: Buffer };

function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | 3, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(((flags & 0xff) << 24 | payload.length) >>> 0, 4);
  return Buffer.concat([head, payload]);
}

export function dataFrame(streamId: number, data: Buffer, fin = false): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(streamId & 0x7fffffff, 0);
  head.writeUInt32BE(((fin ? flagFin : 0) << 24 | data.length) >>> 0, 4);
  return Buffer.concat([head, data]);
}

/** Writes header blocks for one direction of one session. */
export class HeaderWriter {
  private started = false;

  /** The name/value block (names lowercased, as SPDY/3 requires) as the next piece of the zlib stream. */
  block(headers: Record<string, string>): Buffer {
    const parts: Buffer[] = [];
    const u32 = (n: number) => { const b = Buffer.alloc(4); b.writeUInt32BE(n, 0); return b; };
    const entries = Object.entries(headers);
    parts.push(u32(entries.length));
    for (const [name, value] of entries) {
      const n = Buffer.from(name.toLowerCase());
      const v = Buffer.from(value);
      parts.push(u32(n.length), n, u32(v.length), v);
    }
    const raw = Buffer.concat(parts);
    const out: Buffer[] = [];
    if (!this.started) { out.push(zlibHeader); this.started = true; }
    // The count alone makes the block non-empty, so at least one stored block is written.
    for (let off = 0; off < raw.length; off += maxStored) {
      const piece = raw.subarray(off, off + maxStored);
      const h = Buffer.alloc(5);
      h[0] = 0; // BFINAL 0, BTYPE 00 (stored), padded to the byte
      h.writeUInt16LE(piece.length, 1);
      h.writeUInt16LE(~piece.length & 0xffff, 3);
      out.push(h, piece);
    }
    // An empty stored block, as a zlib sync flush ends with: Go's inflater hands out a stored
    // block's bytes only when the next block begins, which must lie inside this frame.
    out.push(syncFlush);
    return Buffer.concat(out);
  }
}

export function synStreamFrame(streamId: number, headerBlock: Buffer, fin = false): Buffer {
  const p = Buffer.alloc(10);
  p.writeUInt32BE(streamId & 0x7fffffff, 0);
  p.writeUInt32BE(0, 4); // associated-to-stream-id
  p.writeUInt16BE(0, 8); // priority 0, slot 0
  return controlFrame(controlType.synStream, fin ? flagFin : 0, Buffer.concat([p, headerBlock]));
}

export function synReplyFrame(streamId: number, headerBlock: Buffer, fin = false): Buffer {
  const p = Buffer.alloc(4);
  p.writeUInt32BE(streamId & 0x7fffffff, 0);
  return controlFrame(controlType.synReply, fin ? flagFin : 0, Buffer.concat([p, headerBlock]));
}

export function pingFrame(id: number): Buffer {
  const p = Buffer.alloc(4);
  p.writeUInt32BE(id >>> 0, 0);
  return controlFrame(controlType.ping, 0, p);
}

export function goawayFrame(lastGoodStreamId: number): Buffer {
  const p = Buffer.alloc(8);
  p.writeUInt32BE(lastGoodStreamId & 0x7fffffff, 0);
  return controlFrame(controlType.goaway, 0, p);
}

/** The stream ID a control frame's payload starts with (SYN_STREAM, SYN_REPLY, RST_STREAM, HEADERS, WINDOW_UPDATE). */
export const controlStreamId = (payload: Buffer): number => (payload.length >= 4 ? payload.readUInt32BE(0) & 0x7fffffff : 0);

/** Splits a byte stream into frames; `push` returns the frames completed so far. */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0);

  constructor(private readonly maxFrameBytes = 16 << 20) {}

  push(chunk: Buffer): Frame[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const frames: Frame[] = [];
    while (this.buf.length >= 8) {
      const length = this.buf.readUInt32BE(4) & 0xffffff;
      if (length > this.maxFrameBytes) throw new Error(`SPDY frame of ${length} bytes is too large`);
      if (this.buf.length < 8 + length) break;
      const flags = this.buf[4]!;
      const body = this.buf.subarray(8, 8 + length);
      if (this.buf[0]! & 0x80) frames.push({ control: true, type: this.buf.readUInt16BE(2), flags, payload: body });
      else frames.push({ control: false, streamId: this.buf.readUInt32BE(0) & 0x7fffffff, flags, data: body });
      this.buf = this.buf.subarray(8 + length);
    }
    return frames;
  }
}
