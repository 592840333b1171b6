/**
 * CPU per SimulatedRuntime.syncPod of a running pod whose spec did not
 * change: the path every pod update takes on a simulated node (a DaemonSet
 * on 5,000 nodes is 5,000 of them per status round). Measured with
 * process.cpuUsage, never wall time, so run A/B against a baseline build:
 *
 *   node dist/bench/sim-syncpod.js [iterations]
 *
 * Prints one figure: nanoseconds of CPU per call (two containers, after a
 * warm-up).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { SimulatedRuntime } from '../src/kubelet/runtime/simulated/runtime.js';
import { FakeTimers } from '../src/kubelet/timers.js';
import { benchArgs } from './lib/args.js';

const { positionals } = benchArgs('CPU per SimulatedRuntime.syncPod of a running, unchanged two-container pod (ITERATIONS default 300000).',
  { allowPositionals: true, positionals: '[ITERATIONS]' });
const iterations = Number(positionals[0] ?? 300_000);
const rt = new SimulatedRuntime({ podCIDR: '10.244.9.0/24', hostIP: '172.16.0.9', timers: new FakeTimers() });
const pod: Pod = {
  metadata: { name: 'p', namespace: 'default', uid: 'u' },
  spec: { nodeName: 'n', containers: [{ name: 'c', image: 'nginx:1.27' }, { name: 's', image: 'busybox:1.28' }] },
  status: { phase: 'Pending' },
};
rt.syncPod(pod);
for (let i = 0; i < 20_000; i++) rt.syncPod(pod);
const start = process.cpuUsage();
for (let i = 0; i < iterations; i++) rt.syncPod(pod);
const used = process.cpuUsage(start);
console.log(`${(((used.user + used.system) * 1000) / iterations).toFixed(0)} ns CPU per syncPod`);
void rt.close();
