/**
 * Benchmark pod bodies: what a DaemonSet controller creates (owner reference,
 * node affinity, the DaemonSet tolerations, resources, a hostPath volume),
 * about 1.3 KB of JSON each; and the create answer of side-by-side's minimal
 * pod, for the in-process benchmarks of the create path (compact-cpu.ts,
 * validation-cpu.ts).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';

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

/** A create answer of side-by-side's minimal pod (k8ts server, 2026-12-05), without its resourceVersion. */
export function createdPod(name: string, uid: string, suffix: string): Pod {
  const volume = `kube-api-access-${suffix}`;
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name, labels: { load: 'yes' }, namespace: 'load', uid, creationTimestamp: new Date().toISOString().slice(0, 19) + 'Z',
      managedFields: [{
        manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2026-12-05T05:16:27Z', fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { '.': {}, 'f:load': {} } },
          'f:spec': {
            'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:imagePullPolicy': {}, 'f:name': {}, 'f:resources': {}, 'f:terminationMessagePath': {}, 'f:terminationMessagePolicy': {} } },
            'f:dnsPolicy': {}, 'f:enableServiceLinks': {}, 'f:restartPolicy': {}, 'f:schedulerName': {}, 'f:securityContext': {}, 'f:terminationGracePeriodSeconds': {},
          },
        },
      }],
    },
    spec: {
      containers: [{
        name: 'c', image: 'busybox', imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {},
        volumeMounts: [{ name: volume, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
      }],
      schedulerName: 'no-such-scheduler', enableServiceLinks: true, dnsPolicy: 'ClusterFirst', restartPolicy: 'Always', securityContext: {}, terminationGracePeriodSeconds: 30,
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      serviceAccountName: 'default', serviceAccount: 'default',
      volumes: [{
        name: volume,
        projected: {
          defaultMode: 420,
          sources: [
            { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
            { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
          ],
        },
      }],
      priority: 0, preemptionPolicy: 'PreemptLowerPriority',
    },
    status: { phase: 'Pending', qosClass: 'BestEffort' },
  };
}
