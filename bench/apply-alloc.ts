/**
 * What one server-side apply allocates on the serving loop, and what the scavenges keep of it
 * (issue 19, attack 4: sixteen concurrent applies of disjoint keys to one ConfigMap). Without a
 * server and in a fresh process per build and round: a Registry on in-memory SQLite with the watch
 * cache (1,024 events, the server's default), one ConfigMap `ssa`, sixteen writers, each applying
 * its own key `k<i>` as manager `m<i>` in a closed loop through the store's GuaranteedUpdate as
 * apiserver/handlers/apply.ts calls it (applyConfiguration on the live object, mutateCopies,
 * resultShared), and the answer rendered as writeObject renders it. Not included: HTTP, TLS, body
 * decoding, authentication.
 *
 * Two children per build and round:
 *  - allocation: a young generation large enough that no GC runs during the measured applies
 *    (checked: a GC during them fails the round), so the heap's growth is what they allocated, a
 *    figure that does not depend on the machine's load;
 *  - scavenges: V8's default heap with --trace-gc-nvp: bytes the scavenges kept (copied within
 *    the young generation or promoted) per apply, the count and length of scavenges and full GCs,
 *    CPU per apply.
 * With --baseline-dist another build's modules run the same rounds, interleaved with this one's.
 * With --alloc-profile FILE (this build, one child) a sampled allocation profile of the measured
 * applies is written for bench/alloc-summary.ts (`--ops` = --applies).
 *
 *   node dist/bench/apply-alloc.js [--applies=4000] [--rounds=3] [--baseline-dist=/tmp/base/dist]
 * Prints a Markdown table (medians over the rounds); results are copied into bench/RESULTS.md by hand.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { Registry as RegistryType } from '../src/registry/registry.js';
import type { ApplyContext } from '../src/api/managedfields/index.js';
import { table } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const thisDist = join(dirname(fileURLToPath(import.meta.url)), '..');
const writers = 16;
const startMark = 'apply-alloc: measured applies start';
const endMark = 'apply-alloc: measured applies end';

interface Result {
  mode: 'alloc' | 'gc';
  applies: number;
  allocatedPerApply?: number; externalPerApply?: number; gcsDuring?: number;
  cpuUsPerApply?: number; survivedPerApply?: number; promotedPerApply?: number;
  scavenges?: number; scavengeMs?: number; longestScavengeMs?: number; fulls?: number; fullMs?: number;
}

const cpuUs = () => { const u = process.cpuUsage(); return u.user + u.system; };

async function child(dist: string, mode: 'alloc' | 'gc', applies: number, ring: number, profile?: string): Promise<Result> {
  const imp = (p: string) => import(pathToFileURL(join(dist, p)).href);
  const { Registry } = await imp('src/registry/registry.js') as { Registry: typeof RegistryType };
  const { openSqliteBackend } = await imp('src/storage/sqlite/index.js');
  const { realClock } = await imp('src/util/clock.js');
  const { silentLogger } = await imp('src/util/log.js');
  const { applyConfiguration } = await imp('src/api/managedfields/index.js') as { applyConfiguration: (live: unknown, config: unknown, ctx: ApplyContext) => any };
  const { renderedJSON } = await imp('src/registry/watch-cache/rendered-json.js') as { renderedJSON: (o: object) => string };
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: silentLogger });
  const registry: RegistryType = new Registry(backend, realClock);
  await registry.startWatchCache({ capacity: ring, logger: silentLogger });
  await registry.namespaces.create(undefined, { metadata: { name: 'default' } });
  const cms = registry.store('', 'v1', 'configmaps')!;
  await cms.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' } } satisfies ConfigMap);
  let n = 0;
  // As handleApply: the body decoded per request, the merge on the live object, resourceVersion last.
  const apply = async (w: number) => {
    const config: ConfigMap = JSON.parse(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { [`k${w}`]: String(1_000_000 + n++) } }));
    const ctx: ApplyContext = { kindKey: 'v1/ConfigMap', apiVersion: 'v1', manager: `m${w}`, force: false, now: new Date(), ignoredFields: [] };
    const updated = await cms.guaranteedUpdate('default', 'ssa', (live: unknown) => {
      const out = applyConfiguration(live, config, ctx);
      const { resourceVersion, ...rest } = out.metadata;
      if (resourceVersion !== undefined) out.metadata = { ...rest, resourceVersion };
      return out;
    }, { mutateCopies: true, resultShared: true });
    return renderedJSON(updated).length;
  };
  const run = async (count: number) => {
    await Promise.all(Array.from({ length: writers }, async (_, w) => { for (let k = w; k < count; k += writers) await apply(w); }));
  };
  await run(4096); // warm: the ring full, the code optimized
  const gcs = { minor: [] as number[], major: [] as number[] };
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
      (kind === constants.NODE_PERFORMANCE_GC_MINOR ? gcs.minor : gcs.major).push(e.duration);
    }
  });
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((r) => setTimeout(r, 50));
  obs.observe({ entryTypes: ['gc'] });
  let session: Session | undefined;
  if (profile) {
    session = new Session();
    session.connect();
    session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  }
  console.log(startMark);
  const mem0 = process.memoryUsage();
  const cpu0 = cpuUs();
  await run(applies);
  const cpu = cpuUs() - cpu0;
  const mem1 = process.memoryUsage();
  console.log(endMark);
  if (session) {
    await new Promise<void>((resolve, reject) => session!.post('HeapProfiler.stopSampling', (err, res) => {
      if (err) reject(err); else { writeFileSync(profile!, JSON.stringify(res.profile)); resolve(); }
    }));
  }
  await new Promise((r) => setTimeout(r, 50));
  obs.disconnect();
  registry.closeWatchCache();
  await backend.close();
  const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
  if (mode === 'alloc') {
    return { mode, applies, allocatedPerApply: (mem1.heapUsed - mem0.heapUsed) / applies, externalPerApply: (mem1.external - mem0.external) / applies, gcsDuring: gcs.minor.length + gcs.major.length };
  }
  return {
    mode, applies, cpuUsPerApply: cpu / applies,
    scavenges: gcs.minor.length, scavengeMs: sum(gcs.minor), longestScavengeMs: Math.max(0, ...gcs.minor), fulls: gcs.major.length, fullMs: sum(gcs.major),
  };
}

function runChild(dist: string, mode: 'alloc' | 'gc', applies: number, ring: number, tries = 3): Result {
  // 512 MiB semi-spaces: the measured applies fit in the young generation, no scavenge runs.
  const heap = mode === 'alloc' ? ['--min-semi-space-size=512', '--max-semi-space-size=512'] : ['--trace-gc-nvp'];
  const out = execFileSync(process.execPath, ['--expose-gc', ...heap, fileURLToPath(import.meta.url), `--child=${dist}`, `--mode=${mode}`, `--applies=${applies}`, `--ring=${ring}`], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const lines = out.trim().split('\n');
  const res = JSON.parse(lines.pop()!) as Result;
  if (mode === 'alloc' && res.gcsDuring) {
    // A collection V8 started anyway (its memory reducer, a full GC of the old generation): the figure would be wrong.
    if (tries > 1) return runChild(dist, mode, applies, ring, tries - 1);
    throw new Error(`${res.gcsDuring} GCs during the measured applies: the allocation figure would be wrong`);
  }
  if (mode === 'gc') {
    const nvp = (line: string, name: string) => Number(new RegExp(` ${name}=(\\d+)`).exec(line)?.[1] ?? 0);
    const scavenges = lines.slice(lines.indexOf(startMark), lines.indexOf(endMark)).filter((l) => / gc=s /.test(l));
    res.survivedPerApply = scavenges.reduce((s, l) => s + nvp(l, 'new_space_survived'), 0) / applies;
    res.promotedPerApply = scavenges.reduce((s, l) => s + nvp(l, 'promoted'), 0) / applies;
  }
  return res;
}

async function main(): Promise<void> {
  const { values } = benchArgs('What one server-side apply (attack 4) allocates on the loop, and what scavenges keep of it.', { options: {
    applies: { type: 'string', default: '4000', help: 'measured applies per child (after 4,096 to warm up; the allocation child must fit them in its 512 MiB young generation)' },
    rounds: { type: 'string', default: '3' },
    'baseline-dist': { type: 'string', help: "another build's dist directory, run interleaved" },
    'alloc-profile': { type: 'string', help: 'write a sampled allocation profile of this build to FILE and stop' },
    ring: { type: 'string', default: '1024', help: "the watch cache's events per resource" },
    child: { type: 'string' }, mode: { type: 'string', default: 'gc' },
  } });
  const applies = Number(values.applies);
  if (values['alloc-profile'] && !values.child) {
    execFileSync(process.execPath, [fileURLToPath(import.meta.url), `--child=${thisDist}`, `--applies=${applies}`, `--ring=${values.ring}`, `--alloc-profile=${values['alloc-profile']}`], { stdio: 'inherit' });
    return;
  }
  if (values.child) {
    console.log(JSON.stringify(await child(values.child, values.mode as 'alloc' | 'gc', applies, Number(values.ring), values['alloc-profile'])));
    return;
  }
  const builds = [{ label: 'this', dist: thisDist }, ...(values['baseline-dist'] ? [{ label: 'base', dist: values['baseline-dist'] }] : [])];
  const results = new Map<string, { alloc: Result[]; gc: Result[] }>(builds.map((b) => [b.label, { alloc: [], gc: [] }]));
  const loadBefore = loadavg().map((l) => l.toFixed(1)).join(' ');
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const b of r % 2 ? [...builds].reverse() : builds) {
      const rs = results.get(b.label)!;
      rs.alloc.push(runChild(b.dist, 'alloc', applies, Number(values.ring)));
      rs.gc.push(runChild(b.dist, 'gc', applies, Number(values.ring)));
      console.error(`round ${r + 1} ${b.label}: ${JSON.stringify(rs.alloc.at(-1))} ${JSON.stringify(rs.gc.at(-1))}`);
    }
  }
  const med = (rs: Result[], f: (r: Result) => number) => { const v = rs.map(f).sort((a, b) => a - b); return v[v.length >> 1]!; };
  const kb = (x: number) => `${(x / 1024).toFixed(1)} KB`;
  console.log(`load average before: ${loadBefore}; after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}; ${applies} applies a child, medians of ${values.rounds} rounds`);
  console.log(table(['build', 'allocated per apply (heap)', 'each round', 'external per apply', 'scavenges: kept per apply (survived + promoted)', 'scavenges', 'scavenges: total / longest', 'full GCs: count / total', 'CPU per apply'], builds.map((b) => {
    const { alloc, gc } = results.get(b.label)!;
    return [b.label, kb(med(alloc, (r) => r.allocatedPerApply!)), alloc.map((r) => kb(r.allocatedPerApply!)).join(', '), kb(med(alloc, (r) => r.externalPerApply!)),
      `${kb(med(gc, (r) => r.survivedPerApply! + r.promotedPerApply!))} (${kb(med(gc, (r) => r.survivedPerApply!))} + ${kb(med(gc, (r) => r.promotedPerApply!))})`,
      String(med(gc, (r) => r.scavenges!)), `${med(gc, (r) => r.scavengeMs!).toFixed(1)} / ${med(gc, (r) => r.longestScavengeMs!).toFixed(1)} ms`,
      `${med(gc, (r) => r.fulls!)} / ${med(gc, (r) => r.fullMs!).toFixed(1)} ms`, `${Math.round(med(gc, (r) => r.cpuUsPerApply!))} µs`];
  })));
}

await main();
