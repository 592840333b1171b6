/**
 * A simulated node (`npm start`'s nodes) runs no processes, so no pod on it
 * listens anywhere: rather than dial a made-up address and wait for the
 * dialer's timeout, the proxy says so at once, in the words exec, logs and
 * top use for such nodes, with the way to a node that runs containers.
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import { isSimulatedNode, realNodeHint } from '../../api/kubelet-endpoint.js';
import { serviceUnavailable, type StatusError } from '../../api/status.js';

export function simulatedNodeRefusal(node: Node | undefined, address: string): StatusError | undefined {
  if (!node || !isSimulatedNode(node)) return undefined;
  return serviceUnavailable(`error trying to reach service: node "${node.metadata?.name}" is simulated by k8ts and runs no processes, ` +
    `so nothing listens on ${address}; ${realNodeHint}`);
}
