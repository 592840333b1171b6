/**
 * /exec/{namespace}/{pod}/{container}?command=..&input=1&output=1&error=1&tty=1
 * and /attach/{namespace}/{pod}/{container}?... upgrades (the kubelet
 * server's getExec/getAttach, with the API server's query names):
 *
 *  1. The pod must be on this node (404 `pod does not exist`) and the
 *     container running; otherwise upstream's words: GetExec's
 *     `container not found ("c")`, GetAttach's `container c not found in
 *     pod p_ns` (the pod's full name), as `kubectl run --rm -i` of a
 *     command that ended before the attach shows them.
 *  2. The runtime prepares the session (CRI Exec/Attach) and answers with a
 *     URL of its streaming server, or (process runtime) opens local streams
 *     the kubelet serves itself (local-exec.ts: the process runtime, and
 *     the simulated one's exec in its simulated shell, and its attach to a
 *     container's console); a runtime that has no process to attach to (the
 *     simulated one on a node that keeps no logs) refuses an attach at once
 *     with a 500 saying so.
 *  3. A SPDY caller is passed through byte for byte (runtime-stream.ts).
 *  4. A v5.channel.k8s.io WebSocket caller (kubectl 1.30+) is served by
 *     speaking SPDY to the runtime (v5-over-spdy.ts): containerd 1.6/1.7
 *     serve WebSocket only up to v4.channel.k8s.io, which has no way to
 *     close stdin, while SPDY half-closes a stream.
 *  5. Other WebSocket callers (v4 and older): the kubelet connects to the
 *     runtime offering the caller's subprotocols, and frames pass both ways.
 *  Errors before the upgrade are plain HTTP answers (the caller sees the
 *  handshake fail with that status and body).
 */
import { realNodeHint } from '../../api/kubelet-endpoint.js';
import type { Logger } from '../../util/log.js';
import { rejectUpgrade } from '../../util/upgrade-response.js';
import type { StreamRequest } from '../runtime/runtime.js';
import type { KubeletHost } from './host.js';
import { serveV5OverSPDY } from './v5-over-spdy.js';
import { serveLocalExec } from './local-exec.js';
import { isSPDYUpgrade, isWebSocketUpgrade, offeredSubprotocols, proxySPDY, proxyWebSocket, type UpgradeCall } from './runtime-stream.js';

const v5 = 'v5.channel.k8s.io';

/** The kubelet's query: upstream's api.ExecStdinParam etc. ("input", "output", "error", "tty", "command"). */
export function streamRequest(query: URLSearchParams, exec: boolean): StreamRequest {
  const on = (k: string) => ['1', 'true'].includes(query.get(k) ?? '');
  return { cmd: exec ? query.getAll('command') : undefined, stdin: on('input'), stdout: on('output'), stderr: on('error'), tty: on('tty') };
}

/**
 * What a runtime without a streaming server answers (the simulated runtime
 * runs no processes). It names the node, the runtime and the way to a node
 * that runs containers, since a new user meets it on `npm start`'s nodes.
 */
export function noProcessesMessage(nodeName: string, runtimeType: string, route: string): string {
  return `${route} is not supported: node "${nodeName}" is simulated by k8ts (container runtime ${runtimeType}) and runs no processes;` +
    ` ${realNodeHint}`;
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
  if (!pod) return rejectUpgrade(socket, 404, 'pod does not exist');
  const { runtime } = host;
  const local = route === 'attach' && runtime.attachable === false ? undefined : runtime.openStream;
  if (!runtime.streamURL && !local) return rejectUpgrade(socket, 500, noProcessesMessage(host.nodeName, runtime.type, route));
  const status = host.podStatus(pod) ?? pod.status;
  const cs = [...(status?.containerStatuses ?? []), ...(status?.initContainerStatuses ?? []), ...(status?.ephemeralContainerStatuses ?? [])].find((s) => s.name === container);
  if (!cs?.state?.running || !cs.containerID) {
    return rejectUpgrade(socket, 500, route === 'exec' ? `container not found (${JSON.stringify(container)})` : `container ${container} not found in pod ${podName}_${namespace}`);
  }
  const spdy = isSPDYUpgrade(req);
  const protocols = offeredSubprotocols(req);
  if (!spdy && !isWebSocketUpgrade(req)) return rejectUpgrade(socket, 400, `unable to upgrade: ${route} needs a SPDY/3.1 or WebSocket upgrade`);
  if (!spdy && !protocols.length) return rejectUpgrade(socket, 400, 'no WebSocket subprotocol offered');
  if (local) {
    const openStream = local.bind(runtime);
    const uid = pod.metadata!.uid!;
    const id = cs.containerID;
    return serveLocalExec({ ...call, what: route, pod: `${namespace}/${podName}` }, protocols, request, () => openStream(uid, id, request));
  }
  let target: string;
  try {
    target = await runtime.streamURL!(pod.metadata!.uid!, cs.containerID, request);
  } catch (e) {
    return rejectUpgrade(socket, 500, (e as Error).message);
  }
  const up: UpgradeCall = { ...call, what: route, pod: `${namespace}/${podName}` };
  if (spdy) return proxySPDY(up, target);
  if (protocols.includes(v5)) return serveV5OverSPDY(up, target, request);
  return proxyWebSocket(up, target, { protocols, choose: (p) => (protocols.includes(p) ? p : false) });
}
