/**
 * gzip for answers whose client asks for it (`Accept-Encoding`, RFC 9110
 * §12.5.3), with Node's zlib: whole bodies compressed on libuv's thread
 * pool (not on the event loop every client shares), streams flushed line by
 * line so a watch's lines arrive when written, not when a block fills.
 */
import { promisify } from 'node:util';
import { constants, createGzip, gzip as gzipCallback, type Gzip } from 'node:zlib';
import type { Writable } from 'node:stream';

/** Below this a body goes as it is: gzip's 18-byte frame and the CPU buy nothing. */
export const gzipMinBytes = 1024;

export const gzipBody: (body: string | Buffer) => Promise<Buffer> = promisify(gzipCallback);

/**
 * Whether an Accept-Encoding header admits gzip: `gzip` (or `x-gzip`, or `*` when gzip
 * is not named) with a q-value above 0. No header: identity only, as a client that did not ask.
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  let star: boolean | undefined;
  for (const part of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    const admitted = q === undefined || Number(q) > 0;
    if (coding === 'gzip' || coding === 'x-gzip') return admitted;
    if (coding === '*') star = admitted;
  }
  return star === true;
}

/**
 * A gzip stream into `out` that flushes after every write (Z_SYNC_FLUSH): each line of a
 * watch is decodable as soon as it is sent. Ending it ends `out`.
 */
export function gzipLines(out: Writable): Gzip {
  const gz = createGzip({ flush: constants.Z_SYNC_FLUSH });
  gz.pipe(out);
  return gz;
}
