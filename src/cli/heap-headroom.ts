/**
 * A bound on the garbage V8 keeps between full collections once the server's heap is large.
 *
 * V8 lets an old generation grow to up to four times what the last full collection kept (its
 * heap growing factor, picked from the collector's speed against the program's). At scale that
 * headroom was most of the server's RSS (bench/RESULTS.md `scale6`: 132 MiB of live heaps in
 * 424 MB). Fixing the factor for every cluster (K8TS_HEAP_GROWING_PERCENT) costs small clusters
 * CPU per create they do not need to spend (`session-2026-12-04`), so the factor here follows the
 * live heap, as a headroom budget in MiB rather than a ratio:
 *  1. while V8's largest factor (4) keeps the headroom under the budget (the serving isolate kept
 *     less than a third of it after its last full collection), V8's own factor;
 *  2. past it, 1 + budget / live (the headroom stays about the budget as the heap grows), in
 *     steps of 5% so that the flag (and its log line) changes a few times, not at every collection.
 *     Between a third of the budget and the budget this is a factor of 2-4, not V8's: left to V8,
 *     a heap of just under 128 MiB grew to ~350 MiB before its next full collection, and the pages
 *     that garbage took stay committed (bench/RESULTS.md `mem10`);
 *  3. never under 1 + minPercent/100, so a very large heap is not collected back to back.
 * K8TS_HEAP_HEADROOM_MIB sets the budget (default 128).
 * The flag is the process's, so the control loops' thread follows the same factor.
 */
import { setFlagsFromString } from 'node:v8';
import type { Logger } from '../util/log.js';
import { watchFullCollections, type FullCollectionWatch } from './full-collections.js';

export interface HeapHeadroomOptions {
  budgetMiB: number;
  minPercent: number;
  logger: Logger;
  /** Sets V8's flag; a test passes its own. */
  setFlags?: (flags: string) => void;
}

export const defaultHeapHeadroom = { budgetMiB: 128, minPercent: 25 };

/** V8's largest heap growing factor (heap-controller.cc's kMaxFactor): rule 1's bound. */
const v8MaxFactor = 4;

/** The headroom budget: K8TS_HEAP_HEADROOM_MIB when it is a positive number of MiB, else the default. */
export function headroomBudgetMiB(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.K8TS_HEAP_HEADROOM_MIB?.trim() || Number.NaN);
  return Number.isFinite(n) && n > 0 ? n : defaultHeapHeadroom.budgetMiB;
}

/** The growing percent for a live heap (rules 1-3 above); 0 is V8's own factor. */
export function headroomPercent(liveBytes: number, budgetMiB: number, minPercent: number): number {
  const liveMiB = liveBytes / 2 ** 20;
  if (liveMiB * (v8MaxFactor - 1) <= budgetMiB) return 0;
  return Math.max(minPercent, 5 * Math.floor((20 * budgetMiB) / liveMiB));
}

/** Adjusts V8's heap growing factor after each full collection of the calling isolate. */
export function boundHeapHeadroom(opts: HeapHeadroomOptions): FullCollectionWatch {
  return watchFullCollections(headroomAdjuster(opts));
}

/** The full-collection callback (full-collections.ts) that sets the growing factor for a live heap. */
export function headroomAdjuster(opts: HeapHeadroomOptions): (usedBytes: number) => void {
  const setFlags = opts.setFlags ?? setFlagsFromString;
  let current = 0;
  return (used) => {
    const percent = headroomPercent(used, opts.budgetMiB, opts.minPercent);
    if (percent === current) return;
    // Changes are logged at info level: bench/scale.ts and bench/memory.ts read whether it fired.
    opts.logger.info('heap growing factor', { percent: percent || "V8's own", liveMiB: Math.round(used / 2 ** 20) });
    current = percent;
    setFlags(`--heap-growing-percent=${percent}`);
  };
}
