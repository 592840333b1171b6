/**
 * /exec/{namespace}/{pod}/{container}?command=..&input=1&output=1&error=1&tty=1
 * and /attach/{namespace}/{pod}/{container}?... upgrades (the kubelet
 * server's getExec/getAttach, with the API server's query names):
 *
 *  1. The pod must be on this node and the container running
 *     (`container not found ("c")` otherwise, as upstream's findContainer).
 *  2. The runtime prepares the session (CRI Exec/Attach) and answers with a
 *     URL of its streaming server; a runtime that runs no processes (the
 *     simulated one) is refused at once with a 500 saying so.
 *  3. A SPDY caller is passed through byte for byte (runtime-stream.ts).
 *  4. A WebSocket caller: the kubelet connects to the runtime offering the
 *     caller's subprotocols and, for a v5 caller, also v4.channel.k8s.io:
 *     containerd 1.6/1.7 serve only channel.k8s.io, base64.channel.k8s.io,
 *     v4.channel.k8s.io and v4.base64.channel.k8s.io. v5 and v4 frame
 *     identically (first byte the channel: 0 stdin, 1 stdout, 2 stderr, 3
 *     error Status, 4 resize); v5 adds 255 "close stream", which v4 cannot
 *     say, so toward a v4 runtime those frames are dropped.
 *  Errors before the upgrade are plain HTTP answers (the caller sees the
 *  handshake fail with that status and body).
 */
import type { Logger } from '../../util/log.js';
import { rejectUpgrade } from '../../util/upgrade-response.js';
import type { StreamRequest } from '../runtime/runtime.js';
import type { KubeletHost } from './host.js';
import { isSPDYUpgrade, isWebSocketUpgrade, offeredSubprotocols, proxySPDY, proxyWebSocket, type UpgradeCall } from './runtime-stream.js';

const v5 = 'v5.channel.k8s.io';
const v4 = 'v4.channel.k8s.io';
const closeStreamChannel = 255;

/** The kubelet's query: upstream's api.ExecStdinParam etc. ("input", "output", "error", "tty", "command"). */
export function streamRequest(query: URLSearchParams, exec: boolean): StreamRequest {
  const on = (k: string) => ['1', 'true'].includes(query.get(k) ?? '');
  return { cmd: exec ? query.getAll('command') : undefined, stdin: on('input'), stdout: on('output'), stderr: on('error'), tty: on('tty') };
}

/** What a runtime without a streaming server answers (the simulated runtime runs no processes). */
export function noProcessesMessage(runtimeType: string, route: string): string {
  return `the ${runtimeType} container runtime runs no processes: ${route} is not supported`;
}

export type ExecCall = Omit<UpgradeCall, 'what' | 'pod' | 'logger'> & { host: KubeletHost; logger: Logger; url: URL };

export async function serveStream(call: ExecCall, route: 'exec' | 'attach', parts: string[]): Promise<void> {
  const { host, socket, url, req } = call;
  const [namespace, podName, container] = parts.map((p) => decodeURIComponent(p));
  if (!namespace || !podName || !container) return rejectUpgrade(socket, 400, `{"message": "Missing pod or container."}`);
  const request = streamRequest(url.searchParams, route === 'exec');
  if (request.cmd && request.cmd.length === 0) return rejectUpgrade(socket, 400, 'you must specify at least one command for the container');
  if (!request.stdin && !request.stdout && !request.stderr) return rejectUpgrade(socket, 400, 'you must specify at least 1 of stdin, stdout, stderr');
  const pod = host.podByName(namespace, podName);
  if (!pod) return rejectUpgrade(socket, 404, `pod ${podName} not found`);
  if (!host.runtime.streamURL) return rejectUpgrade(socket, 500, noProcessesMessage(host.runtime.type, route));
  const status = host.podStatus(pod) ?? pod.status;
  const cs = [...(status?.containerStatuses ?? []), ...(status?.initContainerStatuses ?? []), ...(status?.ephemeralContainerStatuses ?? [])].find((s) => s.name === container);
  if (!cs?.state?.running || !cs.containerID) return rejectUpgrade(socket, 500, `container not found (${JSON.stringify(container)})`);
  const spdy = isSPDYUpgrade(req);
  const protocols = offeredSubprotocols(req);
  if (!spdy && !isWebSocketUpgrade(req)) return rejectUpgrade(socket, 400, `unable to upgrade: ${route} needs a SPDY/3.1 or WebSocket upgrade`);
  if (!spdy && !protocols.length) return rejectUpgrade(socket, 400, 'no WebSocket subprotocol offered');
  let target: string;
  try {
    target = await host.runtime.streamURL(pod.metadata!.uid!, cs.containerID, request);
  } catch (e) {
    return rejectUpgrade(socket, 500, (e as Error).message);
  }
  const up: UpgradeCall = { ...call, what: route, pod: `${namespace}/${podName}` };
  if (spdy) return proxySPDY(up, target);
  return proxyWebSocket(up, target, {
    protocols: protocols.includes(v5) && !protocols.includes(v4) ? [...protocols, v4] : protocols,
    // The caller gets its own protocol back: the runtime's choice, or v5 bridged onto a v4 runtime.
    choose: (p) => (protocols.includes(p) ? p : v5),
    inbound: (chosen, runtimeProtocol) => (chosen === v5 && runtimeProtocol !== v5 ? (d) => (d[0] === closeStreamChannel ? undefined : d) : undefined),
  });
}
