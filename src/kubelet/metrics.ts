/**
 * Prometheus metrics of the node agents in a process (own Registry), with
 * upstream kubelet names where one exists, and a plain-HTTP /metrics server.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry, Counter, Gauge, Histogram, collectDefaultMetrics } from 'prom-client';
import { eventLoopMonitoringPrecisionMs } from '../util/prom.js';

export interface KubeletMetrics {
  registry: Registry;
  /** Registered nodes this process runs. */
  nodes: Gauge<string>;
  /** Lease renewals by result: renewed, created, no-node, error. */
  leaseRenewals: Counter<'result'>;
  leaseRenewLatency: Histogram<string>;
  /** Node status posts by result: ok, error. */
  nodeStatusUpdates: Counter<'result'>;
  /** Pod status writes by result: ok, conflict, error. */
  podStatusUpdates: Counter<'result'>;
  /** kubelet_running_pods: pods with a ready sandbox. */
  runningPods: Gauge<string>;
  /** kubelet_pod_start_duration_seconds: first seen → all containers running. */
  podStartDuration: Histogram<string>;
  /** Pods the agents deleted after stopping them (grace 0). */
  podDeletions: Counter<'result'>;
}

export function createKubeletMetrics(opts: { defaultMetrics?: boolean } = {}): KubeletMetrics {
  const registry = new Registry();
  // As the API server's (src/util/prom.ts): a 10 ms sampling timer would wake an idle agent 100 times a second.
  if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: eventLoopMonitoringPrecisionMs });
  const registers = [registry];
  return {
    registry,
    nodes: new Gauge({ name: 'k8ts_sim_nodes', help: 'Nodes registered and heartbeating from this process.', registers }),
    leaseRenewals: new Counter({ name: 'k8ts_kubelet_lease_renewals_total', help: 'Node lease renewals by result.', labelNames: ['result'], registers }),
    leaseRenewLatency: new Histogram({
      name: 'k8ts_kubelet_lease_renew_duration_seconds', help: 'Latency of node lease renewals in seconds.',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], registers,
    }),
    nodeStatusUpdates: new Counter({ name: 'k8ts_kubelet_node_status_updates_total', help: 'Node status posts by result.', labelNames: ['result'], registers }),
    podStatusUpdates: new Counter({ name: 'k8ts_kubelet_pod_status_updates_total', help: 'Pod status writes by result.', labelNames: ['result'], registers }),
    runningPods: new Gauge({ name: 'kubelet_running_pods', help: 'Number of pods that have a running pod sandbox.', registers }),
    podStartDuration: new Histogram({
      name: 'kubelet_pod_start_duration_seconds', help: 'Duration in seconds from the agent seeing a pod for the first time to the pod starting to run.',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60], registers,
    }),
    podDeletions: new Counter({ name: 'k8ts_kubelet_pod_deletions_total', help: 'Pods deleted by their node agent after stopping them.', labelNames: ['result'], registers }),
  };
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** Serves GET /metrics (Prometheus text) and /healthz on host:port (port 0 picks one). */
export async function serveMetrics(registry: Registry, port: number, host = '127.0.0.1'): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') { res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok'); return; }
    if (path !== '/metrics') { res.writeHead(404).end(); return; }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
      (e) => res.writeHead(500).end(String(e)),
    );
  });
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(port, host, resolve); });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
