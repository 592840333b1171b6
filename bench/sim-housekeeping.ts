/**
 * CPU a second of the simulated nodes' housekeeping timers (PodWorkers.startHousekeeping, every
 * 2 s per node, upstream's housekeepingPeriod), idle nodes' worth: `--nodes` timers of their own
 * re-armed after each run (before, as podworkers.ts had it) against one HousekeepingWheel for all
 * of them (src/kubelet/housekeeping.ts, as simulator.ts shares it now). Each run does what an idle
 * node's does: list the runtime's pods (none) against the node's own. Rounds alternate; CPU is
 * process.cpuUsage (user + system) over `--seconds` after one period of warm-up, median of the
 * rounds. Timers only: the heartbeats and the informers of a real simulator are not here.
 *
 *   node dist/bench/sim-housekeeping.js [--nodes 5000] [--seconds 6] [--rounds 3]
 */
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { HousekeepingWheel } from '../src/kubelet/housekeeping.js';
import { housekeepingPeriodMs } from '../src/kubelet/podworkers.js';
import { median } from './lib/stats.js';
import { benchArgs } from './lib/args.js';

const { values: args } = benchArgs('CPU a second of N simulated nodes\' housekeeping: a timer per node against one shared wheel.', {
  options: {
    nodes: { type: 'string', default: '5000', help: 'simulated nodes' },
    seconds: { type: 'string', default: '6', help: 'measured seconds per round and variant' },
    rounds: { type: 'string', default: '3', help: 'rounds, alternating the variants' },
  },
});
const nodes = Number(args.nodes);
const seconds = Number(args.seconds);

/** An idle node's housekeeping pass: the runtime's pods (none) that no source wants. */
function idleNode(): () => void {
  const runtimePods: string[] = [];
  const wanted = new Map<string, unknown>();
  return () => { for (const uid of runtimePods) if (!wanted.has(uid)) throw new Error('unexpected orphan'); };
}

/** Starts the variant's timers; returns their stop. */
function start(variant: 'own' | 'wheel'): () => void {
  const passes = Array.from({ length: nodes }, idleNode);
  if (variant === 'wheel') {
    const wheel = new HousekeepingWheel({ periodMs: housekeepingPeriodMs });
    const removes = passes.map((p) => wheel.add(p));
    return () => { for (const r of removes) r(); };
  }
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  for (const pass of passes) {
    const tick = () => { if (stopped) return; pass(); const t = setTimeout(() => { timers.delete(t); tick(); }, housekeepingPeriodMs); timers.add(t); };
    // Nodes register one after another: their timers' phases spread over the period.
    const t = setTimeout(() => { timers.delete(t); tick(); }, Math.random() * housekeepingPeriodMs);
    timers.add(t);
  }
  return () => { stopped = true; for (const t of timers) clearTimeout(t); };
}

async function cpuMsPerSecond(variant: 'own' | 'wheel'): Promise<number> {
  const stop = start(variant);
  await sleep(housekeepingPeriodMs);
  const t0 = process.cpuUsage();
  const w0 = performance.now();
  await sleep(seconds * 1000);
  const t = process.cpuUsage(t0);
  const wall = (performance.now() - w0) / 1000;
  stop();
  return (t.user + t.system) / 1000 / wall;
}

const results: Record<'own' | 'wheel', number[]> = { own: [], wheel: [] };
const loadStart = loadavg()[0]!.toFixed(1);
for (let r = 0; r < Number(args.rounds); r++) {
  for (const v of r % 2 ? (['wheel', 'own'] as const) : (['own', 'wheel'] as const)) results[v].push(await cpuMsPerSecond(v));
}
console.log(`sim-housekeeping: ${nodes} nodes, ${seconds} s a round, load ${loadStart} -> ${loadavg()[0]!.toFixed(1)}`);
console.log('| Housekeeping timers | CPU ms per second (median) | Rounds |\n| --- | --- | --- |');
for (const v of ['own', 'wheel'] as const) {
  console.log(`| ${v === 'own' ? 'a timer per node (before)' : 'one wheel (simulator.ts now)'} | **${median(results[v]).toFixed(1)}** | ${results[v].map((x) => x.toFixed(1)).join(', ')} |`);
}
