/**
 * Memory by isolate, on demand: SIGUSR2 makes the process log one `memory by isolate` line
 * with its RSS, the serving thread's V8 heap (and the external and ArrayBuffer memory outside
 * it) and the control loops' thread's heap. RSS alone cannot say which isolate holds what;
 * bench/memory.ts sends the signal to read it at scale (Node's own --heapsnapshot-signal
 * covers the main thread only, and a snapshot of a GiB heap costs as much again).
 */
import { getHeapStatistics, type HeapInfo } from 'node:v8';
import type { Logger } from '../util/log.js';

export interface HeapSource { heapStatistics(): Promise<HeapInfo | undefined> }

const mib = (b: number) => Math.round(b / 2 ** 20);

const heapFields = (h: HeapInfo) => ({
  usedMiB: mib(h.used_heap_size), totalMiB: mib(h.total_heap_size), externalMiB: mib(h.external_memory), limitMiB: mib(h.heap_size_limit),
});

/** Logs the report on every SIGUSR2 until the returned function removes the handler. */
export function reportMemoryOnSignal(logger: Logger, controlLoops?: HeapSource): () => void {
  const onSignal = () => {
    void (async () => {
      const mem = process.memoryUsage();
      const loops = await controlLoops?.heapStatistics().catch(() => undefined);
      logger.info('memory by isolate', {
        rssMiB: mib(mem.rss), externalMiB: mib(mem.external), arrayBuffersMiB: mib(mem.arrayBuffers),
        main: heapFields(getHeapStatistics()), controlLoops: loops ? heapFields(loops) : undefined,
      });
    })();
  };
  process.on('SIGUSR2', onSignal);
  return () => { process.off('SIGUSR2', onSignal); };
}
