/**
 * An Upgrade (WebSocket, SPDY, h2c...) through pods/proxy or
 * services/proxy, as upstream's UpgradeAwareHandler.tryUpgrade does it:
 * the request goes to the target with its Connection and Upgrade headers
 * (the caller's credentials stay behind, as for plain requests); when the
 * target answers 101 its answer goes back and bytes pass both ways
 * unchanged until either side closes; any other answer goes back as it is,
 * and the connection ends. A target that cannot be reached: 503 `error
 * trying to reach service: ...`.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { serviceUnavailable } from '../../api/status.js';
import { dialUpgrade, spliceUpgrade } from '../../util/upgrade-proxy.js';
import { rejectUpgrade } from '../../util/upgrade-response.js';
import { dialError, joinHostPort, proxiedHeaders, type ProxyTarget } from './transport.js';

// The caller's credentials and the proxy's own hop headers stay behind; Connection and Upgrade go on.
const dropped = new Set(['authorization', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding']);

export interface ProxyUpgrade { req: IncomingMessage; socket: Duplex; head: Buffer; target: ProxyTarget; path: string; search: string }

/** Resolves once the caller got an answer (a 101 and a joined connection, or the target's refusal). */
export async function upgradeThroughProxy(u: ProxyUpgrade): Promise<void> {
  const { target } = u;
  const headers = proxiedHeaders({ ...u.req.headers, connection: undefined }, dropped);
  headers.connection = 'Upgrade';
  const port = target.port ?? (target.scheme === 'https' ? 443 : 80);
  const url = `${target.scheme}://${joinHostPort(target.host, port)}${u.path || '/'}${u.search}`;
  let answer;
  try {
    answer = await dialUpgrade(url, { method: u.req.method ?? 'GET', headers, tls: { rejectUnauthorized: false, checkServerIdentity: () => undefined }, dial: target.dial });
  } catch (e) {
    throw serviceUnavailable(`error trying to reach service: ${dialError(target.host, port, e as NodeJS.ErrnoException)}`);
  }
  if (!answer.upgraded) {
    const type = answer.headers['content-type'];
    rejectUpgrade(u.socket, answer.statusCode, answer.body, typeof type === 'string' ? type : 'text/plain; charset=utf-8');
    return;
  }
  if (u.socket.destroyed) { answer.socket.destroy(); return; }
  spliceUpgrade(u.socket, u.head, answer);
}
