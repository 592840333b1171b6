/**
 * APIResponseCompression, as kube-apiserver's responsewriters do it (on by
 * default since 1.16): an answer that carries an object (get, list, create,
 * update, patch, delete, a Status, a Table, discovery) and is larger than
 * 128 KiB goes gzipped, at level 1, to a client whose `Accept-Encoding`
 * admits gzip, with `Content-Encoding: gzip` and `Vary: Accept-Encoding` and
 * no Content-Length (upstream's are chunked too). Smaller answers go as they
 * are, and so do watches: upstream's WatchServer writes its frames to the
 * connection itself, never through the compressing writer.
 *
 * The compression runs on libuv's thread pool (node:zlib's stream), never on
 * the event loop every client shares, and is fed a slice at a time, each
 * after the compressor took the one before, so a list is never held twice
 * (its text beside its gzip): memory stays at a slice and a compressed chunk.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Transform } from 'node:stream';
import { createGzip } from 'node:zlib';
import { acceptsGzip } from '../util/http-gzip.js';
import { drainedOrClosed } from '../util/drained.js';

/**
 * Upstream's defaultGzipThresholdBytes: an answer of at most this many bytes is
 * not compressed (the CPU buys little on a body this size).
 */
export const gzipThresholdBytes = 128 * 1024;

/**
 * Upstream's gzipContentEncodingLevel: level 1 uses the least CPU, and its
 * ratio is within 1.1-1.3x of the best (kubernetes/kubernetes#112296).
 */
export const gzipLevel = 1;

/** zlib's output chunk: one loop turn (and one socket write) per 64 KiB of gzip rather than per 16 KiB. */
const gzipChunkBytes = 64 * 1024;

/**
 * Whether an answer of `bytes` goes gzipped to this request. The client asks
 * with `Accept-Encoding` (Go's transport, so kubectl and client-go, sends
 * `gzip` unless compression is disabled); `gzip;q=0` and `identity` refuse.
 * Unlike upstream (which looks for the bare token `gzip`), a q-value above 0,
 * `x-gzip` and `*` admit gzip too, as RFC 9110 §12.5.3 reads them.
 */
export function gzipsAnswer(req: { headers: IncomingHttpHeaders } | undefined, bytes: number): boolean {
  return bytes > gzipThresholdBytes && acceptsGzip(req?.headers['accept-encoding']);
}

/** The headers of a gzipped answer: the body's own, less its length, plus the coding and Vary. */
export function gzippedHeaders(headers: Record<string, string | number>): Record<string, string | number> {
  const { 'Content-Length': _, ...rest } = headers;
  return { ...rest, 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' };
}

/** The parts of a body, as text or bytes, produced as they are asked for (synchronously or not). */
export type BodyParts = Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>;

/**
 * The gzip of `parts`, in chunks of up to 64 KiB, compressed on the thread
 * pool as the consumer asks for them: the parts are fed only while the
 * compressor keeps up, so at most a part and a chunk are held. A consumer
 * that stops early (the client left) stops the compression and frees it.
 */
export async function* gzipChunks(parts: BodyParts): AsyncGenerator<Buffer> {
  const gz = createGzip({ level: gzipLevel, chunkSize: gzipChunkBytes });
  const fed = feed(gz, parts);
  try {
    for await (const chunk of gz) yield chunk as Buffer;
    await fed;
  } finally {
    gz.destroy();
    await fed;
  }
}

/** Writes every part into the compressor, waiting for it to drain after each; a failure is the compressor's. */
async function feed(gz: Transform, parts: BodyParts): Promise<void> {
  try {
    for await (const part of parts) {
      if (gz.destroyed) return;
      if (!gz.write(part)) await drainedOrClosed(gz);
    }
    if (!gz.destroyed) gz.end();
  } catch (err) {
    gz.destroy(err as Error);
  }
}

