/**
 * Reads what explainPlacement needs through the ordinary API, with whatever
 * credentials the client carries (the dashboard: the caller's bearer token;
 * the CLI: the kubeconfig's user), so RBAC decides: a user who may not get
 * the pod, list nodes or list pods on nodes gets the API's own 403.
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { Clientset } from '../client/index.js';
import { explainPlacement, type Placement } from './placement.js';

export async function readPlacement(clients: Clientset, namespace: string, name: string): Promise<Placement> {
  const pod = await clients.pods.get(namespace, name) as Pod;
  const [nodes, assigned] = await Promise.all([
    clients.nodes.list(),
    // The pods the scheduler cache holds: those bound to a node, in every namespace.
    clients.pods.list(undefined, { fieldSelector: 'spec.nodeName!=' }),
  ]);
  return explainPlacement(pod, nodes.items as Node[], assigned.items as Pod[]);
}
