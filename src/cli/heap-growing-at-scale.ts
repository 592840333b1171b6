/**
 * V8's heap growing factor, tightened once the server's heap is large (a cluster of thousands of
 * nodes or tens of thousands of pods) and given back to V8 when it is small again.
 *
 * V8's own factor lets the old generation grow to up to four times the live heap before the next
 * full collection. At 5,000 nodes most of the serving heap was that garbage, and fixing the factor
 * at 1.5 (`--heap-growing-percent=50`, Go's GOGC=50) cut peak RSS by about a third
 * (bench/RESULTS.md, `memory3`); fixed for every cluster it cost a quick start's pod create 8-28%
 * more server CPU (`session-2026-12-04`). So the factor follows the heap: after each full
 * collection of the serving thread, a live heap over `thresholdMiB` sets it, one under half of
 * that clears it (the gap keeps a heap near the line from switching at every collection).
 * V8's flags are the process's: the control loops' thread, whose informers grow with the same
 * cluster, follows too. V8 reads the flag at each collection's new limit, so it applies from the
 * next one. Left alone when the operator chose: K8TS_HEAP_GROWING_PERCENT or node's own
 * --heap-growing-percent (v8-flags.ts).
 */
import { PerformanceObserver, constants, type PerformanceEntry } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import type { Logger } from '../util/log.js';
import { suggestedHeapGrowingPercent } from './v8-flags.js';

export interface HeapGrowingAtScaleOptions {
  /** Live heap (used right after a full collection), MiB, from which the factor is tightened. */
  thresholdMiB?: number;
  percent?: number;
  /** The used heap now, bytes (tests give their own). */
  usedBytes?: () => number;
  setFlags?: (flags: string) => void;
}

/** 96 MiB: a 5,000-node cluster with ~5,000 pods; a quick start's serving heap is ~20 MiB. */
export const heapGrowingThresholdMiB = 96;

/** The switch itself, fed the used heap after each full collection; answers whether the factor is now tightened. */
export class HeapGrowingSwitch {
  private tight = false;

  constructor(private readonly logger: Logger, private readonly o: Required<Pick<HeapGrowingAtScaleOptions, 'thresholdMiB' | 'percent' | 'setFlags'>>) {}

  afterFullCollection(usedBytes: number): boolean {
    const usedMiB = usedBytes / 2 ** 20;
    if (!this.tight && usedMiB > this.o.thresholdMiB) {
      this.o.setFlags(`--heap-growing-percent=${this.o.percent}`);
      this.tight = true;
      this.logger.info('heap growing factor tightened', { liveMiB: Math.round(usedMiB), percent: this.o.percent });
    } else if (this.tight && usedMiB < this.o.thresholdMiB / 2) {
      // 0: V8's own factor again.
      this.o.setFlags('--heap-growing-percent=0');
      this.tight = false;
      this.logger.info('heap growing factor back to V8\'s own', { liveMiB: Math.round(usedMiB) });
    }
    return this.tight;
  }
}

/** Starts following the serving thread's full collections; returns the function that stops. */
export function tightenHeapGrowingAtScale(logger: Logger, opts: HeapGrowingAtScaleOptions = {}): () => void {
  const used = opts.usedBytes ?? (() => getHeapStatistics().used_heap_size);
  const sw = new HeapGrowingSwitch(logger, {
    thresholdMiB: opts.thresholdMiB ?? heapGrowingThresholdMiB, percent: opts.percent ?? suggestedHeapGrowingPercent, setFlags: opts.setFlags ?? setFlagsFromString,
  });
  const observer = new PerformanceObserver((list) => {
    const major = list.getEntries().some((e) => (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR);
    if (major) sw.afterFullCollection(used());
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}
