/**
 * The scheduling queue alone, in process: CPU per pod of SchedulingQueue.add for N pending pods
 * (bench/scheduler.ts's pod, parsed per pod as an informer gives it) and then pop() of every one
 * (activeQ's heap: priority, then arrival). It isolates the queue from the cycle
 * (bench/scheduler-cycle.ts) and from HTTP, so a change to the queue can be compared A/B at a
 * steady cost. Prints its figures (nothing is written).
 *
 *   node dist/bench/scheduler-queue.js [--pods 10000] [--rounds 5]
 */
import { loadavg } from 'node:os';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { SchedulingQueue } from '../src/scheduler/queue.js';
import { realClock } from '../src/util/clock.js';
import { benchArgs } from './lib/args.js';

/** scheduler_perf's pod-default as the API server returns it, parsed on its own (pods spread over the heap, as an informer's are). */
function benchPod(i: number): Pod {
  return JSON.parse(JSON.stringify({
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: `pod-${String(i).padStart(6, '0')}`, namespace: 'default', uid: `u-${i}`, resourceVersion: String(10_000 + i), creationTimestamp: '2026-12-05T00:00:00Z' },
    spec: {
      containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10', ports: [{ containerPort: 80, protocol: 'TCP' }],
        resources: { requests: { cpu: '100m', memory: '500Mi' }, limits: { cpu: '100m', memory: '500Mi' } },
        terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' }],
      restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', serviceAccountName: 'default',
      securityContext: {}, schedulerName: 'default-scheduler', priority: 0, enableServiceLinks: true, preemptionPolicy: 'PreemptLowerPriority',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    },
    status: { phase: 'Pending', qosClass: 'Guaranteed' },
  })) as Pod;
}

function round(pods: Pod[]): number {
  const q = new SchedulingQueue({ clock: realClock });
  const start = process.cpuUsage();
  for (const p of pods) q.add(p);
  let popped = 0;
  while (q.pop()) popped++;
  const used = process.cpuUsage(start);
  q.close();
  if (popped !== pods.length) throw new Error(`popped ${popped} of ${pods.length}`);
  return (used.user + used.system) / pods.length;
}

function main(): void {
  const { values } = benchArgs('CPU per pod of the scheduling queue: add N pending pods, pop them all.', {
    options: { pods: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '5' } }, strict: true,
  });
  const n = Number(values.pods);
  const pods = Array.from({ length: n }, (_, i) => benchPod(i));
  round(pods); // warm-up: the optimizing compiler's first pass
  const results: number[] = [];
  for (let r = 1; r <= Number(values.rounds); r++) {
    const us = round(pods);
    results.push(us);
    console.log(`round ${r}: ${us.toFixed(2)} µs of CPU per pod (add + pop), load ${loadavg()[0].toFixed(1)}`);
  }
  const sorted = [...results].sort((a, b) => a - b);
  console.log(`median ${sorted[Math.floor((sorted.length - 1) / 2)].toFixed(2)} µs per pod over ${results.length} rounds of ${n} pods`);
}

main();
