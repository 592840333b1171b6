/**
 * kubeadm's kube-proxy addon phase (cmd/kubeadm/app/phases/addons/proxy),
 * with `k8ts proxy` (nftables mode) in kube-proxy's place: the
 * ServiceAccount `kube-proxy`, the ClusterRoleBinding `kubeadm:node-proxier`
 * to the bootstrap role `system:node-proxier`, and the `kube-proxy`
 * DaemonSet (k8s-app=kube-proxy, hostNetwork, system-node-critical,
 * tolerating every taint, the node's name from the downward API as
 * --hostname-override, the cluster's pod CIDR as --cluster-cidr).
 *
 * Its configuration is kubeadm's: the `kube-proxy` ConfigMap holds a
 * KubeProxyConfiguration (key config.conf: mode nftables, the clusterCIDR),
 * readable by the default node bootstrap token's group through the Role
 * `kube-proxy`, and the DaemonSet mounts it at /var/lib/kube-proxy and runs
 * `--config=/var/lib/kube-proxy/config.conf`.
 *
 * Departures (add-on convention of issue #21): the pod runs the k8ts binary
 * (image `k8ts.local/k8ts:<version>`) as a host process, so there are no
 * /lib/modules and xtables-lock volumes, and the ConfigMap has no
 * kubeconfig.conf (clientConnection.kubeconfig is left empty: in-cluster
 * config with the pod's refreshed service-account token). Like the CoreDNS addon, it reaches the API
 * server at the control plane's address given here (in-cluster config with
 * KUBERNETES_SERVICE_HOST/PORT set to it: kubeadm's kube-proxy kubeconfig
 * also names the control-plane endpoint, never the `kubernetes` Service that
 * kube-proxy itself programs) and authenticates with its service-account token.
 */
import type { ConfigMap, ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { Clientset } from '../../client/index.js';
import { createAllIfNotExist } from '../../kubeadm/apiclient.js';
import { k8tsVersion } from '../../apiserver/version.js';
import { nodeBootstrapTokenAuthGroup } from '../../api/bootstraptoken/index.js';
import { defaultKubeProxyConfiguration, kubeProxyConfigurationYAML } from '../kube-proxy-config-file.js';

export interface KubeProxyAddonConfig {
  /** host:port of the API server the kube-proxy pods talk to. */
  apiServerHost: string;
  apiServerPort: number;
  /** The cluster's pod CIDR (kubeadm's networking.podSubnet), kube-proxy's clusterCIDR; absent: none. */
  clusterCIDR?: string;
}

const labels = { 'k8s-app': 'kube-proxy' };
const ns = 'kube-system';

/** Where kubeadm's DaemonSet mounts the ConfigMap, and the file kube-proxy's --config names. */
export const kubeProxyConfigDir = '/var/lib/kube-proxy';

/** kubeadm's kube-proxy ConfigMap and the Role/RoleBinding `kube-proxy` letting joining nodes' bootstrap tokens read it. */
export function kubeProxyConfigObjects(c: KubeProxyAddonConfig): [ConfigMap, Role, RoleBinding] {
  return [
    {
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-proxy', namespace: ns, labels: { app: 'kube-proxy' } },
      data: { 'config.conf': kubeProxyConfigurationYAML(defaultKubeProxyConfiguration(c.clusterCIDR)) },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'kube-proxy', namespace: ns },
      rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['kube-proxy'], verbs: ['get'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'kube-proxy', namespace: ns },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'kube-proxy' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: nodeBootstrapTokenAuthGroup }],
    },
  ];
}

export function kubeProxyObjects(c: KubeProxyAddonConfig): [ServiceAccount, ClusterRoleBinding, ClusterRole, ClusterRoleBinding, ConfigMap, Role, RoleBinding, DaemonSet] {
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'kube-proxy', namespace: ns } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'kubeadm:node-proxier' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:node-proxier' },
      subjects: [{ kind: 'ServiceAccount', name: 'kube-proxy', namespace: ns }],
    },
    // `k8ts proxy` also enforces NetworkPolicies (src/netpol), which reads what kube-router's ClusterRole lets it read.
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'k8ts:network-policy-agent' },
      rules: [
        { apiGroups: [''], resources: ['pods', 'namespaces'], verbs: ['list', 'watch'] },
        { apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: ['list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'k8ts:network-policy-agent' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'k8ts:network-policy-agent' },
      subjects: [{ kind: 'ServiceAccount', name: 'kube-proxy', namespace: ns }],
    },
    ...kubeProxyConfigObjects(c),
    {
      apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'kube-proxy', namespace: ns, labels },
      spec: {
        selector: { matchLabels: labels },
        updateStrategy: { type: 'RollingUpdate' },
        template: {
          metadata: { labels },
          spec: {
            priorityClassName: 'system-node-critical',
            serviceAccountName: 'kube-proxy',
            hostNetwork: true,
            tolerations: [{ operator: 'Exists' }],
            nodeSelector: { 'kubernetes.io/os': 'linux' },
            containers: [{
              name: 'kube-proxy',
              image: `k8ts.local/k8ts:${k8tsVersion}`,
              command: ['k8ts', 'proxy', `--config=${kubeProxyConfigDir}/config.conf`, '--hostname-override=$(NODE_NAME)'],
              volumeMounts: [{ name: 'kube-proxy', mountPath: kubeProxyConfigDir }],
              env: [
                { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
                { name: 'KUBERNETES_SERVICE_HOST', value: c.apiServerHost },
                { name: 'KUBERNETES_SERVICE_PORT', value: String(c.apiServerPort) },
              ],
              securityContext: { privileged: true },
            }],
            volumes: [{ name: 'kube-proxy', configMap: { name: 'kube-proxy' } }],
          },
        },
      },
    },
  ];
}


/** Creates the objects, leaving any that already exist as they are (kubeadm init run again, or a restarted `k8ts up`). */
export async function applyKubeProxyAddon(clients: Clientset, c: KubeProxyAddonConfig, log?: (line: string) => void): Promise<void> {
  await createAllIfNotExist(clients, kubeProxyObjects(c));
  log?.('[addons] Applied essential addon: kube-proxy');
}
