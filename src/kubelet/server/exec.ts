/**
 * GET /exec/{namespace}/{pod}/{container}?command=..&input=1&output=1&error=1&tty=1
 * and /attach/{namespace}/{pod}/{container}?... as WebSocket upgrades (the
 * kubelet server's getExec/getAttach, with the API server's query names):
 *
 *  1. The pod must be on this node and the container running
 *     (`container not found ("c")` otherwise, as upstream's findContainer).
 *  2. The runtime prepares the session (CRI Exec/Attach) and answers with a
 *     URL of its streaming server; the kubelet connects to it offering the
 *     caller's subprotocols and, for a v5 caller, also v4.channel.k8s.io:
 *     containerd 1.6/1.7 serve only channel.k8s.io, base64.channel.k8s.io,
 *     v4.channel.k8s.io and v4.base64.channel.k8s.io.
 *  3. Then the caller's upgrade is accepted and frames pass both ways. v5
 *     and v4 frame identically (first byte the channel: 0 stdin, 1 stdout,
 *     2 stderr, 3 error Status, 4 resize); v5 adds 255 "close stream",
 *     which v4 cannot say. Toward a v4 runtime the kubelet drops those
 *     frames: stdin EOF does not reach the command (a known limit, see
 *     docs/design-notes.md); the session ends when the command does.
 *  Errors before the upgrade are plain HTTP answers (the caller sees the
 *  handshake fail with that status and body).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { Logger } from '../../util/log.js';
import { bridgeWebSockets } from '../../util/ws-bridge.js';
import { rejectUpgrade } from '../../util/upgrade-response.js';
import type { StreamRequest } from '../runtime/runtime.js';
import type { KubeletHost } from './host.js';

const v5 = 'v5.channel.k8s.io';
const v4 = 'v4.channel.k8s.io';
const closeStreamChannel = 255;

/** The kubelet's query: upstream's api.ExecStdinParam etc. ("input", "output", "error", "tty", "command"). */
export function streamRequest(query: URLSearchParams, exec: boolean): StreamRequest {
  const on = (k: string) => ['1', 'true'].includes(query.get(k) ?? '');
  return { cmd: exec ? query.getAll('command') : undefined, stdin: on('input'), stdout: on('output'), stderr: on('error'), tty: on('tty') };
}

const offered = (req: IncomingMessage): string[] => String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);

export async function serveStream(host: KubeletHost, logger: Logger, req: IncomingMessage, socket: Duplex, head: Buffer, url: URL, route: 'exec' | 'attach', parts: string[]): Promise<void> {
  const [namespace, podName, container] = parts.map((p) => decodeURIComponent(p));
  if (!namespace || !podName || !container) return rejectUpgrade(socket, 400, `{"message": "Missing pod or container."}`);
  const request = streamRequest(url.searchParams, route === 'exec');
  if (request.cmd && request.cmd.length === 0) return rejectUpgrade(socket, 400, 'you must specify at least one command for the container');
  if (!request.stdin && !request.stdout && !request.stderr) return rejectUpgrade(socket, 400, 'you must specify at least 1 of stdin, stdout, stderr');
  const pod = host.podByName(namespace, podName);
  if (!pod) return rejectUpgrade(socket, 404, `pod ${podName} not found`);
  const status = host.podStatus(pod) ?? pod.status;
  const cs = [...(status?.containerStatuses ?? []), ...(status?.initContainerStatuses ?? []), ...(status?.ephemeralContainerStatuses ?? [])].find((s) => s.name === container);
  if (!cs?.state?.running || !cs.containerID) return rejectUpgrade(socket, 500, `container not found (${JSON.stringify(container)})`);
  if (!host.runtime.streamURL) return rejectUpgrade(socket, 500, `the ${host.runtime.type} container runtime does not support ${route}`);
  const protocols = offered(req);
  if (!protocols.length) return rejectUpgrade(socket, 400, 'no WebSocket subprotocol offered');
  let target: string;
  try {
    target = await host.runtime.streamURL(pod.metadata!.uid!, cs.containerID, request);
  } catch (e) {
    return rejectUpgrade(socket, 500, (e as Error).message);
  }
  const toRuntime = protocols.includes(v5) && !protocols.includes(v4) ? [...protocols, v4] : protocols;
  const upstream = new WebSocket(target.replace(/^http/, 'ws'), toRuntime, { perMessageDeflate: false, handshakeTimeout: 30_000 });
  const opened = await new Promise<string | undefined>((resolve) => {
    upstream.once('open', () => resolve(undefined));
    upstream.once('unexpected-response', (_r, res) => { resolve(`the runtime refused the ${route} session: ${res.statusCode}`); res.resume(); });
    upstream.once('error', (e) => resolve(`connecting to the runtime's streaming server: ${e.message}`));
  });
  if (opened) { upstream.terminate(); return rejectUpgrade(socket, 500, opened); }
  // The caller went away while the runtime was being reached: end the session there too.
  if (socket.destroyed) { upstream.terminate(); return; }
  // The caller gets its own protocol back: the runtime's choice, or v5 bridged onto a v4 runtime.
  const chosen = protocols.includes(upstream.protocol) ? upstream.protocol : v5;
  const dropClose = chosen === v5 && upstream.protocol !== v5;
  upstream.on('error', (e) => logger.debug('runtime stream failed', { pod: `${namespace}/${podName}`, err: e.message }));
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, clientTracking: false, handleProtocols: () => chosen });
  wss.handleUpgrade(req, socket, head, (client) => {
    client.on('error', (e) => logger.debug('exec client stream failed', { pod: `${namespace}/${podName}`, err: e.message }));
    bridgeWebSockets(client, upstream, { inbound: dropClose ? (d) => (d[0] === closeStreamChannel ? undefined : d) : undefined });
    logger.debug(`${route} session started`, { pod: `${namespace}/${podName}`, container, protocol: chosen, runtimeProtocol: upstream.protocol });
  });
}
