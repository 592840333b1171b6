/**
 * kubeadm's cluster-info phase (phases/bootstraptoken/clusterinfo): the
 * ConfigMap kube-public/cluster-info holding a kubeconfig with only the
 * cluster (server and CA, no user), which the bootstrap signer signs and
 * joining nodes read before they trust anything, and the Role/RoleBinding
 * kubeadm:bootstrap-signer-clusterinfo that let system:anonymous get it.
 */
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { Clientset } from '../../client/index.js';
import { buildClusterInfoKubeconfig } from '../../pki/index.js';
import { clusterInfoConfigMap, clusterInfoNamespace, kubeconfigKey } from '../../api/bootstraptoken/index.js';
import { createIfNotExists } from '../apiclient.js';

export const bootstrapSignerClusterRoleName = 'kubeadm:bootstrap-signer-clusterinfo';

export interface ClusterInfo {
  /** The API server joining nodes use, e.g. https://10.0.0.1:6443 (admin.conf's server). */
  server: string;
  caCertPem: string;
}

export function clusterInfoConfigMapObject(info: ClusterInfo): ConfigMap {
  return {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: clusterInfoConfigMap, namespace: clusterInfoNamespace },
    data: { [kubeconfigKey]: buildClusterInfoKubeconfig({ server: info.server, caCertPem: info.caCertPem }) },
  };
}

/** CreateBootstrapConfigMapIfNotExists: an existing cluster-info is kept (its signatures with it). */
export async function createBootstrapConfigMapIfNotExists(clients: Clientset, info: ClusterInfo, print: (line: string) => void = () => {}): Promise<void> {
  print(`[bootstrap-token] Creating the "${clusterInfoConfigMap}" ConfigMap in the "${clusterInfoNamespace}" namespace`);
  await createIfNotExists(clients, 'configmaps', clusterInfoConfigMapObject(info));
}

export function clusterInfoRBACObjects(): { role: Role; binding: RoleBinding } {
  const metadata = { name: bootstrapSignerClusterRoleName, namespace: clusterInfoNamespace };
  return {
    role: {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata,
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: [clusterInfoConfigMap] }],
    },
    binding: {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: bootstrapSignerClusterRoleName },
      subjects: [{ kind: 'User', name: 'system:anonymous' }],
    },
  };
}

/** CreateClusterInfoRBACRules: anonymous users may get cluster-info and nothing else in kube-public. */
export async function createClusterInfoRBACRules(clients: Clientset): Promise<void> {
  const { role, binding } = clusterInfoRBACObjects();
  await createIfNotExists(clients, 'roles', role);
  await createIfNotExists(clients, 'rolebindings', binding);
}
