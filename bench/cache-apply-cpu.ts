/**
 * The watch cache's apply of a created pod (registry/watch-cache/cache.ts applyNow), in process:
 * the pods' cache (cold pods on, as the server runs it) fed each pod the way a store's create
 * feeds it (expectWrite with the stored value, then the storage event of the create), with no
 * storage and no watcher. The pod is the one side-by-side.ts creates, its create answer as the
 * server gives it (createdPod), renamed per pod. `--batches` batches of `--batch` pods, CPU
 * (process.cpuUsage) per apply over the batches after the first five; medians of the batches,
 * then of the rounds, each build in a fresh child process, builds alternating by round.
 *
 * CACHE_APPLY_MEASURE=heap measures memory instead: V8's heap used plus array buffers per pod
 * (after full GCs, from before the first pod), once every pod is applied (warm) and once the
 * cache's sweep made them all cold, printed as warm bytes*1e6 + cold bytes (one number a child).
 * Run it with `node --expose-gc`: the children inherit the flag through the environment's
 * NODE_OPTIONS, e.g. NODE_OPTIONS=--expose-gc.
 *
 *   node dist/bench/cache-apply-cpu.js [--rounds 5] [--batches 25] [--batch 2000] [--baseline-dist /tmp/base/dist]
 *
 * Prints a Markdown table; results are copied into bench/RESULTS.md by hand.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createdPod } from './lib/pods.js';
import { median } from './lib/stats.js';
import { buildRoundsMain } from './lib/builds-in-children.js';

type Cache = import('../src/registry/watch-cache/cache.js').WatchCache;
/** What the benchmark reads of the cache's insides (both builds have them). */
interface CacheInsides { coldSweep?: { turnedAt: number } }

const prefix = '/registry/core/pods/';

async function child(dist: string, batches: number, batch: number): Promise<number> {
  const load = (p: string) => import(pathToFileURL(join(dist, 'src', ...p.split('/'))).href);
  // Another build's modules, loaded by path: typed as this checkout's.
  const { WatchCache } = await load('registry/watch-cache/cache.js') as typeof import('../src/registry/watch-cache/cache.js');
  const { defaultColdOptions } = await load('registry/watch-cache/cold-sweep.js') as typeof import('../src/registry/watch-cache/cold-sweep.js');
  let revision = 1;
  // The feed as the cache reads it: its revision; nothing is waited for.
  const feed = { get revision() { return revision; }, waitFor: async () => true, unregister: () => {} };
  const source = { decode: (kv: { value: string; modRevision: number }) => { const o = JSON.parse(kv.value); o.metadata.resourceVersion = String(kv.modRevision); return o; }, listAt: async () => ({ kvs: [], more: false }) };
  const cache: Cache = new WatchCache(prefix, source, feed as never, 1024, undefined, { ...defaultColdOptions, tickMs: 3_600_000 });
  cache.restart(revision);
  await cache.whenReady();
  const heap = process.env.CACHE_APPLY_MEASURE === 'heap';
  const used = () => {
    for (let i = 0; i < 4; i++) (globalThis as { gc?: () => void }).gc!();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const base = heap ? used() : 0;
  const perApply: number[] = [];
  for (let b = 0; b < batches; b++) {
    // As the store hands a create over: the answer's object (JSON.parse gives each string its own copy) and its stored text.
    const writes = Array.from({ length: batch }, (_, i) => {
      const obj = JSON.parse(JSON.stringify(createdPod(`p-${b}-${i}`, randomUUID(), Math.random().toString(36).slice(2, 7))));
      delete obj.metadata.resourceVersion;
      return { key: `${prefix}default/p-${b}-${i}`, value: JSON.stringify(obj), obj };
    });
    const t0 = process.cpuUsage();
    for (const w of writes) {
      revision++;
      cache.expectWrite(w.key, w.value, w.obj);
      cache.apply({ type: 'put', created: true, kv: { key: w.key, value: w.value, createRevision: revision, modRevision: revision } });
    }
    const t = process.cpuUsage(t0);
    if (b >= 5) perApply.push((t.user + t.system) / batch);
  }
  if (!heap) { cache.close(); return median(perApply); }
  const pods = batches * batch;
  const warm = (used() - base) / pods;
  const insides = cache as unknown as CacheInsides;
  for (let turn = 0; turn < 2; turn++) { insides.coldSweep!.turnedAt = -Infinity; while (cache.sweepCold(Infinity) > 0); }
  const cold = (used() - base) / pods;
  cache.close();
  return Math.round(warm) * 1e6 + Math.round(cold);
}

await buildRoundsMain({
  script: import.meta.url, description: 'CPU per created pod as the watch cache applies its event (or, with CACHE_APPLY_MEASURE=heap, bytes per pod warm and cold), in a fresh process per build and round.',
  defaults: { rounds: '5', batches: '25', batch: '2000' }, child,
  title: 'cache-apply-cpu', column: 'CPU µs per apply (median)', digits: 1,
});
