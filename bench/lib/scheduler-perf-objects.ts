/**
 * scheduler_perf's node-default and pod-default templates (kubernetes/kubernetes
 * test/integration/scheduler_perf/templates), as JSON bodies for creates: shared by
 * bench/scheduler.ts and the process it creates the measured pods from.
 */

/** node-default (4 cpu, 32Gi, 110 pods), with a Ready condition. */
export function benchNode(i: number): string {
  const resources = { cpu: '4', memory: '32Gi', pods: '110' };
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Node',
    metadata: { name: `node-${String(i).padStart(5, '0')}`, labels: { 'kubernetes.io/hostname': `node-${i}`, 'kubernetes.io/os': 'linux' } },
    status: { capacity: resources, allocatable: resources, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: now, lastTransitionTime: now }] },
  });
}

/** pod-default (pause, requests and limits 100m / 500Mi). */
export function benchPod(i: number, prefix = 'pod', namespace = 'default'): string {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: `${prefix}-${String(i).padStart(6, '0')}`, namespace },
    spec: { containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10', ports: [{ containerPort: 80 }],
      resources: { requests: { cpu: '100m', memory: '500Mi' }, limits: { cpu: '100m', memory: '500Mi' } } }] },
  });
}
