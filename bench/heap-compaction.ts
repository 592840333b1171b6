/**
 * What V8's compaction and --optimize-for-size would do to a server's peak RSS, in process (issue
 * #20: at 150,000 pods each isolate's committed heap was about twice its live heap, the free space
 * left in pages that keep some live objects). The serving isolate's growing factor
 * (heap-headroom.ts, as `k8ts server` installs it) over a heap shaped like a server's at scale:
 * `--pods` pods decoded in a Map as a cache holds them, created a few at a time among short-lived
 * garbage (each write's JSON text, a ring of the last 1,024 as the watch ring), then `--writes`
 * updates of random pods (a new decoded version replaces the old one, as a status write does).
 * Each mode runs in a fresh child process, the modes' order turning by round:
 *  - off: the server's default (V8 picks the pages to move: up to 4 MB a full collection);
 *  - h64: the headroom budget at 64 MiB instead of 128 (K8TS_HEAP_HEADROOM_MIB=64);
 *  - always: every full collection compacts (V8's --compact-on-every-full-gc: every page moved);
 *  - size: V8's --optimize-for-size from the start (its full collections move objects off pages
 *    at least 20% free, up to 6 MB a collection, against 4 MB off pages ~50-70% free).
 * Reported per mode, medians over rounds: CPU of the whole run, the full collections' pauses, peak
 * RSS (VmHWM), and at the end the old space's committed and used MiB and the live heap.
 *
 *   node dist/bench/heap-compaction.js [--pods 60000] [--writes 120000] [--rounds 2]
 *
 * Prints a Markdown table; results are copied into bench/RESULTS.md by hand.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { benchArgs } from './lib/args.js';
import { createdPod } from './lib/pods.js';
import { median } from './lib/stats.js';
import { table } from './lib/results.js';
import { watchFullCollections } from '../src/cli/full-collections.js';
import { defaultHeapHeadroom, headroomAdjuster } from '../src/cli/heap-headroom.js';
import { silentLogger } from '../src/util/log.js';

const modes = ['off', 'h64', 'always', 'size'] as const;
type Mode = typeof modes[number];
interface Figures { cpuS: number; fullGcs: number; fullPauseS: number; peakRssMiB: number; oldCommittedMiB: number; oldUsedMiB: number; liveMiB: number }

const MiB = 2 ** 20;

/** Pod `i`, version `v`, decoded from its text as the cache decodes a write's answer. */
function podVersion(i: number, v: number): Pod {
  const p = createdPod(`web-${i % 60}-${i.toString(36)}`, `uid-${i}`, `h${i % 60}`);
  const pod: Pod = {
    ...p,
    metadata: { ...p.metadata, resourceVersion: String(v * 1_000_000 + i) },
    spec: { ...p.spec!, nodeName: `node-${i % 5000}` },
    status: { phase: 'Running', podIP: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, startTime: `2026-12-07T00:00:${String(v % 60).padStart(2, '0')}Z` },
  };
  return JSON.parse(JSON.stringify(pod)) as Pod;
}

const vmHwmMiB = (): number => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;

async function child(mode: Mode, pods: number, writes: number): Promise<Figures> {
  let fullGcs = 0; let fullPauseMs = 0;
  const pauses = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if ((e as { detail?: { kind?: number } }).detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
      fullGcs++; fullPauseMs += e.duration;
    }
  });
  pauses.observe({ entryTypes: ['gc'] });
  if (mode === 'always') setFlagsFromString('--compact-on-every-full-gc');
  if (mode === 'size') setFlagsFromString('--optimize-for-size');
  const watch = watchFullCollections(headroomAdjuster({ ...defaultHeapHeadroom, budgetMiB: mode === 'h64' ? 64 : defaultHeapHeadroom.budgetMiB, logger: silentLogger }));
  const t0 = process.cpuUsage();
  const cache = new Map<number, Pod>();
  const ring: string[] = new Array<string>(1024);
  let seq = 0;
  const write = (i: number, v: number) => { const p = podVersion(i, v); ring[seq++ % ring.length] = JSON.stringify(p); cache.set(i, p); };
  // Yield now and then, so that the observers' entries (and the factor they set) come as in a server.
  const tick = () => new Promise((r) => setImmediate(r));
  for (let i = 0; i < pods; i++) { write(i, 1); if (i % 500 === 0) await tick(); }
  for (let w = 0; w < writes; w++) { write(Math.floor(Math.random() * pods), 2 + w); if (w % 500 === 0) await tick(); }
  const c = process.cpuUsage(t0);
  await new Promise((r) => setTimeout(r, 1500));
  const old = getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!;
  watch.close(); pauses.disconnect();
  (globalThis as { gc?: () => void }).gc!();
  const live = getHeapStatistics().used_heap_size;
  if (cache.size !== pods) throw new Error('the cache lost pods');
  return {
    cpuS: (c.user + c.system) / 1e6, fullGcs, fullPauseS: fullPauseMs / 1000, peakRssMiB: vmHwmMiB(),
    oldCommittedMiB: old.space_size / MiB, oldUsedMiB: old.space_used_size / MiB, liveMiB: live / MiB,
  };
}

async function main(): Promise<void> {
  const { values } = benchArgs('V8\'s compaction, --optimize-for-size and the headroom budget against a server-shaped heap: CPU, full collections and memory, by mode.', {
    options: {
      pods: { type: 'string', default: '60000', help: 'pods in the cache' },
      writes: { type: 'string', default: '120000', help: 'updates of random pods after the creates' },
      rounds: { type: 'string', default: '2', help: 'rounds; each runs every mode in a fresh child, the order turning' },
      child: { type: 'string', help: '(internal) one mode in this process: off, h64, always or size' },
    },
  });
  const pods = Number(values.pods); const writes = Number(values.writes);
  if (values.child) return void console.log(JSON.stringify(await child(values.child as Mode, pods, writes)));
  const by: Record<Mode, Figures[]> = { off: [], h64: [], always: [], size: [] };
  const loads: string[] = [loadavg()[0].toFixed(1)];
  for (let r = 0; r < Number(values.rounds); r++) {
    const order = [...modes.slice(r % modes.length), ...modes.slice(0, r % modes.length)];
    for (const mode of order) {
      const out = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', mode, '--pods', String(pods), '--writes', String(writes)], { encoding: 'utf8', maxBuffer: 1 << 20 });
      by[mode].push(JSON.parse(out.trim().split('\n').pop()!) as Figures);
      loads.push(loadavg()[0].toFixed(1));
    }
  }
  const cell = (fs: Figures[], k: keyof Figures, digits = 0) => `${median(fs.map((f) => f[k])).toFixed(digits)} (${fs.map((f) => f[k].toFixed(digits)).join(', ')})`;
  console.log(`\`node dist/bench/heap-compaction.js --pods ${pods} --writes ${writes} --rounds ${values.rounds}\`; load ${loads.join(' → ')}\n`);
  console.log(table(
    ['mode', 'CPU, s', 'full GCs', 'their pauses, s', 'peak RSS, MiB', 'old space committed / used at the end, MiB', 'live after a full GC, MiB'],
    modes.map((m) => [m, cell(by[m], 'cpuS', 1), cell(by[m], 'fullGcs'), cell(by[m], 'fullPauseS', 2), cell(by[m], 'peakRssMiB'),
      `${cell(by[m], 'oldCommittedMiB')} / ${cell(by[m], 'oldUsedMiB')}`, cell(by[m], 'liveMiB')]),
  ));
}

await main();
