/**
 * gRPC over one HTTP/2 connection (node:http2), as little of it as etcd's KV and Watch calls
 * need: a unary call is a POST stream with one length-prefixed message each way and the status
 * in the trailers; a bidirectional stream (Watch) carries length-prefixed messages both ways.
 * Every call is a stream on the one connection, any number in flight at once, as upstream's
 * clientv3 multiplexes them. Compared with @grpc/grpc-js this skips its per-call layers
 * (interceptors, retry and load-balancing calls, metadata, deadlines, filters) that were a large
 * part of a create's CPU on etcd.
 *
 * The connection is opened on the first call and again on the first call after it is lost, so a
 * restarted etcd is reached without any help; a call in flight when it is lost fails (Unavailable)
 * and is not repeated, since a write's fate is then unknown (the caller answers 5xx, as upstream's).
 */
import http2 from 'node:http2';
import { openStream } from './open-stream.js';
import { StorageError } from '../../backend.js';

/**
 * A gRPC status (etcd's errors keep their text in `details`, e.g. "etcdserver: mvcc: required
 * revision has been compacted"). Its message is what Go's etcd client makes of it, so the API
 * answers in kube-apiserver's words: etcd's own errors (rpctypes) read as their text alone, any
 * other status as grpc-go prints one.
 */
export class GrpcError extends StorageError {
  constructor(readonly code: number, readonly details: string) {
    super(details.startsWith('etcdserver: ') ? details : `rpc error: code = ${codeNames[code] ?? `Code(${code})`} desc = ${details}`);
    this.name = 'GrpcError';
  }
}

/** grpc-go's codes.Code names. */
const codeNames: Record<number, string> = {
  0: 'OK', 1: 'Canceled', 2: 'Unknown', 3: 'InvalidArgument', 4: 'DeadlineExceeded', 5: 'NotFound',
  6: 'AlreadyExists', 7: 'PermissionDenied', 8: 'ResourceExhausted', 9: 'FailedPrecondition', 10: 'Aborted',
  11: 'OutOfRange', 12: 'Unimplemented', 13: 'Internal', 14: 'Unavailable', 15: 'DataLoss', 16: 'Unauthenticated',
};

export const UNAVAILABLE = 14;

export interface ChannelOptions {
  /** http://host:port or https://host:port */
  url: string;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

/** A bidirectional stream's handle: write messages (framed), end it. */
export interface GrpcStream {
  write(frame: Buffer): void;
  close(): void;
}

export interface StreamHandlers {
  onMessage(message: Buffer): void;
  /** Once, when the stream ends for any reason other than close(). */
  onEnd(err: Error): void;
}

/** Lists and watch batches can be large: let etcd send up to 16 MiB ahead on a stream and on the connection. */
const windowSize = 16 * 1024 * 1024;

const { NGHTTP2_CANCEL, NGHTTP2_REFUSED_STREAM } = http2.constants;

export class GrpcChannel {
  private session?: http2.ClientHttp2Session;
  private closed = false;
  private readonly headers = new Map<string, http2.OutgoingHttpHeaders>();

  constructor(private readonly opts: ChannelOptions) {}

  /**
   * One request, one answer. `retrySafe`: the call may be sent again when the connection was lost
   * under it (reads); a write is sent again only when etcd refused its stream unprocessed.
   */
  unary(path: string, frame: Buffer, retrySafe = false): Promise<Buffer> {
    return this.attempt(path, frame, retrySafe ? 1 : 0, false);
  }

  /** A bidirectional stream on the connection. */
  stream(path: string, handlers: StreamHandlers): GrpcStream {
    let ended = false;
    const end = (err: Error) => { if (!ended) { ended = true; handlers.onEnd(err); } };
    let req: http2.ClientHttp2Stream;
    try {
      req = openStream(this.connection(), this.headersFor(path), { endStream: false });
    } catch (err) {
      queueMicrotask(() => end(unavailable(err as Error)));
      return { write: () => {}, close: () => { ended = true; } };
    }
    const frames = new FrameReader();
    let status: number | undefined;
    let details = '';
    let failure: Error | undefined;
    req.on('response', (h) => {
      if (h['grpc-status'] !== undefined) { status = Number(h['grpc-status']); details = grpcMessage(h['grpc-message']); }
    });
    req.on('data', (chunk: Buffer) => {
      if (ended) return;
      try {
        for (const message of frames.push(chunk)) {
          if (ended) return;
          handlers.onMessage(message);
        }
      } catch (err) {
        end(err as Error);
        req.close(NGHTTP2_CANCEL);
      }
    });
    req.on('trailers', (h) => { status = Number(h['grpc-status']); details = grpcMessage(h['grpc-message']); });
    req.on('error', (err) => { failure = err; });
    req.on('close', () => {
      if (status !== undefined && status !== 0) end(new GrpcError(status, details));
      else end(failure ? unavailable(failure) : new Error('etcd ended the stream'));
    });
    return {
      write: (frame) => { if (!ended && !req.closed) req.write(frame); },
      close: () => { if (!ended) { ended = true; if (!req.closed) req.close(NGHTTP2_CANCEL); } },
    };
  }

  close(): void {
    this.closed = true;
    this.session?.close();
    this.session?.destroy();
    this.session = undefined;
  }

  private attempt(path: string, frame: Buffer, retries: number, refusedRetried: boolean): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      let req: http2.ClientHttp2Stream;
      try {
        req = openStream(this.connection(), this.headersFor(path));
      } catch (err) {
        // The connection was unusable before anything was sent: safe to try on a fresh one.
        this.drop();
        if (!this.closed && !refusedRetried) return resolve(this.attempt(path, frame, retries, true));
        return reject(unavailable(err as Error));
      }
      const chunks: Buffer[] = [];
      let status: number | undefined;
      let details = '';
      let failure: Error | undefined;
      req.on('response', (h) => {
        // A "trailers-only" answer (an error) carries the status in the headers.
        if (h['grpc-status'] !== undefined) { status = Number(h['grpc-status']); details = grpcMessage(h['grpc-message']); }
      });
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('trailers', (h) => { status = Number(h['grpc-status']); details = grpcMessage(h['grpc-message']); });
      req.on('error', (err) => { failure = err; });
      req.on('close', () => {
        if (status === 0) {
          try { resolve(firstMessage(chunks)); } catch (err) { reject(err); }
          return;
        }
        if (status !== undefined) return reject(new GrpcError(status, details));
        // No status: the stream or the connection broke. Refused streams were never processed.
        const refused = req.rstCode === NGHTTP2_REFUSED_STREAM;
        if (!this.closed && refused && !refusedRetried) return resolve(this.attempt(path, frame, retries, true));
        if (!this.closed && retries > 0) return resolve(this.attempt(path, frame, retries - 1, refusedRetried));
        reject(unavailable(failure ?? new Error(`stream closed with code ${req.rstCode}`)));
      });
      req.end(frame);
    });
  }

  private headersFor(path: string): http2.OutgoingHttpHeaders {
    let h = this.headers.get(path);
    if (!h) {
      h = { ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' };
      this.headers.set(path, h);
    }
    return h;
  }

  private connection(): http2.ClientHttp2Session {
    if (this.closed) throw new Error('etcd client is closed');
    const current = this.session;
    if (current && !current.closed && !current.destroyed) return current;
    const { url, ca, cert, key } = this.opts;
    const session = http2.connect(url, {
      ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}),
      settings: { initialWindowSize: windowSize },
      // Answers waiting to be read by a busy event loop are bounded by the windows above, not by this.
      maxSessionMemory: 64,
    });
    const forget = () => { if (this.session === session) this.session = undefined; };
    // Errors reach the calls on the session's streams; the session itself is only forgotten.
    session.on('error', forget);
    session.on('goaway', forget);
    session.on('close', forget);
    session.once('connect', () => { try { session.setLocalWindowSize(windowSize); } catch { /* closing already */ } });
    this.session = session;
    return session;
  }

  private drop(): void {
    const s = this.session;
    this.session = undefined;
    s?.destroy();
  }
}

function unavailable(err: Error): GrpcError {
  return new GrpcError(UNAVAILABLE, `connection to etcd failed: ${err.message}`);
}

function grpcMessage(v: string | string[] | undefined): string {
  const s = Array.isArray(v) ? v[0] : v;
  if (!s) return '';
  try { return decodeURIComponent(s); } catch { return s; }
}

/** The one message of a unary answer, from its data chunks. */
function firstMessage(chunks: Buffer[]): Buffer {
  const data = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  if (data.length < 5) throw new GrpcError(13, 'etcd answered without a message');
  if (data[0] !== 0) throw new GrpcError(13, 'etcd answered a compressed message, which was not asked for');
  const len = data.readUInt32BE(1);
  if (data.length < 5 + len) throw new GrpcError(13, 'etcd answered a truncated message');
  return data.subarray(5, 5 + len);
}

/** Splits a stream's data into gRPC messages, however the chunks cut them. */
class FrameReader {
  private chunks: Buffer[] = [];
  private size = 0;

  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.size += chunk.length;
    const out: Buffer[] = [];
    while (this.size >= 5) {
      const head = this.peek(5);
      if (head[0] !== 0) throw new GrpcError(13, 'etcd sent a compressed message, which was not asked for');
      const len = head.readUInt32BE(1);
      if (this.size < 5 + len) break;
      out.push(this.take(5 + len).subarray(5));
    }
    return out;
  }

  private peek(n: number): Buffer {
    if (this.chunks[0].length < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0];
  }

  private take(n: number): Buffer {
    if (this.chunks[0].length < n) this.chunks = [Buffer.concat(this.chunks)];
    const first = this.chunks[0];
    const taken = first.subarray(0, n);
    if (first.length === n) this.chunks.shift(); else this.chunks[0] = first.subarray(n);
    this.size -= n;
    return taken;
  }
}
