/**
 * The kubelet's GET /metrics (upstream's legacy registry, served on the
 * kubelet's port and read through `kubectl get --raw
 * /api/v1/nodes/NODE/proxy/metrics`): component-base's
 * kubernetes_feature_enabled, the node's feature gates with their stage, which
 * the Adopting Sidecar Containers page greps for SidecarContainers. The
 * kubelet's own kubelet_* families are not kept (the resource numbers are
 * /metrics/resource's: stats.ts).
 */
import type { ServerResponse } from 'node:http';
import { featureEnabledHelp, featureGates, type FeatureGate } from '../../api/feature-gates.js';

/** The Prometheus text of the gates' gauge. */
export function featureEnabledText(gates: FeatureGate[]): string {
  const samples = gates.map((g) => `kubernetes_feature_enabled{name="${g.name}",stage="${g.stage}"} ${g.enabled ? 1 : 0}`);
  return ['# HELP kubernetes_feature_enabled ' + featureEnabledHelp, '# TYPE kubernetes_feature_enabled gauge', ...samples, ''].join('\n');
}

export function serveMetrics(res: ServerResponse): void {
  const body = featureEnabledText(featureGates());
  res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
