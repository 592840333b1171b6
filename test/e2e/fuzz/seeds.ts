/**
 * Valid objects of the kinds the fuzz suite mutates, each with the
 * collection path it is created under. They are what a user would write,
 * so a mutation starts from something the server accepts.
 */
import type { ConfigMap, Namespace, Node, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { DaemonSet, Deployment, StatefulSet } from 'kubernetes-types/apps/v1.js';

export interface Seed {
  kind: string;
  /** Collection path, with NS where the namespace goes (cluster-scoped kinds have none). */
  collection: string;
  object: Record<string, any>;
}

export const fuzzNamespace = 'fuzz';

const podSpec = (app: string): Pod['spec'] => ({
  containers: [{
    name: 'main', image: 'busybox:1.36', command: ['sleep', '3600'],
    ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }],
    env: [{ name: 'MODE', value: app }],
    resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '1', memory: '128Mi' } },
  }],
  nodeSelector: { 'kubernetes.io/os': 'linux' },
  tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
  terminationGracePeriodSeconds: 5,
});

const template = (app: string) => ({ metadata: { labels: { app } }, spec: podSpec(app) });

const configMap: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', labels: { app: 'fz' } }, data: { key: 'value', 'file.txt': 'line1\nline2' } };
const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pod', labels: { app: 'fz' }, annotations: { note: 'x' } }, spec: podSpec('fz') };
const service: Service = {
  apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc', labels: { app: 'fz' } },
  spec: { selector: { app: 'fz' }, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }], type: 'ClusterIP' },
};
const nodePortService: Service = {
  apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc-np' },
  spec: { selector: { app: 'fz' }, ports: [{ port: 443, targetPort: 'http' }], type: 'NodePort' },
};
const daemonSet: DaemonSet = {
  apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'ds' },
  spec: { selector: { matchLabels: { app: 'fz-ds' } }, template: template('fz-ds'), updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } } },
};
const statefulSet: StatefulSet = {
  apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'sts' },
  spec: {
    serviceName: 'svc', replicas: 2, selector: { matchLabels: { app: 'fz-sts' } }, template: template('fz-sts'),
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
  },
};
const deployment: Deployment = {
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'deploy' },
  spec: { replicas: 3, selector: { matchLabels: { app: 'fz-d' } }, template: template('fz-d'), strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } } },
};
const namespace: Namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns', labels: { team: 'a' } } };
const node: Node = {
  apiVersion: 'v1', kind: 'Node', metadata: { name: 'node', labels: { 'kubernetes.io/hostname': 'node', 'kubernetes.io/os': 'linux' } },
  spec: { taints: [{ key: 'dedicated', value: 'fz', effect: 'NoSchedule' }], podCIDR: '10.244.1.0/24' },
  status: { capacity: { cpu: '4', memory: '8Gi', pods: '110' }, allocatable: { cpu: '4', memory: '8Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] },
};

const core = (plural: string) => `/api/v1/namespaces/NS/${plural}`;
const apps = (plural: string) => `/apis/apps/v1/namespaces/NS/${plural}`;

export const seeds: Seed[] = [
  { kind: 'ConfigMap', collection: core('configmaps'), object: configMap },
  { kind: 'Pod', collection: core('pods'), object: pod },
  { kind: 'Service', collection: core('services'), object: service },
  { kind: 'Service', collection: core('services'), object: nodePortService },
  { kind: 'DaemonSet', collection: apps('daemonsets'), object: daemonSet },
  { kind: 'StatefulSet', collection: apps('statefulsets'), object: statefulSet },
  { kind: 'Deployment', collection: apps('deployments'), object: deployment },
  { kind: 'Namespace', collection: '/api/v1/namespaces', object: namespace },
  { kind: 'Node', collection: '/api/v1/nodes', object: node },
];
