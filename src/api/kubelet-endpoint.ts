/**
 * Where a node's kubelet listens, as the API server's NodeConnectionInfoGetter
 * finds it (pkg/kubelet/client/kubelet_client.go):
 *
 *  1. The host is the node's first address of the first preferred type that
 *     has one. k8ts prefers InternalIP, ExternalIP, Hostname — kubeadm's
 *     --kubelet-preferred-address-types — rather than kube-apiserver's own
 *     default (Hostname first), since node names rarely resolve.
 *  2. The port is status.daemonEndpoints.kubeletEndpoint.Port when it is
 *     positive, else the default kubelet port 10250.
 *  3. k8ts only: a simulated node (annotation k8ts.io/simulated) that
 *     advertises port 0 has no kubelet API at all. Its address is made up
 *     (172.16.0.0/12), so it is never dialled: the caller gets a reason.
 */
import type { Node } from 'kubernetes-types/core/v1.js';

export const defaultKubeletPort = 10250;
const annotationSimulated = 'k8ts.io/simulated';
export const kubeadmPreferredAddressTypes = ['InternalIP', 'ExternalIP', 'Hostname'] as const;

/** A node whose kubelet runs the simulated runtime (`k8ts up`'s nodes, `k8ts sim`). */
export const isSimulatedNode = (node: Node) => node.metadata?.annotations?.[annotationSimulated] === 'true';

/** How a user gets a node that runs containers, said wherever a simulated node cannot do something. */
export const realNodeHint = 'for a node that runs containers start k8ts with "sudo npm start -- --runtime cri"';

export interface KubeletEndpoint { host: string; port: number }

/** The endpoint, or a reason (upstream's NoMatchError words) when the node has no usable address. */
export function kubeletEndpoint(node: Node, preferred: readonly string[] = kubeadmPreferredAddressTypes): KubeletEndpoint | { error: string } {
  const port = node.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 0;
  if (port <= 0 && isSimulatedNode(node)) {
    return { error: `node "${node.metadata?.name}" is simulated by k8ts and serves no kubelet API: no container runs there` };
  }
  const addresses = node.status?.addresses ?? [];
  let host: string | undefined;
  for (const type of preferred) {
    host = addresses.find((a) => a.type === type && a.address)?.address;
    if (host) break;
  }
  if (!host) {
    const known = addresses.map((a) => `{${a.type} ${a.address}}`).join(' ');
    return { error: `no preferred addresses found; known addresses: [${known}]` };
  }
  return { host, port: port > 0 ? port : defaultKubeletPort };
}
