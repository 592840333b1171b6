/**
 * One isolate's V8 heap as the memory report (heap-report.ts) shows it: the totals, and each
 * space's committed size, because idle RSS depends on which space holds the memory (a new space
 * grown under a start-up burst stays committed until a GC shrinks it; the old space does not).
 */
import { getHeapSpaceStatistics, getHeapStatistics, type HeapInfo, type HeapSpaceInfo } from 'node:v8';

export interface IsolateHeap { stats: HeapInfo; spaces: HeapSpaceInfo[] }

/** The calling thread's isolate. */
export function isolateHeap(): IsolateHeap {
  return { stats: getHeapStatistics(), spaces: getHeapSpaceStatistics() };
}
