/**
 * The node's CSINode, as upstream kubelet's CSI node-info manager creates it
 * once the Node is registered (InitializeCSINodeWithAnnotation): named like
 * the Node, owned by it (so the garbage collector deletes it with the Node),
 * with no drivers, since k8ts runs no CSI plugins. An existing one is kept.
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import type { CSINode } from 'kubernetes-types/storage/v1.js';
import type { Clientset } from '../client/index.js';
import { isAlreadyExists } from '../client/index.js';

export function csiNodeFor(node: Node): CSINode {
  const name = node.metadata!.name!;
  return {
    apiVersion: 'storage.k8s.io/v1', kind: 'CSINode',
    metadata: { name, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata!.uid! }] },
    spec: { drivers: [] },
  };
}

/** Creates the node's CSINode unless it exists; other errors are thrown for the caller to retry. */
export async function ensureCSINode(clients: Clientset, node: Node): Promise<void> {
  try {
    await clients.resource('csinodes').create(undefined, csiNodeFor(node));
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
}
