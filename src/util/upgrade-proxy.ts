/**
 * An HTTP Upgrade passed on to the next hop byte for byte, as upstream's
 * UpgradeAwareHandler does for SPDY (exec, attach and port-forward when a
 * client does not speak WebSocket):
 *
 *  1. `dialUpgrade` sends the upgrade request to the next hop (an http or
 *     https URL, with the caller's transport options, e.g. a client
 *     certificate) and resolves with its answer: the 101 with the upgraded
 *     socket, or any other status with its body (read up to 4 KiB).
 *  2. `spliceUpgrade` writes that 101 to the caller's socket with the next
 *     hop's headers (X-Stream-Protocol-Version says which protocol won),
 *     then copies bytes both ways until either side ends; Node's pipe
 *     keeps backpressure.
 * Nothing here parses the protocol inside: the SPDY session runs end to end
 * between the client and the runtime's streaming server.
 */
import http, { type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';

export type UpgradeAnswer =
  | { upgraded: true; res: IncomingMessage; socket: Duplex; head: Buffer }
  | { upgraded: false; statusCode: number; headers: IncomingMessage['headers']; body: string };

export interface DialUpgradeOptions {
  method?: string;
  headers: OutgoingHttpHeaders;
  /** https.request options: cert, key, ca, rejectUnauthorized, checkServerIdentity... */
  tls?: https.RequestOptions;
  timeoutMs?: number;
  /** The connection to speak HTTP over instead of dialling the URL's host (a pod on a simulated node, through its kubelet). */
  dial?: () => Promise<Duplex>;
}

const maxBody = 4 * 1024;

export function dialUpgrade(url: string, opts: DialUpgradeOptions): Promise<UpgradeAnswer> {
  const secure = url.startsWith('https:');
  return new Promise((resolve, reject) => {
    const dial = opts.dial;
    const req = dial
      ? http.request(url, {
        method: opts.method ?? 'POST', headers: opts.headers,
        createConnection: (_o, cb) => { dial().then((c) => cb(null, c as never), (e: Error) => cb(e, undefined as never)); return undefined as never; },
      })
      : (secure ? https : http).request(url, {
        method: opts.method ?? 'POST', headers: opts.headers, agent: false, ...(secure ? opts.tls : {}),
      });
    const timer = setTimeout(() => req.destroy(new Error(`timed out upgrading the connection to ${new URL(url).host}`)), opts.timeoutMs ?? 30_000);
    req.on('upgrade', (res, socket, head) => {
      clearTimeout(timer);
      if (res.statusCode === 101) return resolve({ upgraded: true, res, socket, head });
      socket.destroy();
      resolve({ upgraded: false, statusCode: res.statusCode ?? 500, headers: res.headers, body: '' });
    });
    req.on('response', (res) => {
      clearTimeout(timer);
      const chunks: Buffer[] = [];
      let n = 0;
      res.on('data', (c: Buffer) => { if (n < maxBody) { chunks.push(c); n += c.length; } });
      const done = () => resolve({ upgraded: false, statusCode: res.statusCode ?? 500, headers: res.headers, body: Buffer.concat(chunks).subarray(0, maxBody).toString('utf8') });
      res.on('end', done);
      res.on('error', done);
    });
    req.on('error', (e) => { clearTimeout(timer); reject(e); });
    req.end();
  });
}

/** Hop-by-hop headers of a 101 that the splice writes itself. */
const own = new Set(['connection', 'upgrade']);

/** The 101 head with the next hop's headers, as raw HTTP/1.1 text. */
export function switchingProtocolsHead(res: IncomingMessage, upgrade: string): string {
  const lines = ['HTTP/1.1 101 Switching Protocols', 'Connection: Upgrade', `Upgrade: ${upgrade}`];
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    if (!own.has(res.rawHeaders[i]!.toLowerCase())) lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/**
 * Joins the caller's socket (whose request is answered with the 101 here)
 * to the upgraded connection of the next hop. `callerHead` holds bytes the
 * caller sent after its request head.
 */
export function spliceUpgrade(caller: Duplex, callerHead: Buffer, answer: Extract<UpgradeAnswer, { upgraded: true }>): void {
  const { res, socket: next, head } = answer;
  caller.write(switchingProtocolsHead(res, String(res.headers.upgrade ?? 'SPDY/3.1')));
  if (head.length) caller.write(head);
  if (callerHead.length) next.write(callerHead);
  joinSockets(caller, next);
}

/** Copies bytes both ways; when either side ends or fails, both are closed. */
export function joinSockets(a: Duplex, b: Duplex): void {
  const finish = () => { a.destroy(); b.destroy(); };
  a.on('error', finish);
  b.on('error', finish);
  a.on('close', finish);
  b.on('close', finish);
  a.pipe(b);
  b.pipe(a);
}
