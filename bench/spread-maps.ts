/**
 * CPU per call of the per-pod object builders on a DaemonSet rollout's path, and of the two ways
 * to write `{ ...base, member }` (util/with-members.ts): on Node 20 a member added after a spread
 * gives each result a hidden class of its own, so such a literal costs ~1 µs a member added.
 *
 * Measured, each in a fresh child process per build and round (builds alternate which goes first):
 *  - `spread+1`, `spread+8`: `{ ...pod.spec, <1 or 8 new members> }` on a decoded pod's spec, and
 *    `assign+1`, `assign+8`: the same through withMembers (Object.assign onto `{}`);
 *  - containerStatus and generatePodStatus (the simulated kubelet's status of a running pod),
 *    fieldsForObject('v1/Pod') (the fields a field-selecting watch matches, per event), and
 *    setPodNodeNameAndMetadata (the server's binding), each from the build under test;
 *  - `update opts spread+2` / `withMembers`: the store's update adding preconditionRV and replace to a
 *    PUT's UpdateOptions (registry/store.ts update), and `turn ctx spread` / `withMembers`: the
 *    attempt's options with its turn's keys in the request context (guaranteedUpdate), both ways.
 * CPU (process.cpuUsage) per call: the median of 5 batches of `--batch` calls after 20,000 warm-up calls.
 *
 *   node dist/bench/spread-maps.js [--rounds 3] [--batch 50000] [--baseline-dist /tmp/base/dist]
 *
 * Prints a Markdown table; results are copied into bench/RESULTS.md by hand.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { createdPod } from './lib/pods.js';
import { median } from './lib/stats.js';
import { table } from './lib/results.js';
import { benchArgs } from './lib/args.js';
import { thisDist } from './lib/builds-in-children.js';

type Case = () => unknown;

const cpuUs = () => { const u = process.cpuUsage(); return u.user + u.system; };

function perCall(f: Case, batch: number): number {
  for (let i = 0; i < 20_000; i++) f();
  const xs: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = cpuUs();
    for (let i = 0; i < batch; i++) f();
    xs.push((cpuUs() - t0) / batch);
  }
  return median(xs);
}

/** One build's figures, µs a call, in this process. */
async function child(dist: string, batch: number): Promise<Record<string, number>> {
  const load = (p: string) => import(pathToFileURL(join(dist, 'src', p)).href);
  const { containerStatus, generatePodStatus } = await load('kubelet/status/generate.js');
  const { fieldsForObject } = await load('api/fields.js');
  const { setPodNodeNameAndMetadata } = await load('registry/pod-binding.js');
  const { withMembers } = await load('util/with-members.js');
  // Decoded as the server and the kubelets decode them.
  const pod = JSON.parse(JSON.stringify(createdPod('p', 'uid-1', 'abcde'))) as Pod;
  const spec = pod.spec!;
  const now = new Date();
  const running = { id: 'containerd://1', image: 'docker.io/gasbugs/http-go:latest', imageID: 'docker.io/gasbugs/http-go@sha256:1', restartCount: 0, state: 'running', startedAt: now, createdAt: now };
  const rs = { sandbox: { ready: true, ip: '10.244.0.2' }, containers: [{ ...running, name: spec.containers[0]!.name }] };
  // A PUT pods/status's UpdateOptions as the handler passes them (registry/store.ts UpdateOptions).
  const opts = { fieldManager: { manager: 'kubelet', subresource: 'status' }, subresource: 'status', signal: { aborted: false }, context: { user: 'kubelet' }, resultShared: true };
  const turns = new Set(['/registry/core/pods/default/p']);
  const cases: Record<string, Case> = {
    'spread+1': () => ({ ...spec, nodeName: 'node-1' }),
    'assign+1': () => Object.assign({}, spec, { nodeName: 'node-1' }),
    'spread+8': () => ({ ...spec, a1: 1, a2: 2, a3: 3, a4: 4, a5: 5, a6: 6, a7: 7, a8: 8 }),
    'assign+8': () => Object.assign({}, spec, { a1: 1, a2: 2, a3: 3, a4: 4, a5: 5, a6: 6, a7: 7, a8: 8 }),
    containerStatus: () => containerStatus(spec.containers[0], running, 'ContainerCreating'),
    generatePodStatus: () => generatePodStatus(pod, rs, { hostIP: '172.16.0.1', now }),
    podFields: () => fieldsForObject('v1/Pod', pod),
    binding: () => setPodNodeNameAndMetadata(pod, 'node-1', undefined, '2026-12-06T00:00:00Z'),
    'update opts spread+2': () => ({ ...opts, preconditionRV: undefined, replace: true }),
    'update opts withMembers+2': () => withMembers(opts, { preconditionRV: undefined, replace: true }),
    'turn ctx spread': () => ({ ...opts, context: { ...opts.context, turns } }),
    'turn ctx withMembers': () => withMembers(opts, { context: withMembers(opts.context, { turns }) }),
  };
  return Object.fromEntries(Object.entries(cases).map(([name, f]) => [name, perCall(f, batch)]));
}

async function main(): Promise<void> {
  const { values } = benchArgs('CPU per call of the rollout\'s per-pod object builders, and of a member added after a spread against Object.assign.', {
    options: {
      rounds: { type: 'string', default: '3' },
      batch: { type: 'string', default: '50000' },
      'baseline-dist': { type: 'string' },
      child: { type: 'string' },
    },
  });
  const batch = Number(values.batch);
  if (values.child) { console.log(JSON.stringify(await child(values.child, batch))); return; }
  const script = fileURLToPath(import.meta.url);
  const builds: Array<[string, string]> = [['this checkout', thisDist(import.meta.url)]];
  if (values['baseline-dist']) builds.push(['baseline', values['baseline-dist']]);
  const runs = new Map<string, Array<Record<string, number>>>(builds.map(([b]) => [b, []]));
  const loadStart = loadavg()[0]!.toFixed(1);
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const [name, dist] of r % 2 ? [...builds].reverse() : builds) {
      const out = execFileSync(process.execPath, [script, '--child', dist, '--batch', String(batch)], { encoding: 'utf8' });
      runs.get(name)!.push(JSON.parse(out.trim()));
    }
  }
  console.log(`spread-maps: µs of CPU a call, median of ${values.rounds} rounds (rounds in brackets), load ${loadStart} -> ${loadavg()[0]!.toFixed(1)}`);
  const cases = Object.keys(runs.get('this checkout')![0]!);
  console.log(table(['Case', ...builds.map(([b]) => b)], cases.map((c) => [c, ...builds.map(([b]) => {
    const xs = runs.get(b)!.map((x) => x[c]!);
    return `**${median(xs).toFixed(2)}** (${xs.map((x) => x.toFixed(2)).join(', ')})`;
  })])));
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
