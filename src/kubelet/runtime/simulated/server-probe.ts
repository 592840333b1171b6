/**
 * httpGet and tcpSocket probes of a simulated pod whose servers the
 * simulator knows: the probe goes to the pod's port as the kubelet's would
 * go to the pod IP, and the answer is that server's (app-servers.ts,
 * listeners.ts), through the same prober code as on a real node
 * (prober/http.ts: 200-399 succeeds, `HTTP probe failed with statuscode:
 * 500`, redirects). A port that no container of the pod serves is refused,
 * as a closed port: `dial tcp IP:PORT: connect: connection refused` (tcp),
 * `Get "http://IP:PORT/path": dial tcp IP:PORT: connect: connection refused`
 * (http) — but only when the simulator knows every container of the pod
 * (a server it simulates, or a command its shell runs), since a container
 * it knows nothing of might listen there. Otherwise, and for a probe with
 * its own host, a gRPC probe, or a pod with a `k8ts.io/sim-<type>-fail`
 * annotation, the caller keeps the simulated outcome (undefined here).
 */
import type { Duplex } from 'node:stream';
import type { Container, Probe } from 'kubernetes-types/core/v1.js';
import { httpProbe } from '../../prober/http.js';
import { resolvePort } from '../../prober/probe.js';

export interface ServerProbeTarget {
  /** The probed container (its named ports). */
  container: Container;
  podIP: string | undefined;
  /** Whether a running container of the pod serves the port. */
  serves(port: number): boolean;
  /** Whether the simulator knows what every container of the pod runs. */
  knowsEveryContainer(): boolean;
  /** A connection to the pod's port (the runtime's dialPort: refused where nothing listens). */
  dial(port: number): Duplex;
  timeoutMs: number;
}

export type ServerProbeOutcome = { result: 'success' | 'failure'; output: string };

export async function probeServer(probe: Probe, t: ServerProbeTarget): Promise<ServerProbeOutcome | undefined> {
  const handler = probe.httpGet ?? probe.tcpSocket;
  if (!handler || !t.podIP || (handler.host && handler.host !== t.podIP)) return undefined;
  const port = resolvePort(handler.port, t.container);
  if (port instanceof Error) return undefined;
  const served = t.serves(port);
  if (!served && !t.knowsEveryContainer()) return undefined;
  if (probe.tcpSocket) return served ? { result: 'success', output: '' } : { result: 'failure', output: `dial tcp ${t.podIP}:${port}: connect: connection refused` };
  const g = probe.httpGet!;
  let path = g.path ?? '';
  if (path && !path.startsWith('/')) path = `/${path}`;
  const url = new URL(`${(g.scheme ?? 'HTTP').toLowerCase()}://${t.podIP}:${port}${path}`);
  // Nothing in a simulated pod speaks TLS: an https probe meets a server that answers in plain HTTP, or nobody.
  if (url.protocol === 'https:') return served ? { result: 'failure', output: `Get "${url.toString()}": http: server gave HTTP response to HTTPS client` } : { result: 'failure', output: `Get "${url.toString()}": dial tcp ${t.podIP}:${port}: connect: connection refused` };
  const got = await httpProbe({
    url, timeoutMs: t.timeoutMs,
    headers: (g.httpHeaders ?? []).map((h) => ({ name: h.name, value: h.value })),
    connect: (u) => t.dial(Number(u.port) || 80),
  });
  return { result: got.result === 'success' ? 'success' : 'failure', output: got.output };
}
