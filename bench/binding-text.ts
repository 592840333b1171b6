/**
 * CPU per binding of the bound pod's stored text, the two ways the store can make it
 * (registry/store.ts writeUpdate): `encode`, Store.encode's JSON.stringify of the bound pod with
 * metadata.resourceVersion left out, and `splice`, the cached pod's kept JSON without its
 * resourceVersion (stored-json.ts withoutResourceVersion) with spec.nodeName and status.conditions
 * spliced in (registry/pod-binding-text.ts). The pod is a created pod as the server stores it
 * (defaults, the service account token volume, tolerations, one managedFields entry) and a Pending
 * status; the bound pod is setPodNodeNameAndMetadata's. Both texts are checked equal first.
 * CPU (process.cpuUsage) per call: the median of 5 batches after 20,000 warm-up calls, per round.
 *
 *   node dist/bench/binding-text.js [--rounds 3] [--batch 50000]
 *
 * Prints a Markdown table; results are copied into bench/RESULTS.md by hand.
 */
import { loadavg } from 'node:os';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { createdPod } from './lib/pods.js';
import { median } from './lib/stats.js';
import { table } from './lib/results.js';
import { benchArgs } from './lib/args.js';
import { setPodNodeNameAndMetadata } from '../src/registry/pod-binding.js';
import { boundPodStoredText } from '../src/registry/pod-binding-text.js';
import { withoutResourceVersion } from '../src/registry/stored-json.js';

const cpuUs = () => { const u = process.cpuUsage(); return u.user + u.system; };

function perCall(f: () => unknown, batch: number): number {
  for (let i = 0; i < 20_000; i++) f();
  const xs: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = cpuUs();
    for (let i = 0; i < batch; i++) f();
    xs.push((cpuUs() - t0) / batch);
  }
  return median(xs);
}

/** Store.encode of a pod: served as stored, metadata.resourceVersion left out. */
function encode(pod: Pod): string {
  const { resourceVersion: _rv, ...metadata } = pod.metadata!;
  return JSON.stringify({ ...pod, apiVersion: 'v1', kind: 'Pod', metadata });
}

function main(): void {
  const { values } = benchArgs('CPU per binding of the bound pod\'s stored text: JSON.stringify against the splice.', {
    options: { rounds: { type: 'string', default: '3' }, batch: { type: 'string', default: '50000' } },
  });
  const batch = Number(values.batch);
  const created = createdPod('pod-000001', 'uid-1', 'abcde');
  // Decoded from its stored text as the watch cache holds it: resourceVersion metadata's last member.
  const pod = JSON.parse(JSON.stringify({ ...created, metadata: { ...created.metadata, resourceVersion: '1234' }, status: { phase: 'Pending', qosClass: 'BestEffort' } })) as Pod;
  const kept = JSON.stringify(pod);
  const now = '2026-12-07T03:00:00Z';
  const bound = setPodNodeNameAndMetadata(pod, 'node-01234', undefined, now);
  const spliced = () => boundPodStoredText(withoutResourceVersion(kept)!, 'node-01234', bound.status!.conditions!);
  if (spliced() !== encode(bound)) throw new Error('the splice is not the encode');
  const cases: Record<string, () => unknown> = { encode: () => encode(bound), splice: spliced };
  const rounds: Array<Record<string, number>> = [];
  const loadStart = loadavg()[0]!.toFixed(1);
  for (let r = 0; r < Number(values.rounds); r++) {
    const names = r % 2 ? Object.keys(cases).reverse() : Object.keys(cases);
    rounds.push(Object.fromEntries(names.map((n) => [n, perCall(cases[n]!, batch)])));
  }
  console.log(`binding-text: µs of CPU a call (a ${Buffer.byteLength(kept)}-byte pod), median of ${values.rounds} rounds (rounds in brackets), load ${loadStart} -> ${loadavg()[0]!.toFixed(1)}`);
  console.log(table(['Case', 'µs a call'], Object.keys(cases).map((c) => {
    const xs = rounds.map((x) => x[c]!);
    return [c, `**${median(xs).toFixed(2)}** (${xs.map((x) => x.toFixed(2)).join(', ')})`];
  })));
}

main();
