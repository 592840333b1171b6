/**
 * Memory by isolate, on demand: SIGUSR2 makes the process log one `memory by isolate` line
 * with its RSS, the serving thread's V8 heap (and the external and ArrayBuffer memory outside
 * it) and the control loops' thread's heap. RSS alone cannot say which isolate holds what;
 * bench/memory.ts sends the signal to read it at scale (Node's own --heapsnapshot-signal
 * covers the main thread only, and a snapshot of a GiB heap costs as much again).
 *
 * A debugging hook: with K8TS_HEAP_SNAPSHOT_DIR set, each signal also writes a heap snapshot of
 * each isolate there (serving-N.heapsnapshot, control-loops-N.heapsnapshot; summarized by
 * bench/heap-summary.ts) and logs each isolate's heap used before and after the snapshot's
 * full GC, i.e. how much of the heap was garbage not yet collected.
 */
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import type { Logger } from '../util/log.js';
import { isolateHeap, type IsolateHeap } from './isolate-heap.js';
import type { FullCollectionWatch } from './full-collections.js';

export interface HeapSource {
  heapStatistics(): Promise<IsolateHeap | undefined>;
  /** A heap snapshot of the isolate (a full GC first, as every V8 snapshot); undefined while it is not running. */
  heapSnapshot?(): Promise<Readable | undefined>;
}

const mib = (b: number) => Math.round(b / 2 ** 20);

/** MiB with one decimal: an idle isolate's spaces are a few MiB each. */
const mib1 = (b: number) => Math.round(b / 2 ** 20 * 10) / 10;

const heapFields = ({ stats: h, spaces, usedAfterFullGc }: IsolateHeap) => ({
  usedMiB: mib(h.used_heap_size), totalMiB: mib(h.total_heap_size), externalMiB: mib(h.external_memory), limitMiB: mib(h.heap_size_limit),
  usedAfterFullGcMiB: usedAfterFullGc === undefined ? undefined : mib(usedAfterFullGc),
  // Committed by space (new_space, old_space, code_space, large_object_space ...), the empty ones left out.
  spacesMiB: Object.fromEntries(spaces.filter((s) => s.space_size > 0).map((s) => [s.space_name, mib1(s.space_size)])),
});

/** Logs the report on every SIGUSR2 until the returned function removes the handler. */
export function reportMemoryOnSignal(
  logger: Logger, controlLoops?: HeapSource, fullGcs?: FullCollectionWatch, snapshotDir = process.env.K8TS_HEAP_SNAPSHOT_DIR,
): () => void {
  let seq = 0;
  const onSignal = () => {
    void (async () => {
      const mem = process.memoryUsage();
      const loops = await controlLoops?.heapStatistics().catch(() => undefined);
      logger.info('memory by isolate', {
        rssMiB: mib(mem.rss), externalMiB: mib(mem.external), arrayBuffersMiB: mib(mem.arrayBuffers),
        main: heapFields(isolateHeap(fullGcs)), controlLoops: loops ? heapFields(loops) : undefined,
      });
      if (snapshotDir) await writeSnapshots(logger, snapshotDir, ++seq, controlLoops);
    })().catch((err) => logger.error('memory report failed', { err: (err as Error).message }));
  };
  process.on('SIGUSR2', onSignal);
  return () => { process.off('SIGUSR2', onSignal); };
}

async function writeSnapshots(logger: Logger, dir: string, seq: number, controlLoops?: HeapSource): Promise<void> {
  const before = getHeapStatistics().used_heap_size;
  const serving = writeHeapSnapshot(join(dir, `serving-${seq}.heapsnapshot`));
  const after = getHeapStatistics().used_heap_size;
  logger.info('heap snapshot written', { isolate: 'serving', file: serving, usedBeforeMiB: mib(before), usedAfterGcMiB: mib(after) });
  if (!controlLoops?.heapSnapshot) return;
  const loopsBefore = (await controlLoops.heapStatistics())?.stats.used_heap_size ?? 0;
  const stream = await controlLoops.heapSnapshot();
  if (!stream) return;
  const file = join(dir, `control-loops-${seq}.heapsnapshot`);
  await pipeline(stream, createWriteStream(file));
  const loopsAfter = (await controlLoops.heapStatistics())?.stats.used_heap_size ?? 0;
  logger.info('heap snapshot written', { isolate: 'control loops', file, usedBeforeMiB: mib(loopsBefore), usedAfterGcMiB: mib(loopsAfter) });
}
