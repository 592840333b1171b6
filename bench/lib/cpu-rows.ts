/** The table rows of benchmarks that measure a thread's and a process's CPU per operation, per cell, over interleaved rounds. */
import { median } from './stats.js';

/** One round of one cell: CPU of the calling (main) thread and of the whole process per operation, in µs, and the rate. */
export interface CpuSample { mainUs: number; processUs: number; perSec: number }

/**
 * One row per cell (keyed "target\tlevel"): target, level, then for each of `order` its median
 * (the first in bold) and its rounds, then the median rate; figures with `digits` decimals.
 */
export function cpuRows(samples: Map<string, CpuSample[]>, order: readonly ['mainUs', 'processUs'] | readonly ['processUs', 'mainUs'], digits: number): string[][] {
  return [...samples].map(([key, s]) => {
    const [name, level] = key.split('\t');
    const [first, second] = order.map((f) => [median(s.map((x) => x[f])).toFixed(digits), s.map((x) => x[f].toFixed(digits)).join(', ')]);
    return [name, level, `**${first[0]} µs**`, first[1], `${second[0]} µs`, second[1], median(s.map((x) => x.perSec)).toFixed(0)];
  });
}
