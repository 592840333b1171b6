/**
 * One isolate's V8 heap as the memory report (heap-report.ts) shows it: the totals, and each
 * space's committed size, because idle RSS depends on which space holds the memory (a new space
 * grown under a start-up burst stays committed until a GC shrinks it; the old space does not).
 */
import { getHeapSpaceStatistics, getHeapStatistics, type HeapInfo, type HeapSpaceInfo } from 'node:v8';
import type { FullCollectionWatch } from './full-collections.js';

export interface IsolateHeap {
  stats: HeapInfo; spaces: HeapSpaceInfo[];
  /** Heap used after the last full collection (about the live heap: what the garbage is measured against). */
  usedAfterFullGc?: number;
}

/** The calling thread's isolate; with `fullGcs`, the heap its last full collection kept. */
export function isolateHeap(fullGcs?: FullCollectionWatch): IsolateHeap {
  return { stats: getHeapStatistics(), spaces: getHeapSpaceStatistics(), usedAfterFullGc: fullGcs?.lastUsedBytes() };
}
