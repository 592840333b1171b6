/**
 * A pod on a simulated node (`npm start`'s nodes) has a made-up IP that
 * nothing routes to. When its node serves a kubelet API (`k8ts up`), the
 * proxy reaches the pod's port through the kubelet's port-forward
 * (via-kubelet.ts), where the simulated runtime answers as the pod's image
 * would (kubelet/runtime/simulated/listeners.ts) or refuses the port. A
 * node without one (`k8ts sim`, kubelet port 0) is refused at once, in the
 * words exec, logs and top use for such nodes, with the way to a node that
 * runs containers.
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import { isSimulatedNode, kubeletEndpoint, realNodeHint } from '../../api/kubelet-endpoint.js';
import { serviceUnavailable, type StatusError } from '../../api/status.js';
import type { KubeletClient } from '../kubelet-client/client.js';
import { joinHostPort, type ProxyTarget } from './transport.js';
import { dialThroughKubelet } from './via-kubelet.js';

export function simulatedNodeRefusal(node: Node | undefined, address: string): StatusError | undefined {
  if (!node || !isSimulatedNode(node)) return undefined;
  return serviceUnavailable(`error trying to reach service: node "${node.metadata?.name}" is simulated by k8ts and runs no processes, ` +
    `so nothing listens on ${address}; ${realNodeHint}`);
}

/**
 * The target as it is for a pod on a real node; through the kubelet for a
 * pod on a simulated node that serves a kubelet API; throws the refusal for
 * one that serves none.
 */
export function targetOnNode(node: Node | undefined, target: ProxyTarget, pod: { namespace: string; name?: string }, kubelet: KubeletClient | undefined): ProxyTarget {
  if (!node || !isSimulatedNode(node)) return target;
  const endpoint = kubeletEndpoint(node);
  if ('error' in endpoint || !kubelet || !pod.name) throw simulatedNodeRefusal(node, joinHostPort(target.host, target.port))!;
  const port = target.port ?? (target.scheme === 'https' ? 443 : 80);
  const name = pod.name;
  return { ...target, dial: () => dialThroughKubelet(kubelet, endpoint, pod.namespace, name, port) };
}
