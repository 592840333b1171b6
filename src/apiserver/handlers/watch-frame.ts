/**
 * One tick's events of a watch stream as one HTTP/1.1 chunk (`<hex size>\r\n<events>\r\n`),
 * built once for every watcher that sends the same events in the same pass, and written to the
 * connection in one write.
 *
 * Why: with W watchers of one namespace every write's event is queued for all W, and in one
 * flush pass (watch-flush.ts) each of them writes the same events. Built per watcher, that was W
 * Buffer.concat copies, and Node's chunked res.write hands the TLS socket three buffers (size
 * line, data, CRLF) through cork/uncork and writev, which TLSWrap copies once more into one
 * record: per event per watcher about 5 µs of the server's CPU (bench/side-by-side.ts
 * --watchers). Upstream's cacher likewise serializes an event once for all its watchers
 * (cachingObject); the encryption and the socket write stay per watcher.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** The events of one pass, by their first event: the parts and the chunk built of them. */
let passFrames: Map<Buffer, { parts: Buffer[]; frame: Buffer }[]> | undefined;

/** The chunk of `parts` (in order), shared with the watchers of this turn that send the same parts. */
export function chunkFrame(parts: Buffer[]): Buffer {
  if (passFrames === undefined) {
    passFrames = new Map();
    // Kept for this turn of the loop only: the next pass has other events.
    setImmediate(() => { passFrames = undefined; });
  }
  const first = parts[0]!;
  let built = passFrames.get(first);
  const same = built?.find((b) => sameParts(b.parts, parts));
  if (same) return same.frame;
  const frame = buildChunk(parts);
  if (built === undefined) { built = []; passFrames.set(first, built); }
  // Watchers whose selections differ make distinct sequences; a few of each first event are kept.
  if (built.length < maxFramesPerFirst) built.push({ parts, frame });
  return frame;
}
const maxFramesPerFirst = 8;

function sameParts(a: Buffer[], b: Buffer[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function buildChunk(parts: Buffer[]): Buffer {
  let size = 0;
  for (const p of parts) size += p.length;
  const head = size.toString(16) + '\r\n';
  const frame = Buffer.allocUnsafe(head.length + size + 2);
  let at = frame.write(head, 0, 'latin1');
  for (const p of parts) at += p.copy(frame, at);
  frame.write('\r\n', at, 'latin1');
  return frame;
}

/**
 * The connection a chunked response may write its own chunks to: the response's socket when
 * the response owns it (not queued behind another pipelined response) and has nothing of its
 * own still buffered; otherwise undefined, and the caller writes through `res.write`.
 */
export function chunkSocket(res: ServerResponse): Socket | undefined {
  const socket = res.socket as (Socket & { _httpMessage?: unknown }) | null;
  // outputSize: what the response holds back itself (the socket's own buffer keeps its order).
  const held = (res as ServerResponse & { outputSize?: number }).outputSize;
  if (!socket || socket._httpMessage !== res || !res.headersSent || held !== 0 || !socket.writable || res.writableEnded) return undefined;
  // A HEAD answer has no body: res.write drops what is written, a write to the socket would not,
  // and the bytes would be read as the start of the next answer on the keep-alive connection.
  if (res.req?.method === 'HEAD') return undefined;
  // Only a chunked HTTP/1.1 body may be framed here (an HTTP/1.0 client gets the body unframed).
  if (!(res as ServerResponse & { chunkedEncoding?: boolean }).chunkedEncoding) return undefined;
  return socket;
}
