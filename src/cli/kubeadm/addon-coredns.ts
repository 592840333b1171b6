/**
 * kubeadm's CoreDNS addon phase (cmd/kubeadm/app/phases/addons/dns), with
 * `k8ts dns` in CoreDNS's place: the ServiceAccount `coredns`, the
 * ClusterRole `system:coredns` (list/watch endpoints, services, pods,
 * namespaces, endpointslices) and its binding, the `coredns` Deployment
 * (k8s-app=kube-dns, 2 replicas, system-cluster-critical, tolerating
 * CriticalAddonsOnly and the control-plane taint, preferring one replica a
 * node, liveness on :8080/health and readiness on :8181/ready) and the
 * `kube-dns` Service at the service CIDR's tenth address (kubeadm's GetDNSIP)
 * with ports dns 53/UDP, dns-tcp 53/TCP and metrics 9153/TCP.
 *
 * Departure (add-on convention of issue #21): the pod runs the k8ts binary
 * (image `k8ts.local/k8ts:<version>`) as a host process with the host
 * network, so its ports are host ports: two replicas need two nodes (on one
 * node the second stays Pending, as the scheduler's NodePorts filter says).
 * It listens on the pod's (the node's) address, not on every address, so a
 * node resolver on 127.0.0.53:53 (systemd-resolved) keeps its port.
 * It reaches the API server at the control plane's address given here
 * rather than through the `kubernetes` Service, so DNS does not wait for
 * kube-proxy; it authenticates with its service-account token.
 */
import type { Service, ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { ClusterRole, ClusterRoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { Clientset } from '../../client/index.js';
import { createAllIfNotExist } from '../../kubeadm/apiclient.js';
import { k8tsVersion } from '../../apiserver/version.js';

export interface CoreDNSAddonConfig {
  /** The kube-dns Service's ClusterIP: the service CIDR's tenth address. */
  dnsIP: string;
  clusterDomain?: string;
  /** host:port of the API server the DNS pods talk to. */
  apiServerHost?: string;
  apiServerPort?: number;
  replicas?: number;
}

const labels = { 'k8s-app': 'kube-dns' };
const ns = 'kube-system';

export function coreDNSObjects(c: CoreDNSAddonConfig): [ServiceAccount, ClusterRole, ClusterRoleBinding, Deployment, Service] {
  const domain = c.clusterDomain ?? 'cluster.local';
  const env = [
    { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
    ...(c.apiServerHost ? [
      { name: 'KUBERNETES_SERVICE_HOST', value: c.apiServerHost }, { name: 'KUBERNETES_SERVICE_PORT', value: String(c.apiServerPort ?? 6443) },
    ] : []),
  ];
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'coredns', namespace: ns } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'system:coredns' },
      rules: [
        { apiGroups: [''], resources: ['endpoints', 'services', 'pods', 'namespaces'], verbs: ['list', 'watch'] },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'system:coredns' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:coredns' },
      subjects: [{ kind: 'ServiceAccount', name: 'coredns', namespace: ns }],
    },
    {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'coredns', namespace: ns, labels },
      spec: {
        replicas: c.replicas ?? 2,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            priorityClassName: 'system-cluster-critical',
            serviceAccountName: 'coredns',
            affinity: {
              podAntiAffinity: {
                preferredDuringSchedulingIgnoredDuringExecution: [{
                  weight: 100,
                  podAffinityTerm: { labelSelector: { matchExpressions: [{ key: 'k8s-app', operator: 'In', values: ['kube-dns'] }] }, topologyKey: 'kubernetes.io/hostname' },
                }],
              },
            },
            tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }, { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
            nodeSelector: { 'kubernetes.io/os': 'linux' },
            hostNetwork: true,
            dnsPolicy: 'Default',
            containers: [{
              name: 'coredns',
              image: `k8ts.local/k8ts:${k8tsVersion}`,
              command: ['k8ts', 'dns', '--bind-address=$(POD_IP)', `--cluster-domain=${domain}`, '--port=53', '--health-port=8080', '--ready-port=8181', '--metrics-port=9153'],
              env,
              resources: { limits: { memory: '170Mi' }, requests: { cpu: '100m', memory: '70Mi' } },
              ports: [
                { containerPort: 53, name: 'dns', protocol: 'UDP' },
                { containerPort: 53, name: 'dns-tcp', protocol: 'TCP' },
                { containerPort: 9153, name: 'metrics', protocol: 'TCP' },
              ],
              livenessProbe: { httpGet: { path: '/health', port: 8080, scheme: 'HTTP' }, initialDelaySeconds: 60, timeoutSeconds: 5, successThreshold: 1, failureThreshold: 5 },
              readinessProbe: { httpGet: { path: '/ready', port: 8181, scheme: 'HTTP' } },
            }],
          },
        },
      },
    },
    {
      apiVersion: 'v1', kind: 'Service',
      metadata: {
        name: 'kube-dns', namespace: ns,
        labels: { ...labels, 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS' },
        annotations: { 'prometheus.io/port': '9153', 'prometheus.io/scrape': 'true' },
      },
      spec: {
        clusterIP: c.dnsIP, selector: labels,
        ports: [
          { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
          { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
          { name: 'metrics', port: 9153, protocol: 'TCP', targetPort: 9153 },
        ],
      },
    },
  ];
}


/** Creates the objects, leaving any that already exist as they are (kubeadm init run again, or a restarted `k8ts up`). */
export async function applyCoreDNSAddon(clients: Clientset, c: CoreDNSAddonConfig, log?: (line: string) => void): Promise<void> {
  await createAllIfNotExist(clients, coreDNSObjects(c));
  log?.('[addons] Applied essential addon: CoreDNS');
}
