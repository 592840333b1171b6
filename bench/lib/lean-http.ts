/**
 * A lean HTTP/1.1 client for create benchmarks: one keep-alive socket per client, one request at
 * a time, the request written as one prepared string and the answer parsed only for its status
 * and body (Content-Length or chunked).
 *
 * Why: bench/side-by-side.ts drives thousands of creates a second from one Node process, and
 * node:https's client (ClientRequest, the Agent's bookkeeping, IncomingMessage's stream) cost it
 * 80-120 µs of CPU per request on this 2-core machine, on the cores the server under test needs.
 * The server's answers to one group commit arrive together and this one thread turns them around
 * one after the other, so a dear client delays the next requests, and the server waits for them.
 * Both raw etcd and k8ts are driven through it alike (`--client lean`).
 */
import net from 'node:net';
import tls from 'node:tls';

export interface LeanTarget { url: URL; ca?: string; cert?: string; key?: string }
export interface LeanReply { status: number; body: Buffer }

export class LeanConnection {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private waiting?: { resolve: (r: LeanReply) => void; reject: (e: Error) => void };

  private constructor(private readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on('data', (c: Buffer) => { this.chunks.push(c); this.buffered += c.length; this.parse(); });
    socket.on('error', (e) => this.fail(e));
    socket.on('close', () => this.fail(new Error('connection closed')));
  }

  static open(t: LeanTarget): Promise<LeanConnection> {
    const port = Number(t.url.port);
    return new Promise((resolve, reject) => {
      const socket = t.url.protocol === 'https:'
        ? tls.connect({ host: t.url.hostname, port, ca: t.ca, cert: t.cert, key: t.key, servername: t.url.hostname === '127.0.0.1' ? undefined : t.url.hostname }, () => resolve(new LeanConnection(socket)))
        : net.connect({ host: t.url.hostname, port }, () => resolve(new LeanConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** POSTs a JSON body; resolves with the answer's status and body. */
  post(host: string, path: string, body: string): Promise<LeanReply> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(`POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private fail(e: Error): void {
    const w = this.waiting;
    this.waiting = undefined;
    w?.reject(e);
  }

  /** Takes one whole answer off the buffered bytes, if they hold one. */
  private parse(): void {
    if (!this.waiting) return;
    const data = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
    this.chunks = [data];
    const headEnd = data.indexOf('\r\n\r\n');
    if (headEnd < 0) return;
    const head = data.toString('latin1', 0, headEnd);
    const status = Number(head.slice(9, 12));
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    let body: Buffer;
    let end: number;
    if (length) {
      end = headEnd + 4 + Number(length[1]);
      if (data.length < end) return;
      body = data.subarray(headEnd + 4, end);
    } else if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
      const parts: Buffer[] = [];
      let at = headEnd + 4;
      for (;;) {
        const lineEnd = data.indexOf('\r\n', at);
        if (lineEnd < 0) return;
        const size = parseInt(data.toString('latin1', at, lineEnd), 16);
        if (data.length < lineEnd + 2 + size + 2) return;
        if (size === 0) { end = lineEnd + 4; break; }
        parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
      }
      body = Buffer.concat(parts);
    } else {
      throw new Error(`lean-http: an answer without a length: ${head.slice(0, 200)}`);
    }
    const rest = data.subarray(end);
    this.chunks = rest.length ? [rest] : [];
    this.buffered = rest.length;
    const w = this.waiting;
    this.waiting = undefined;
    w.resolve({ status, body });
  }
}
