/**
 * What a failed simulated probe says (the output in the kubelet's Unhealthy
 * event "Liveness probe failed: <output>"), in the words the real probe of
 * that handler would use: an HTTP 500, a refused connection, a gRPC
 * NOT_SERVING, or an exec command's (empty) output.
 */
import type { Probe } from 'kubernetes-types/core/v1.js';

export function probeFailureOutput(probe: Probe, podIP: string | undefined): string {
  if (probe.httpGet) return 'HTTP probe failed with statuscode: 500';
  if (probe.tcpSocket) return `dial tcp ${probe.tcpSocket.host || podIP || ''}:${String(probe.tcpSocket.port)}: connect: connection refused`;
  if (probe.grpc) return 'service unhealthy (responded with "NOT_SERVING")';
  return '';
}
