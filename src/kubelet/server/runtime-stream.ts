/**
 * Joins a caller's upgraded connection to the runtime's streaming server
 * (the URL of a CRI Exec, Attach or PortForward), as upstream's kubelet
 * proxyStream does, in whichever protocol the caller speaks:
 *
 *  - SPDY/3.1 (kubectl's fallback, X-Stream-Protocol-Version names the
 *    protocol): the upgrade goes on to the runtime with the caller's
 *    protocol versions, its answer comes back (101, or the refusal with its
 *    status and body), and after a 101 bytes pass unchanged both ways.
 *  - WebSocket: the kubelet connects to the runtime offering `protocols`,
 *    then accepts the caller with `choose(runtimeProtocol)` and frames pass
 *    both ways unchanged.
 * Anything else is refused with 400, as upstream's httpstream handshake
 * does.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { ws } from '../../util/ws.js';
import type { Logger } from '../../util/log.js';
import { bridgeWebSockets } from '../../util/ws-bridge.js';
import { rejectUpgrade } from '../../util/upgrade-response.js';
import { dialUpgrade, spliceUpgrade } from '../../util/upgrade-proxy.js';

export const isSPDYUpgrade = (req: IncomingMessage): boolean => (req.headers.upgrade ?? '').toLowerCase().startsWith('spdy/');
export const isWebSocketUpgrade = (req: IncomingMessage): boolean => (req.headers.upgrade ?? '').toLowerCase() === 'websocket';

export const offeredSubprotocols = (req: IncomingMessage): string[] => String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);

export interface UpgradeCall {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  logger: Logger;
  /** For logs: "exec", "attach", "portforward". */
  what: string;
  pod: string;
}

/** Passes a SPDY upgrade on to the runtime's streaming server at `target`. */
export async function proxySPDY(call: UpgradeCall, target: string): Promise<void> {
  const versions = call.req.headers['x-stream-protocol-version'];
  let answer;
  try {
    answer = await dialUpgrade(target, {
      method: 'POST',
      headers: { Connection: 'Upgrade', Upgrade: 'SPDY/3.1', ...(versions ? { 'X-Stream-Protocol-Version': versions } : {}) },
    });
  } catch (e) {
    return rejectUpgrade(call.socket, 500, `connecting to the runtime's streaming server: ${(e as Error).message}`);
  }
  if (!answer.upgraded) return rejectUpgrade(call.socket, answer.statusCode, answer.body);
  if (call.socket.destroyed) { answer.socket.destroy(); return; }
  spliceUpgrade(call.socket, call.head, answer);
  call.logger.debug(`${call.what} session started`, { pod: call.pod, protocol: String(answer.res.headers['x-stream-protocol-version'] ?? ''), transport: 'SPDY/3.1' });
}

export interface WebSocketProxyOptions {
  /** Subprotocols offered to the runtime. */
  protocols: string[];
  /** The caller's protocol given the runtime's choice; false refuses. */
  choose: (runtimeProtocol: string) => string | false;
}

/** Opens a WebSocket to the runtime's streaming server at `target` and joins the caller to it. */
export async function proxyWebSocket(call: UpgradeCall, target: string, opts: WebSocketProxyOptions): Promise<void> {
  const upstream = new (ws().WebSocket)(target.replace(/^http/, 'ws'), opts.protocols, { perMessageDeflate: false, handshakeTimeout: 30_000 });
  const failed = await new Promise<string | undefined>((resolve) => {
    upstream.once('open', () => { upstream.pause(); resolve(undefined); });
    upstream.once('unexpected-response', (_r, res) => { resolve(`the runtime refused the ${call.what} session: ${res.statusCode}`); res.resume(); });
    upstream.once('error', (e) => resolve(`connecting to the runtime's streaming server: ${e.message}`));
  });
  if (failed) { upstream.terminate(); return rejectUpgrade(call.socket, 500, failed); }
  // The caller went away while the runtime was being reached: end the session there too.
  if (call.socket.destroyed) { upstream.terminate(); return; }
  const chosen = opts.choose(upstream.protocol);
  upstream.on('error', (e) => call.logger.debug('runtime stream failed', { pod: call.pod, err: e.message }));
  const wss = new (ws().WebSocketServer)({ noServer: true, perMessageDeflate: false, clientTracking: false, handleProtocols: () => chosen });
  wss.handleUpgrade(call.req, call.socket, call.head, (client) => {
    client.on('error', (e) => call.logger.debug(`${call.what} client stream failed`, { pod: call.pod, err: e.message }));
    bridgeWebSockets(client, upstream);
    call.logger.debug(`${call.what} session started`, { pod: call.pod, protocol: chosen || '', runtimeProtocol: upstream.protocol });
  });
}
