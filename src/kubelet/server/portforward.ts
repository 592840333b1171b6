/**
 * /portForward/{namespace}/{pod}[/{uid}] upgrades (the kubelet server's
 * getPortForward):
 *
 *  1. The pod must be on this node (404 `pod does not exist`; with a uid
 *     that is not the pod's, 404 `pod not found`).
 *  2. WebSocket callers name their ports in the query (`?port=80&port=81`,
 *     upstream's portforward.NewV4Options): every value must be a port
 *     number, 400 otherwise. SPDY callers name a port per stream, inside
 *     the session, so no port is given to the runtime then.
 *  3. The runtime prepares the forwarding (CRI PortForward) and answers with
 *     a URL of its streaming server; the caller is joined to it in its own
 *     protocol (runtime-stream.ts): SPDY portforward.k8s.io byte for byte,
 *     or WebSocket v4.channel.k8s.io channels (per port a data and an error
 *     channel, each opened by the port as 2 bytes little-endian), frame for
 *     frame.
 *  A runtime without a streaming server but with `dialPort` (process) is
 *  served by the kubelet itself (local-portforward.ts). A runtime that runs
 *  no processes (and no dialPort) is refused at once with a 500.
 */
import { rejectUpgrade } from '../../util/upgrade-response.js';
import { noProcessesMessage, type ExecCall } from './exec.js';
import { serveLocalPortForwardSPDY, serveLocalPortForwardWebSocket } from './local-portforward.js';
import { isSPDYUpgrade, isWebSocketUpgrade, offeredSubprotocols, proxySPDY, proxyWebSocket } from './runtime-stream.js';

/** The ports of a WebSocket port-forward (`port` query values), or the reason they are invalid. */
export function forwardedPorts(query: URLSearchParams): number[] | string {
  const ports: number[] = [];
  for (const raw of query.getAll('port')) {
    for (const s of raw.split(',')) {
      const n = Number(s.trim());
      if (!/^\d+$/.test(s.trim()) || n < 1 || n > 65535) return `unable to parse "${s}" as a port: must be between 1 and 65535`;
      ports.push(n);
    }
  }
  return ports;
}

export async function servePortForward(call: ExecCall, parts: string[]): Promise<void> {
  const { host, socket, req } = call;
  const [namespace, podName, uid] = parts.map((p) => decodeURIComponent(p));
  if (!namespace || !podName) return rejectUpgrade(socket, 400, `{"message": "Missing pod."}`);
  const pod = host.podByName(namespace, podName);
  if (!pod) return rejectUpgrade(socket, 404, 'pod does not exist');
  if (uid && pod.metadata?.uid !== uid) return rejectUpgrade(socket, 404, 'pod not found');
  const { runtime } = host;
  if (!runtime.portForwardURL && !runtime.dialPort) return rejectUpgrade(socket, 500, noProcessesMessage(host.nodeName, runtime.type, 'port-forward'));
  const spdy = isSPDYUpgrade(req);
  if (!spdy && !isWebSocketUpgrade(req)) return rejectUpgrade(socket, 400, 'unable to upgrade: port-forward needs a SPDY/3.1 or WebSocket upgrade');
  const ports = spdy ? [] : forwardedPorts(call.url.searchParams);
  if (typeof ports === 'string') return rejectUpgrade(socket, 400, ports);
  if (!spdy && ports.length === 0) return rejectUpgrade(socket, 400, 'query parameter "port" is required');
  if (runtime.dialPort) {
    const podUID = pod.metadata!.uid!;
    const dial = (port: number) => runtime.dialPort!(podUID, port);
    const local = { ...call, what: 'portforward', pod: `${namespace}/${podName}` };
    return spdy ? serveLocalPortForwardSPDY(local, dial) : serveLocalPortForwardWebSocket(local, offeredSubprotocols(req), ports, dial);
  }
  let target: string;
  try {
    target = await runtime.portForwardURL!(pod.metadata!.uid!, ports);
  } catch (e) {
    return rejectUpgrade(socket, 500, (e as Error).message);
  }
  const up = { ...call, what: 'portforward', pod: `${namespace}/${podName}` };
  if (spdy) return proxySPDY(up, target);
  const protocols = offeredSubprotocols(req);
  return proxyWebSocket(up, target, { protocols, choose: (p) => (protocols.length === 0 || protocols.includes(p) ? p : false) });
}
