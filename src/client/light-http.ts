/**
 * Keep-alive HTTP/1.1 over TLS for a client that sends bursts of small
 * requests: the scheduler's bindings, thousands a second. Node's http client
 * costs a ClientRequest, an IncomingMessage, their streams and events and an
 * agent's socket hand-over per request; here a request is one string written
 * to an idle connection and its response is cut out of the socket's bytes.
 * On the wire it is what https.Agent sends: one request at a time on each of
 * up to `maxConnections` keep-alive connections, the rest waiting for one.
 * (Not pipelined: Node's http server drops a connection whose parser is
 * paused for backpressure while pipelined requests arrive, HPE_PAUSED, and
 * Go's serves pipelined requests one after another.)
 *
 * A connection that closes or fails rejects the request on it (as a reused
 * socket's hang-up does with Node's client: not retried here, since a POST
 * may already have been applied); the next request opens a new connection.
 */
import tls from 'node:tls';
import { isIP } from 'node:net';

export interface LightHttpTarget {
  hostname: string;
  port: number;
  ca?: string;
  cert?: string;
  key?: string;
  rejectUnauthorized: boolean;
}

export interface LightHttpResponse {
  statusCode: number;
  /** The Retry-After header, if any (client-go's retry reads it). */
  retryAfter?: string;
  body: string;
}

interface Waiting { resolve(r: LightHttpResponse): void; reject(e: Error): void }

/** One response's head: the status, how its body is framed, and whether the server closes after it. */
interface Head { statusCode: number; bodyStart: number; length?: number; chunked: boolean; close: boolean; retryAfter?: string }

const crlfcrlf = Buffer.from('\r\n\r\n');

function parseHead(buf: Buffer, end: number): Head {
  const lines = buf.toString('latin1', 0, end).split('\r\n');
  const statusCode = Number(lines[0].split(' ')[1]);
  const head: Head = { statusCode, bodyStart: end + 4, chunked: false, close: false };
  for (let i = 1; i < lines.length; i++) {
    const colon = lines[i].indexOf(':');
    if (colon < 0) continue;
    const name = lines[i].slice(0, colon).trim().toLowerCase();
    const value = lines[i].slice(colon + 1).trim();
    if (name === 'content-length') head.length = Number(value);
    else if (name === 'transfer-encoding') head.chunked = value.toLowerCase().split(',').some((v) => v.trim() === 'chunked');
    else if (name === 'connection') head.close = value.toLowerCase().split(',').some((v) => v.trim() === 'close');
    else if (name === 'retry-after') head.retryAfter = value;
  }
  // 1xx, 204 and 304 have no body (RFC 9112 §6.3).
  if (statusCode === 204 || statusCode === 304 || (statusCode >= 100 && statusCode < 200)) head.length = 0;
  return head;
}

/** A chunked body's end and text, or undefined while it is incomplete. */
function parseChunked(buf: Buffer, start: number): { end: number; body: string } | undefined {
  const parts: Buffer[] = [];
  let at = start;
  for (;;) {
    const lineEnd = buf.indexOf('\r\n', at, 'latin1');
    if (lineEnd < 0) return undefined;
    const size = parseInt(buf.toString('latin1', at, lineEnd).split(';')[0], 16);
    if (!Number.isFinite(size)) throw new Error('malformed chunked response');
    if (size === 0) {
      // Trailers (none expected) end with an empty line.
      const end = buf.indexOf(crlfcrlf, lineEnd);
      if (end < 0) return undefined;
      return { end: end + 4, body: Buffer.concat(parts).toString('utf8') };
    }
    if (buf.length < lineEnd + 2 + size + 2) return undefined;
    parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

class LightConnection {
  /** The request on the connection, awaiting its response. */
  current?: Waiting;
  private buf: Buffer = Buffer.alloc(0);
  closed = false;
  private readonly socket: tls.TLSSocket;

  constructor(target: LightHttpTarget & { secureContext: tls.SecureContext }, private readonly onIdle: (c: LightConnection) => void, private readonly onClose: (c: LightConnection) => void) {
    this.socket = tls.connect({
      host: target.hostname, port: target.port, secureContext: target.secureContext,
      rejectUnauthorized: target.rejectUnauthorized, servername: isIP(target.hostname) ? undefined : target.hostname,
    });
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (e) => this.fail(e));
    this.socket.on('close', () => this.fail(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })));
  }

  send(request: string, w: Waiting): void {
    this.current = w;
    this.socket.write(request);
  }

  private onData(chunk: Buffer): void {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    try {
      while (this.buf.length > 0 && this.takeResponse());
    } catch (e) {
      this.socket.destroy(e as Error);
    }
  }

  /** Cuts one complete response off the buffer and hands it to the request; false while incomplete. */
  private takeResponse(): boolean {
    const headEnd = this.buf.indexOf(crlfcrlf);
    if (headEnd < 0) return false;
    const head = parseHead(this.buf, headEnd);
    if (head.statusCode >= 100 && head.statusCode < 200) { this.buf = this.buf.subarray(head.bodyStart); return true; }
    let end: number;
    let body: string;
    if (head.chunked) {
      const c = parseChunked(this.buf, head.bodyStart);
      if (!c) return false;
      ({ end, body } = c);
    } else {
      if (head.length === undefined || !Number.isFinite(head.length)) throw new Error('response without a length on a keep-alive connection');
      end = head.bodyStart + head.length;
      if (this.buf.length < end) return false;
      body = this.buf.toString('utf8', head.bodyStart, end);
    }
    this.buf = this.buf.subarray(end);
    const w = this.current;
    if (!w) throw new Error('response without a request');
    this.current = undefined;
    // The server answers nothing after "Connection: close": the connection is not used again.
    if (head.close) { this.markClosed(); this.socket.end(); }
    w.resolve({ statusCode: head.statusCode, retryAfter: head.retryAfter, body });
    if (!this.closed) this.onIdle(this);
    return true;
  }

  private markClosed(): void {
    if (!this.closed) { this.closed = true; this.onClose(this); }
  }

  private fail(e: Error): void {
    this.markClosed();
    const w = this.current;
    this.current = undefined;
    w?.reject(e);
  }

  destroy(): void { this.socket.destroy(); }
}

/** Up to `maxConnections` keep-alive connections to one server; a request takes an idle one or waits for one. */
export class LightHttpPool {
  private readonly idle: LightConnection[] = [];
  private readonly all = new Set<LightConnection>();
  private open = 0;
  private closed = false;
  /** Connections opened so far (diagnostics). */
  connectionsOpened = 0;
  private readonly queue: Array<{ request: string; w: Waiting }> = [];

  private readonly target: LightHttpTarget & { secureContext: tls.SecureContext };

  constructor(target: LightHttpTarget, private readonly maxConnections = 64) {
    // One secure context for every connection (the CA, certificate and key parsed once).
    this.target = { ...target, secureContext: tls.createSecureContext({ ca: target.ca, cert: target.cert, key: target.key }) };
  }

  /** Sends one request (its head and body already serialized) and resolves with its response. */
  send(request: string): Promise<LightHttpResponse> {
    return new Promise((resolve, reject) => {
      const w = { resolve, reject };
      if (this.closed) { reject(new Error('client closed')); return; }
      const c = this.idle.pop() ?? (this.open < this.maxConnections ? this.connect() : undefined);
      if (c) c.send(request, w); else this.queue.push({ request, w });
    });
  }

  private connect(): LightConnection {
    this.open++;
    this.connectionsOpened++;
    const conn = new LightConnection(this.target, (c) => this.released(c), (gone) => {
      this.open--;
      this.all.delete(gone);
      const i = this.idle.indexOf(gone);
      if (i >= 0) this.idle.splice(i, 1);
      // Requests waiting for a connection get a new one.
      if (this.queue.length > 0 && this.open < this.maxConnections) {
        const next = this.queue.shift()!;
        this.connect().send(next.request, next.w);
      }
    });
    this.all.add(conn);
    return conn;
  }

  private released(c: LightConnection): void {
    const next = this.queue.shift();
    if (next) c.send(next.request, next.w); else this.idle.push(c);
  }

  /** Closes every connection (a request still on one fails with it, as https.Agent.destroy() does). */
  close(): void {
    this.closed = true;
    for (const { w } of this.queue.splice(0)) w.reject(new Error('client closed'));
    this.idle.length = 0;
    for (const c of [...this.all]) c.destroy();
  }
}
