/**
 * init's upload-config phase (the part k8ts needs): the ClusterConfiguration
 * in ConfigMap kube-system/kubeadm-config, readable by joining nodes through
 * kubeadm's Role kubeadm:nodes-kubeadm-config (bound to the default node
 * bootstrap token's group and to system:nodes, as upstream binds it). Beside
 * kubeadm's key, `podNetworkBackend` records init's --pod-network-backend,
 * which join hands to its agent so every node runs the same backend.
 */
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { isNotFound, type Clientset } from '../../client/index.js';
import { nodeBootstrapTokenAuthGroup } from '../../api/bootstraptoken/index.js';
import { createIfNotExists, createOrUpdate } from '../../kubeadm/apiclient.js';

export const kubeadmConfigMap = 'kubeadm-config';
const nodesKubeadmConfig = 'kubeadm:nodes-kubeadm-config';

export interface UploadedClusterConfig {
  kubernetesVersion: string; controlPlaneEndpoint: string; podSubnet?: string; serviceSubnet: string;
  /** "none" when the cluster has no built-in pod network. */
  podNetworkBackend: string;
}

export function clusterConfigurationYAML(c: UploadedClusterConfig): string {
  return `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
clusterName: kubernetes
controlPlaneEndpoint: ${c.controlPlaneEndpoint || '""'}
kubernetesVersion: ${c.kubernetesVersion}
networking:
  dnsDomain: cluster.local
${c.podSubnet ? `  podSubnet: ${c.podSubnet}\n` : ''}  serviceSubnet: ${c.serviceSubnet}
`;
}

export async function uploadConfigPhase(clients: Clientset, c: UploadedClusterConfig, log: (line: string) => void): Promise<void> {
  log(`[upload-config] Storing the configuration used in ConfigMap "${kubeadmConfigMap}" in the "kube-system" Namespace`);
  const cm: ConfigMap = {
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: kubeadmConfigMap, namespace: 'kube-system' },
    data: { ClusterConfiguration: clusterConfigurationYAML(c), podNetworkBackend: c.podNetworkBackend },
  };
  await createOrUpdate(clients, 'configmaps', cm);
  await createIfNotExists(clients, 'roles', {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: nodesKubeadmConfig, namespace: 'kube-system' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [kubeadmConfigMap], verbs: ['get'] }],
  });
  await createIfNotExists(clients, 'rolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: nodesKubeadmConfig, namespace: 'kube-system' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: nodesKubeadmConfig },
    subjects: [
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: nodeBootstrapTokenAuthGroup },
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:nodes' },
    ],
  });
}

/** join: the pod network backend init recorded ("none" for a cluster made before it was recorded). */
export async function downloadPodNetworkBackend(clients: Clientset): Promise<string> {
  try {
    const cm = await clients.resource('configmaps').get('kube-system', kubeadmConfigMap) as ConfigMap;
    return cm.data?.podNetworkBackend ?? 'none';
  } catch (e) {
    if (isNotFound(e)) return 'none';
    throw e;
  }
}
