/**
 * Reading SPDY/3 header blocks (the side that accepts streams, e.g. the
 * kubelet serving port-forward itself): each block is the next piece of one
 * zlib stream per direction, primed with the SPDY/3 dictionary, ending with
 * a sync flush.
 *
 * The blocks of a session are few and small (a SYN_STREAM per forwarded
 * connection), so instead of holding an asynchronous inflater the reader
 * keeps the compressed bytes and inflates them all again, synchronously, for
 * each block: the new output is what lies past what earlier blocks gave.
 */
import { createRequire } from 'node:module';
import { constants, inflateSync } from 'node:zlib';

/** The SPDY/3 header dictionary (1423 bytes; Adler-32 0xe3c6a7c2, the DICTID frames.ts writes), as spdy-transport has it. */
export const spdyDictionary: Buffer = (createRequire(import.meta.url)('spdy-transport/lib/spdy-transport/protocol/spdy/dictionary.js') as Record<number, Buffer>)[3]!;

export class HeaderReader {
  private compressed: Buffer = Buffer.alloc(0);
  private seen = 0;

  /** The name/value pairs of the next block (names are lowercase in SPDY/3; a repeated name keeps the last value). */
  block(piece: Buffer): Record<string, string> {
    this.compressed = Buffer.concat([this.compressed, piece]);
    const all = inflateSync(this.compressed, { dictionary: spdyDictionary, finishFlush: constants.Z_SYNC_FLUSH });
    const raw = all.subarray(this.seen);
    this.seen = all.length;
    const headers: Record<string, string> = {};
    let off = 0;
    const u32 = () => { const n = raw.readUInt32BE(off); off += 4; return n; };
    const str = () => { const n = u32(); const s = raw.subarray(off, off + n).toString('utf8'); off += n; return s; };
    for (let count = u32(); count > 0; count--) {
      const name = str();
      // Several values of one name are joined by NUL bytes.
      headers[name] = str().split('\0').pop()!;
    }
    return headers;
  }
}
