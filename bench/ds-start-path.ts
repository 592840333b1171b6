/**
 * CPU per call of three small steps a DaemonSet rollout repeats thousands of times, before and
 * after ds4's change (issue #20), in this process:
 *  - pod update handlers: the StatefulSet controller's change check on every pod event (goJSON of
 *    both label maps and both controller refs, before) and the ReplicaSet and DaemonSet
 *    controllers' (JSON.stringify of both, before) against sameLabels and sameControllerRef
 *    (src/controllers/controller-ref.ts), on two parsed versions of a DaemonSet pod as an
 *    informer hands them over (equal contents, distinct objects);
 *  - the simulated runtime's sandbox and container IDs: randomBytes(32) per ID (before) against
 *    the pooled draw (src/kubelet/runtime/simulated/random-id.ts);
 *  - the simulated image ID of a container start: a sha256 of the image name each time (before)
 *    against the memo in src/kubelet/runtime/simulated/images.ts.
 * Rounds alternate before and after; CPU is process.cpuUsage (user + system) per call, median of
 * the rounds. Each step is small: the figures say what a rollout of 5,000 pods saves, not its time.
 *
 *   node dist/bench/ds-start-path.js [--calls 20000] [--rounds 7]
 */
import { createHash, randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { goJSON } from '../src/api/history.js';
import { controllerRef } from '../src/api/pods.js';
import { sameControllerRef, sameLabels } from '../src/controllers/controller-ref.js';
import { newRuntimeID } from '../src/kubelet/runtime/simulated/random-id.js';
import { normalizeImage, simulatedImageID } from '../src/kubelet/runtime/simulated/images.js';
import { daemonSetPod } from './lib/pods.js';
import { median } from './lib/stats.js';
import { benchArgs } from './lib/args.js';

const { values: args } = benchArgs('CPU per call of the pod update handlers\' change checks and the simulated start path\'s IDs, before and after (issue #20).', {
  options: { calls: { type: 'string', default: '20000', help: 'calls per round and step' }, rounds: { type: 'string', default: '7', help: 'rounds, alternating before and after' } },
});
const calls = Number(args.calls);
const rounds = Number(args.rounds);

const cpuUs = () => { const u = process.cpuUsage(); return u.user + u.system; };

/** µs of CPU per call of `fn` over `calls` calls. */
function perCall(fn: (i: number) => unknown): number {
  let sink = 0;
  const t0 = cpuUs();
  for (let i = 0; i < calls; i++) if (fn(i)) sink++;
  const us = (cpuUs() - t0) / calls;
  if (sink < 0) console.log(sink);
  return us;
}

// Two versions of one pod as an informer hands them over: parsed separately, so equal contents in distinct objects.
const text = JSON.stringify(daemonSetPod('default', 'node-exporter-x7k2p', 'node-17'));
const old = JSON.parse(text) as Pod;
const cur = JSON.parse(text) as Pod;
const ref = (p: Pod): OwnerReference | undefined => controllerRef(p);

const steps: { name: string; before: (i: number) => unknown; after: (i: number) => unknown }[] = [
  {
    name: 'StatefulSet updatePod change check (labels, controller ref)',
    before: () => goJSON(old.metadata!.labels ?? {}) !== goJSON(cur.metadata!.labels ?? {}) || goJSON(ref(cur) ?? null) !== goJSON(ref(old) ?? null),
    after: () => !sameLabels(old.metadata!.labels, cur.metadata!.labels) || !sameControllerRef(ref(cur), ref(old)),
  },
  {
    name: 'ReplicaSet / DaemonSet updatePod change check',
    before: () => JSON.stringify(old.metadata!.labels ?? {}) !== JSON.stringify(cur.metadata!.labels ?? {}) || JSON.stringify(ref(cur)) !== JSON.stringify(ref(old)),
    after: () => !sameLabels(old.metadata!.labels, cur.metadata!.labels) || !sameControllerRef(ref(cur), ref(old)),
  },
  {
    name: 'simulated sandbox or container ID',
    before: () => randomBytes(32).toString('hex').length,
    after: () => newRuntimeID().length,
  },
  {
    name: 'simulated image ID of a container start',
    before: () => `docker.io/gasbugs/http-go@sha256:${createHash('sha256').update(normalizeImage('gasbugs/http-go')).digest('hex')}`.length,
    after: () => simulatedImageID('gasbugs/http-go').length,
  },
];

console.log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${calls} calls per round, ${rounds} rounds`);
console.log('| Step | before, µs per call | after, µs per call | saved per 5,000 daemon pods (ms) |');
console.log('| --- | --- | --- | --- |');
for (const s of steps) {
  const b: number[] = [];
  const a: number[] = [];
  // Warm both up first, so neither pays the other's compile.
  perCall(s.before);
  perCall(s.after);
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) { b.push(perCall(s.before)); a.push(perCall(s.after)); } else { a.push(perCall(s.after)); b.push(perCall(s.before)); }
  }
  // Per daemon pod: three pod events per handler check; two IDs (sandbox, container) and one image ID per start.
  const perPod = s.name.includes('ID of') ? 1 : s.name.includes('ID') ? 2 : 3;
  const mb = median(b);
  const ma = median(a);
  console.log(`| ${s.name} | ${mb.toFixed(3)} | ${ma.toFixed(3)} | ${((mb - ma) * perPod * 5000 / 1000).toFixed(1)} |`);
}
console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
