/**
 * The heap an isolate kept after its last full (mark-compact) collection: the closest a running
 * process gets to its live heap without forcing a collection. V8 reports every collection to a
 * `gc` PerformanceObserver; only the full ones are read here. Each isolate (the serving thread,
 * the control loops' thread) watches its own.
 */
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';

export interface FullCollectionWatch {
  /** Heap used just after the last full collection, bytes; undefined before the first. */
  lastUsedBytes(): number | undefined;
  close(): void;
}

/** Calls `onFull` with the heap used after each full collection of the calling thread's isolate. */
export function watchFullCollections(onFull: (usedBytes: number) => void = () => undefined): FullCollectionWatch {
  let last: number | undefined;
  const observer = new PerformanceObserver((list) => {
    const full = list.getEntries().some((e) => (e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR);
    if (!full) return;
    // Read when the entries arrive (after the collection, on the next turn of the loop): what the
    // loop allocated since is counted too, so this is a little over the live heap, never under it.
    last = getHeapStatistics().used_heap_size;
    onFull(last);
  });
  observer.observe({ entryTypes: ['gc'] });
  return { lastUsedBytes: () => last, close: () => observer.disconnect() };
}
