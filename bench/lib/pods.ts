/**
 * Benchmark pod bodies: what a DaemonSet controller creates (owner reference,
 * node affinity, the DaemonSet tolerations, resources, a hostPath volume),
 * about 1.3 KB of JSON each.
 */

const daemonSetTolerations = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

export function daemonSetPod(namespace: string, name: string, node: string): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      labels: {
        'app.kubernetes.io/name': 'node-exporter',
        'app.kubernetes.io/part-of': 'monitoring',
        'controller-revision-hash': '6d5f7c9b8d',
        'pod-template-generation': '1',
      },
      ownerReferences: [{
        apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'node-exporter',
        uid: '3f1c2a7e-8b1d-4c55-9d0e-5a6b7c8d9e0f', controller: true, blockOwnerDeletion: true,
      }],
    },
    spec: {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
          },
        },
      },
      containers: [{
        name: 'node-exporter',
        image: 'quay.io/prometheus/node-exporter:v1.8.2',
        args: ['--path.rootfs=/host', '--web.listen-address=:9100'],
        ports: [{ name: 'metrics', containerPort: 9100, protocol: 'TCP' }],
        env: [{ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
        resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m', memory: '128Mi' } },
        volumeMounts: [{ name: 'root', mountPath: '/host', readOnly: true }],
      }],
      volumes: [{ name: 'root', hostPath: { path: '/' } }],
      tolerations: daemonSetTolerations,
      terminationGracePeriodSeconds: 30,
    },
  };
}
