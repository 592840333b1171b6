/**
 * Runs one probe of a container once (upstream prober.runProbe): exec
 * through the runtime, httpGet and tcpSocket from the node to the pod IP
 * (the node IP for hostNetwork pods) unless the probe names a host. gRPC
 * probes are not supported yet: they report an error, so the result stays
 * as it was.
 */
import type { Container, Probe } from 'kubernetes-types/core/v1.js';
import type { PodRuntime } from '../runtime/runtime.js';
import type { ProbeOutcome } from './worker.js';
import { httpProbe } from './http.js';
import { tcpProbe } from './tcp.js';

/** A named port is looked up among the container's ports (upstream findPortByName). */
export function resolvePort(port: number | string | undefined, container: Container): number | Error {
  if (typeof port === 'number') return port;
  if (typeof port === 'string' && /^\d+$/.test(port)) return Number(port);
  const p = (container.ports ?? []).find((x) => x.name === port);
  if (p) return p.containerPort;
  return new Error(`couldn't find port: ${String(port)} in ${JSON.stringify(container.ports ?? [])}`);
}

export async function runProbe(probe: Probe, podIP: string | undefined, container: Container, containerID: string, runtime: PodRuntime, timeoutMs: number): Promise<ProbeOutcome> {
  if (probe.exec) {
    if (!runtime.execSync) return { result: 'error', output: 'exec probes are not supported by this runtime' };
    try {
      const r = await runtime.execSync(containerID, probe.exec.command ?? [], timeoutMs);
      if (r.timedOut) return { result: 'failure', output: `command ${JSON.stringify((probe.exec.command ?? []).join(' '))} timed out` };
      return { result: r.exitCode === 0 ? 'success' : 'failure', output: r.output };
    } catch (e) {
      return { result: 'error', output: (e as Error).message };
    }
  }
  const host = (h: string | undefined) => h || podIP || '';
  if (probe.httpGet) {
    const g = probe.httpGet;
    const port = resolvePort(g.port, container);
    if (port instanceof Error) return { result: 'error', output: port.message };
    const h = host(g.host);
    if (!h) return { result: 'error', output: 'pod has no IP yet' };
    const scheme = (g.scheme ?? 'HTTP').toLowerCase();
    let path = g.path ?? '';
    if (path && !path.startsWith('/')) path = `/${path}`;
    const hostPart = h.includes(':') ? `[${h}]` : h;
    let url: URL;
    try { url = new URL(`${scheme}://${hostPart}:${port}${path}`); } catch (e) { return { result: 'error', output: (e as Error).message }; }
    return httpProbe({ url, headers: (g.httpHeaders ?? []).map((x) => ({ name: x.name, value: x.value })), timeoutMs });
  }
  if (probe.tcpSocket) {
    const port = resolvePort(probe.tcpSocket.port, container);
    if (port instanceof Error) return { result: 'error', output: port.message };
    const h = host(probe.tcpSocket.host);
    if (!h) return { result: 'error', output: 'pod has no IP yet' };
    return tcpProbe(h, port, timeoutMs);
  }
  return { result: 'error', output: 'missing probe handler (only exec, httpGet and tcpSocket are supported)' };
}
