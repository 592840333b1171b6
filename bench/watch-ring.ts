/**
 * What the watch cache's event ring costs under a stream of updates to one object, and what a
 * replay from it costs (issue 19, attack 4; registry/watch-cache/ring.ts). In a fresh process
 * per build and round, without a server: a Registry on in-memory SQLite with the watch cache
 * (1,024 events, the server's default), one ConfigMap of 16 keys that 16 managers own one each
 * (attack 4's object), updated by 16 concurrent writers through the store's GuaranteedUpdate,
 * each write changing its manager's key and time as an apply does. Measured over `--updates`:
 * CPU per update, the main isolate's GC (PerformanceObserver: scavenges and full collections,
 * count, total and longest) and the heap after a full GC; then replays: a watch from the
 * oldest resourceVersion the ring holds (1,023 events), with and without a label selector,
 * and from 16 events back, CPU per replay.
 * With --baseline-dist another build's modules run the same rounds, interleaved with this one's.
 *
 *   node dist/bench/watch-ring.js [--updates=20000] [--rounds=3] [--baseline-dist=/tmp/base/dist]
 * With WATCH_RING_SNAPSHOT=FILE and --child=DIST (one process, no table) a heap snapshot is written
 * after the updates, for bench/heap-summary.ts.
 * Prints a Markdown table (medians over the rounds); results are copied into bench/RESULTS.md by hand.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { writeHeapSnapshot } from 'node:v8';
import { dirname, join } from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import type { Registry as RegistryType } from '../src/registry/registry.js';
import type { WatchEventOut } from '../src/registry/types.js';
import { table } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const thisDist = join(dirname(fileURLToPath(import.meta.url)), '..');
const managers = 16;
// Around the measured updates on the child's stdout, where --trace-gc-nvp writes a line per GC (Linux writes to a pipe synchronously).
const startMark = 'watch-ring: measured updates start';
const endMark = 'watch-ring: measured updates end';
const writers = 16;

interface Result {
  /** From --trace-gc-nvp over the measured updates: bytes the scavenges kept (copied within the young generation or promoted), per update. */
  survivedPerUpdate?: number; promotedPerUpdate?: number;
  cpuUsPerUpdate: number;
  scavenges: number; scavengeMs: number; longestScavengeMs: number;
  fulls: number; fullMs: number; longestFullMs: number;
  heapMiB: number;
  replayAllMs: number; replaySelectedMs: number; replayRecentMs: number; replayedEvents: number;
}

const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

async function child(dist: string, updates: number): Promise<Result> {
  const imp = (p: string) => import(pathToFileURL(join(dist, p)).href);
  const { Registry } = await imp('src/registry/registry.js') as { Registry: typeof RegistryType };
  const { openSqliteBackend } = await imp('src/storage/sqlite/index.js');
  const { realClock } = await imp('src/util/clock.js');
  const { silentLogger } = await imp('src/util/log.js');
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: silentLogger });
  const registry: RegistryType = new Registry(backend, realClock);
  await registry.startWatchCache({ capacity: 1024, logger: silentLogger });
  await registry.namespaces.create(undefined, { metadata: { name: 'default' } });
  const cms = registry.store('', 'v1', 'configmaps')!;
  const time = (n: number) => new Date(Date.parse('2026-12-05T00:00:00Z') + n * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  const data: Record<string, string> = {};
  const managedFields: ManagedFieldsEntry[] = [];
  for (let i = 0; i < managers; i++) {
    data[`key-${i}`] = 'v0';
    managedFields.push({ manager: `m${i}`, operation: 'Apply', apiVersion: 'v1', time: time(0), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { [`f:key-${i}`]: {} } } });
  }
  await cms.create('default', { metadata: { name: 'ssa', labels: { app: 'bench' }, managedFields }, data } satisfies ConfigMap);
  let n = 0;
  // One writer's update: its manager's key and time change, as an apply of that manager's key does.
  const update = (w: number) => cms.guaranteedUpdate('default', 'ssa', (cur: ConfigMap) => {
    const i = n++;
    cur.data![`key-${w}`] = `v${i}`;
    cur.metadata!.managedFields![w]!.time = time(i);
    return cur;
  });
  const run = async (count: number) => {
    await Promise.all(Array.from({ length: writers }, async (_, w) => { for (let k = w; k < count; k += writers) await update(w); }));
  };
  await run(2048); // warm: the ring full, the code optimized

  const gc = { minor: [] as number[], major: [] as number[] };
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) gc.minor.push(e.duration);
      else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.major.push(e.duration);
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  console.log(startMark);
  const cpu0 = cpuMs();
  await run(updates);
  const cpuUsPerUpdate = (cpuMs() - cpu0) * 1000 / updates;
  await new Promise((r) => setTimeout(r, 100));
  obs.disconnect();
  console.log(endMark);
  (globalThis as { gc?: () => void }).gc?.();
  const heapMiB = process.memoryUsage().heapUsed / 2 ** 20;
  if (process.env.WATCH_RING_SNAPSHOT) writeHeapSnapshot(process.env.WATCH_RING_SNAPSHOT);

  const cache = cms.watchCache!;
  const replay = async (rv: number, labelSelector?: string) => {
    let events = 0;
    const t0 = cpuMs();
    const w = await cms.watch('default', { resourceVersion: String(rv), labelSelector }, (_e: WatchEventOut) => { events++; }, () => {});
    const ms = cpuMs() - t0;
    w.close();
    return { ms, events };
  };
  const median = async (f: () => Promise<{ ms: number; events: number }>) => {
    const all = [];
    for (let i = 0; i < 9; i++) all.push(await f());
    all.sort((a, b) => a.ms - b.ms);
    return all[4]!;
  };
  const all = await median(() => replay(cache.oldest));
  const selected = await median(() => replay(cache.oldest, 'app=bench'));
  const recent = await median(() => replay(cache.revision - 16));
  registry.closeWatchCache();
  await backend.close();
  const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
  return {
    cpuUsPerUpdate, scavenges: gc.minor.length, scavengeMs: sum(gc.minor), longestScavengeMs: Math.max(0, ...gc.minor),
    fulls: gc.major.length, fullMs: sum(gc.major), longestFullMs: Math.max(0, ...gc.major), heapMiB,
    replayAllMs: all.ms, replaySelectedMs: selected.ms, replayRecentMs: recent.ms, replayedEvents: all.events,
  };
}

async function main(): Promise<void> {
  const { values } = benchArgs("The watch cache event ring's cost under a stream of updates, and a replay's.", { options: { updates: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '3' }, 'baseline-dist': { type: 'string' }, child: { type: 'string' } } });
  const updates = Number(values.updates);
  if (values.child) {
    console.log(JSON.stringify(await child(values.child, updates)));
    return;
  }
  const builds = [{ label: 'this', dist: thisDist }, ...(values['baseline-dist'] ? [{ label: 'base', dist: values['baseline-dist'] }] : [])];
  const results = new Map<string, Result[]>(builds.map((b) => [b.label, []]));
  const loadBefore = loadavg().map((l) => l.toFixed(1)).join(' ');
  for (let r = 0; r < Number(values.rounds); r++) {
    // Alternating which build goes first, so drift in the machine's load is shared.
    for (const b of r % 2 ? [...builds].reverse() : builds) {
      const out = execFileSync(process.execPath, ['--expose-gc', '--trace-gc-nvp', fileURLToPath(import.meta.url), `--child=${b.dist}`, `--updates=${updates}`], { encoding: 'utf8' });
      const lines = out.trim().split('\n');
      const res = JSON.parse(lines.pop()!) as Result;
      const nvp = (line: string, name: string) => Number(new RegExp(` ${name}=(\\d+)`).exec(line)?.[1] ?? 0);
      const scavenges = lines.slice(lines.indexOf(startMark), lines.indexOf(endMark)).filter((l) => / gc=s /.test(l));
      res.survivedPerUpdate = scavenges.reduce((sum, l) => sum + nvp(l, 'new_space_survived'), 0) / updates;
      res.promotedPerUpdate = scavenges.reduce((sum, l) => sum + nvp(l, 'promoted'), 0) / updates;
      results.get(b.label)!.push(res);
      console.error(`round ${r + 1} ${b.label}: ${JSON.stringify(res)}`);
    }
  }
  const med = (rs: Result[], f: (r: Result) => number) => { const v = rs.map(f).sort((a, b) => a - b); return v[v.length >> 1]!; };
  const f1 = (x: number) => x.toFixed(1);
  console.log(`load average before: ${loadBefore}; after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}; ${updates} updates a round, medians of ${values.rounds} rounds`);
  console.log(table(['build', 'CPU per update', 'scavenges: kept per update (survived + promoted)', 'scavenges', 'scavenges: total / longest', 'full GCs', 'full GCs: total / longest', 'heap after a full GC',
    'replay of the ring (events)', 'the same, label selector', 'replay of 16 events'], builds.map((b) => {
    const rs = results.get(b.label)!;
    const kb = (f: (r: Result) => number) => `${f1(med(rs, f) / 1024)} KB`;
    return [b.label, `${Math.round(med(rs, (r) => r.cpuUsPerUpdate))} µs`, `${kb((r) => r.survivedPerUpdate! + r.promotedPerUpdate!)} (${kb((r) => r.survivedPerUpdate!)} + ${kb((r) => r.promotedPerUpdate!)})`, String(med(rs, (r) => r.scavenges)),
      `${f1(med(rs, (r) => r.scavengeMs))} / ${f1(med(rs, (r) => r.longestScavengeMs))} ms`, String(med(rs, (r) => r.fulls)),
      `${f1(med(rs, (r) => r.fullMs))} / ${f1(med(rs, (r) => r.longestFullMs))} ms`, `${f1(med(rs, (r) => r.heapMiB))} MiB`,
      `${f1(med(rs, (r) => r.replayAllMs))} ms (${med(rs, (r) => r.replayedEvents)})`, `${f1(med(rs, (r) => r.replaySelectedMs))} ms`, `${f1(med(rs, (r) => r.replayRecentMs))} ms`];
  })));
}

await main();
