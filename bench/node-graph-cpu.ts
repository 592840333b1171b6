/**
 * CPU per bound pod in the Node authorizer's graph (apiserver/authz/node/graph.ts setPod), which
 * the API server's graph populator runs on the serving thread for every pod event: a binding's
 * MODIFIED event is the one that adds edges (a pending pod has no node). The pod is the one
 * side-by-side.ts creates (its service-account volume with its random suffix, the projected
 * kube-root-ca.crt), bound to one of 5,000 nodes, as bench/scheduler.ts's pods are. In a fresh
 * process per build and round, without a server: `--batches` batches of `--batch` pods set in
 * order into one graph, CPU (process.cpuUsage) per setPod over the batches after the first five;
 * medians of the batches, then of the rounds. With `--baseline-dist` another build's graph runs
 * the same rounds, interleaved with this one's.
 *
 *   node dist/bench/node-graph-cpu.js [--rounds 5] [--batches 25] [--batch 2000] [--baseline-dist /tmp/base/dist]
 *
 * Prints a Markdown table; results are copied into bench/RESULTS.md by hand.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { createdPod } from './lib/pods.js';
import { median } from './lib/stats.js';
import { buildRoundsMain } from './lib/builds-in-children.js';

/** One round in this process: µs of CPU per setPod of a bound pod, the median of the measured batches. */
async function child(dist: string, batches: number, batch: number): Promise<number> {
  const { NodeGraph } = await import(pathToFileURL(join(dist, 'src', 'apiserver', 'authz', 'node', 'graph.js')).href) as
    { NodeGraph: new () => { setPod(pod: Pod): void } };
  const graph = new NodeGraph();
  const perPod: number[] = [];
  for (let b = 0; b < batches; b++) {
    const pods = Array.from({ length: batch }, (_, i) => {
      const p = JSON.parse(JSON.stringify(createdPod(`p-${b}-${i}`, randomUUID(), Math.random().toString(36).slice(2, 7)))) as Pod;
      p.spec!.nodeName = `node-${(b * batch + i) % 5000}`;
      return p;
    });
    const t0 = process.cpuUsage();
    for (const p of pods) graph.setPod(p);
    const t = process.cpuUsage(t0);
    if (b >= 5) perPod.push((t.user + t.system) / batch);
  }
  return median(perPod);
}

await buildRoundsMain({
  script: import.meta.url, description: 'CPU per bound pod in the Node authorizer\'s graph (setPod), in a fresh process per build and round.',
  defaults: { rounds: '5', batches: '25', batch: '2000' }, child,
  title: 'node-graph-cpu', column: 'CPU µs per setPod of a bound pod (median)', digits: 2,
});
