/**
 * The built-in pod network runs in every node's agent, with the node's
 * credentials, and needs every Node's podCIDR, InternalIP and VXLAN
 * endpoint. Upstream 1.32's Node authorizer lets a kubelet read only its own
 * Node, so a CNI daemon gets its own grant (flannel's ClusterRole `flannel`:
 * get, list, watch nodes). Here the daemon is the node agent, so kubeadm
 * binds the same read access to the group system:nodes; writes stay with the
 * Node authorizer and NodeRestriction (a node patches only its own Node).
 */
import type { Clientset } from '../../client/index.js';
import { createIfNotExists } from '../../kubeadm/apiclient.js';

export const podNetworkClusterRole = 'k8ts:pod-network';

export async function podNetworkRBACPhase(clients: Clientset, log: (line: string) => void): Promise<void> {
  log(`[addons] Granted the nodes' pod network read access to all Nodes (ClusterRole ${podNetworkClusterRole})`);
  await createIfNotExists(clients, 'clusterroles', {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: podNetworkClusterRole },
    rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] }],
  });
  await createIfNotExists(clients, 'clusterrolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: podNetworkClusterRole },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: podNetworkClusterRole },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:nodes' }],
  });
}
