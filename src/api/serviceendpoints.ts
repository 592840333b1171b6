/**
 * Rules the Endpoints and EndpointSlice controllers share: which pods a
 * Service lists, and the container port a service port targets on a pod.
 */
import type { Pod, ServicePort } from 'kubernetes-types/core/v1.js';
import { podIsTerminal } from './pods.js';

/** endpointsliceutil.ShouldPodBeInEndpoints: not terminal, has an IP, and not terminating unless asked. */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  if (podIsTerminal(pod)) return false;
  if (!pod.status?.podIP && !(pod.status?.podIPs ?? []).length) return false;
  if (!includeTerminating && pod.metadata!.deletionTimestamp) return false;
  return true;
}

/** podutil.FindPort: the port number a service port targets on the pod (a number, or a container port name with the same protocol), or undefined. */
export function findPort(pod: Pod, svcPort: ServicePort): number | undefined {
  const target = svcPort.targetPort ?? svcPort.port;
  if (typeof target === 'number') return target;
  const protocol = svcPort.protocol ?? 'TCP';
  const sidecars = (pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always');
  for (const c of [...(pod.spec?.containers ?? []), ...sidecars]) {
    for (const p of c.ports ?? []) if (p.name === target && (p.protocol ?? 'TCP') === protocol) return p.containerPort;
  }
  return undefined;
}
