/**
 * The scheduling cycle alone, in process, without the API server: CPU per pod
 * of Framework.schedulePod over a SchedulerCache of N nodes (bench/scheduler.ts's
 * shape: 4 cpu, 32Gi, 110 pods, Ready), with the default profile, then the
 * assume and the confirmation the bound pod's watch event brings (cache.addPod
 * of the bound copy). It isolates the filter and score loop from HTTP, TLS and
 * JSON, so a change to the plugins or the runtime can be compared A/B at a
 * steady cost. Prints its figures (nothing is written).
 *
 *   node dist/bench/scheduler-cycle.js [--nodes 5000] [--pods 10000] [--rounds 5]
 */
import { loadavg } from 'node:os';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { SchedulerCache } from '../src/scheduler/cache.js';
import { Framework } from '../src/scheduler/runtime.js';
import { defaultProfile } from '../src/scheduler/profile.js';
import { benchArgs } from './lib/args.js';

function benchNode(i: number): Node {
  const resources = { cpu: '4', memory: '32Gi', pods: '110' };
  return JSON.parse(JSON.stringify({
    apiVersion: 'v1', kind: 'Node',
    metadata: { name: `node-${String(i).padStart(5, '0')}`, uid: `n-${i}`, resourceVersion: String(i + 1), labels: { 'kubernetes.io/hostname': `node-${i}`, 'kubernetes.io/os': 'linux' } },
    spec: {},
    status: { capacity: resources, allocatable: resources, conditions: [{ type: 'Ready', status: 'True' }] },
  })) as Node;
}

/** scheduler_perf's pod-default, as the API server returns it (defaults filled in), parsed per pod as an informer does. */
function benchPod(i: number): Pod {
  return JSON.parse(JSON.stringify({
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: `pod-${String(i).padStart(6, '0')}`, namespace: 'default', uid: `p-${i}`, resourceVersion: String(10_000 + i) },
    spec: {
      containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10', ports: [{ containerPort: 80, protocol: 'TCP' }],
        resources: { requests: { cpu: '100m', memory: '500Mi' }, limits: { cpu: '100m', memory: '500Mi' } }, terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' }],
      restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', priority: 0,
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    },
    status: { phase: 'Pending', qosClass: 'Guaranteed' },
  })) as Pod;
}

function round(nodes: number, pods: number): { cpuMsPerPod: number; maxOnNode: number } {
  const cache = new SchedulerCache();
  for (let i = 0; i < nodes; i++) cache.addNode(benchNode(i));
  const framework = new Framework(defaultProfile().plugins);
  const pending = Array.from({ length: pods }, (_, i) => benchPod(i));
  const t0 = process.cpuUsage();
  for (const pod of pending) {
    const r = framework.schedulePod(pod, cache);
    if (r.kind !== 'Scheduled') throw new Error(`${pod.metadata!.name}: ${r.kind}`);
    cache.assumePod(pod, r.node.name);
    // The bound pod's MODIFIED event: a new object from the watch, confirming the assumed one.
    cache.addPod({ ...pod, spec: { ...pod.spec!, nodeName: r.node.name } });
  }
  const cpu = process.cpuUsage(t0);
  let maxOnNode = 0;
  for (const n of cache.list) maxOnNode = Math.max(maxOnNode, n.pods.size);
  return { cpuMsPerPod: (cpu.user + cpu.system) / 1000 / pods, maxOnNode };
}

function main(): void {
  const { values } = benchArgs('CPU per pod of the scheduling cycle alone, in process, over N nodes.', { options: { nodes: { type: 'string', default: '5000' }, pods: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '5' } } });
  const nodes = Number(values.nodes);
  const pods = Number(values.pods);
  console.log(`${nodes} nodes, ${pods} pods; load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const all: number[] = [];
  for (let r = 1; r <= Number(values.rounds); r++) {
    const { cpuMsPerPod, maxOnNode } = round(nodes, pods);
    all.push(cpuMsPerPod);
    console.log(`round ${r}: ${(cpuMsPerPod * 1000).toFixed(1)} µs of CPU per pod (most pods on a node: ${maxOnNode})`);
  }
  all.sort((a, b) => a - b);
  console.log(`median ${(all[Math.floor((all.length - 1) / 2)] * 1000).toFixed(1)} µs per pod; load after ${loadavg()[0].toFixed(1)}`);
}

main();
