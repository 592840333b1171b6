/**
 * init's upload-config/kubelet phase and join's download of it (kubeadm's
 * cmd/kubeadm/app/phases/kubelet/config.go): the cluster-wide
 * KubeletConfiguration in ConfigMap kube-system/kubelet-config (key
 * `kubelet`), readable through the Role `kubeadm:kubelet-config` that
 * kubeadm binds to system:nodes and to the default node bootstrap token's
 * group, so a joining node reads it with its bootstrap token and starts
 * with the cluster's clusterDNS and clusterDomain.
 */
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import { isNotFound, type Clientset } from '../../client/index.js';
import { nodeBootstrapTokenAuthGroup } from '../../api/bootstraptoken/index.js';
import { createIfNotExists, createOrUpdate } from '../../kubeadm/apiclient.js';
import { kubeletConfigurationYAML, parseKubeletConfiguration, type KubeletConfiguration } from '../kubelet-config-file.js';

export const kubeletConfigMap = 'kubelet-config';
/** The ConfigMap's key (kubeadm's constants.KubeletBaseConfigurationConfigMapKey). */
export const kubeletConfigKey = 'kubelet';
const kubeletConfigRole = 'kubeadm:kubelet-config';

export function kubeletConfigObjects(c: KubeletConfiguration): [ConfigMap, Role, RoleBinding] {
  return [
    {
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: kubeletConfigMap, namespace: 'kube-system' },
      data: { [kubeletConfigKey]: kubeletConfigurationYAML(c) },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: kubeletConfigRole, namespace: 'kube-system' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [kubeletConfigMap], verbs: ['get'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: kubeletConfigRole, namespace: 'kube-system' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: kubeletConfigRole },
      subjects: [
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:nodes' },
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: nodeBootstrapTokenAuthGroup },
      ],
    },
  ];
}

/** Stores the configuration (init run again replaces it) and creates the Role and its binding if missing. */
export async function uploadKubeletConfigPhase(clients: Clientset, c: KubeletConfiguration, log: (line: string) => void): Promise<void> {
  log(`[kubelet] Creating a ConfigMap "${kubeletConfigMap}" in namespace kube-system with the configuration for the kubelets in the cluster`);
  const [cm, role, binding] = kubeletConfigObjects(c);
  await createOrUpdate(clients, 'configmaps', cm);
  await createIfNotExists(clients, 'roles', role);
  await createIfNotExists(clients, 'rolebindings', binding);
}

/**
 * join: the cluster's KubeletConfiguration; undefined for a cluster made
 * before k8ts stored one (its nodes then start without cluster DNS, as they did).
 */
export async function downloadKubeletConfig(clients: Clientset): Promise<KubeletConfiguration | undefined> {
  let cm: ConfigMap;
  try {
    cm = await clients.resource('configmaps').get('kube-system', kubeletConfigMap) as ConfigMap;
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
  const text = cm.data?.[kubeletConfigKey];
  if (text === undefined) throw new Error(`no "${kubeletConfigKey}" key in the ConfigMap kube-system/${kubeletConfigMap}`);
  return parseKubeletConfiguration(text, `the ConfigMap kube-system/${kubeletConfigMap}`);
}
