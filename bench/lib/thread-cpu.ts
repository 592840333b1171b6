/**
 * The calling thread's own CPU time, for in-process benchmarks that split work between threads
 * (create-offload.ts, front-thread.ts): Node 20 has no process.threadCpuUsage, so it is read from
 * the first field of /proc/thread-self/schedstat (ns on a CPU). Linux only.
 */
import { readFileSync } from 'node:fs';
import { median } from './stats.js';

export const threadCpuNs = (): number => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);

/** A table cell: the median in bold, then every round's figure. */
export const roundsCell = (xs: readonly number[]): string => `**${median(xs).toFixed(1)}** (${xs.map((x) => x.toFixed(1)).join(', ')})`;
