/**
 * One GET at a time over one TLS connection held open, without node:http: the request's bytes are
 * made once, and an answer is read to the end of its body (Content-Length, or a chunked body's last
 * chunk) and its status taken from the status line. The bystander (bystander-thread.ts) measures
 * the server with it: node:https's client (its Agent, parser, streams and timers) cost the
 * bystander's thread about 1 ms of CPU a GET sent every 100 ms, as much as the server's own work
 * for it (bench/RESULTS.md, byst23), and on a busy host each of those milliseconds is one more
 * chance to wait on a run queue, which the benchmark then charged to the server.
 */
import tls from 'node:tls';
import type { Credentials } from './client.js';

const headEnd = Buffer.from('\r\n\r\n');
const lastChunk = Buffer.from('\r\n0\r\n\r\n');

export class LeanGet {
  private socket?: tls.TLSSocket;
  private readonly request: Buffer;
  private readonly url: URL;
  /** The GET in flight first, then those asked for meanwhile (sent in turn, as node:https's Agent with one socket). */
  private readonly queue: { chunks: Buffer[]; resolve: (status: number) => void; reject: (e: Error) => void }[] = [];

  constructor(private readonly creds: Credentials, path: string) {
    this.url = new URL(creds.server);
    this.request = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${this.url.host}\r\nAccept: application/json\r\nUser-Agent: k8ts-bench-bystander\r\n\r\n`);
  }

  /** Resolves with the answer's status once its whole body is in; sent when the GETs before it are answered. */
  get(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ chunks: [], resolve, reject });
      if (this.queue.length === 1) this.send();
    });
  }

  close(): void { this.socket?.destroy(); }

  private connect(): tls.TLSSocket {
    const { ca, cert, key } = this.creds;
    const socket = tls.connect({ host: this.url.hostname, port: Number(this.url.port), ca, cert, key, servername: this.url.hostname === '127.0.0.1' ? undefined : this.url.hostname });
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => this.received(d));
    // The GET in flight fails with its connection; the next one opens another.
    const gone = (e?: Error) => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.queue.shift()?.reject(e ?? new Error('connection closed'));
      this.send();
    };
    socket.once('error', gone);
    socket.once('close', () => gone());
    this.socket = socket;
    return socket;
  }

  private send(): void {
    if (this.queue.length) (this.socket ?? this.connect()).write(this.request);
  }

  private received(d: Buffer): void {
    const w = this.queue[0];
    if (!w) return;
    w.chunks.push(d);
    const answer = complete(w.chunks.length === 1 ? d : Buffer.concat(w.chunks));
    if (answer === undefined) return;
    this.queue.shift();
    // The server's last answer on this connection: the next GET goes on a new one.
    if (answer.close) { this.socket?.destroy(); this.socket = undefined; }
    w.resolve(answer.status);
    this.send();
  }
}

/**
 * A whole HTTP/1.1 answer in `all`: its status, and whether the server closes the connection after
 * it (`Connection: close`); undefined while some of it is still to come.
 */
export function complete(all: Buffer): { status: number; close: boolean } | undefined {
  const end = all.indexOf(headEnd);
  if (end < 0) return undefined;
  const head = all.subarray(0, end).toString('latin1');
  const answer = { status: Number(head.slice(9, 12)), close: /\r\nconnection:\s*close/i.test(head) };
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1];
  if (length !== undefined) return all.length >= end + 4 + Number(length) ? answer : undefined;
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) return all.subarray(all.length - lastChunk.length).equals(lastChunk) ? answer : undefined;
  return answer; // no body (204, 304)
}
