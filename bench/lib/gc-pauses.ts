/**
 * The serving thread's garbage-collection pauses, for the benchmarks (bench/bystander.ts
 * `--gc-log`, bench/v8-threads-cost.ts). Preloaded into a server with `--import` (gcLogNodeArgs):
 * when K8TS_BENCH_GC_LOG names a file, every GC of the main isolate observed by a
 * PerformanceObserver is appended to it as `<epoch ms at its start> <kind> <duration ms>`, in
 * batches every 250 ms. A scavenge stops the loop for its whole duration, and a GET that arrives
 * meanwhile waits for it, so these pauses are one thing a bystander can wait for that is not a task
 * of ours. The observer costs a callback per GC, nothing per request.
 *
 * With K8TS_BENCH_LOOP_STALLS=1 too, a 1 ms timer logs each time the loop came back to it more
 * than 2 ms late, as `<epoch ms> stall <ms late> <ms of it on a CPU> <monotonic µs>` (kind `stall`): the loop was
 * running something else or collecting garbage (on a CPU), or waiting for a CPU (the rest; from
 * /proc/thread-self/schedstat, read at each tick). It costs a thousand timer callbacks a second,
 * and their reads allocate on the serving isolate: with it on, a 3c row had 3 full collections of
 * that isolate, none in the same rows of two runs without it (atk3, load 14 to 21), so its GC
 * figures describe the logger's own garbage too; read GC pauses from a run without it.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { PerformanceObserver, constants, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';

export interface GcPause { at: number; kind: 'minor' | 'major' | 'incremental' | 'weakcb' | 'stall'; ms: number; /** A stall's time on a CPU (ms): the rest the loop waited for one. */ cpuMs?: number }

const kinds: Record<number, GcPause['kind']> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor', [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

/** Node flags that preload this module into a server (its log file goes in the server's env). */
export const gcLogNodeArgs = (): string[] => [`--import=${fileURLToPath(import.meta.url)}`];

/** The pauses logged in `file` that started within [from, to) (epoch ms). */
export function readGcPauses(file: string, from = -Infinity, to = Infinity): GcPause[] {
  let text = '';
  try { text = readFileSync(file, 'utf8'); } catch { return []; }
  return text.split('\n').flatMap((line) => {
    const [at, kind, ms, cpuMs] = line.split(' ');
    const t = Number(at);
    return line && t >= from && t < to ? [{ at: t, kind: kind as GcPause['kind'], ms: Number(ms), ...(cpuMs ? { cpuMs: Number(cpuMs) } : {}) }] : [];
  });
}

const file = process.env.K8TS_BENCH_GC_LOG;
// Workers inherit node's --import (their execArgv): only the serving thread's isolate is logged.
if (file && isMainThread) {
  let lines: string[] = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = kinds[((e as unknown as { detail?: { kind?: number } }).detail)?.kind ?? -1] ?? 'weakcb';
      lines.push(`${(performance.timeOrigin + e.startTime).toFixed(1)} ${kind} ${e.duration.toFixed(2)}\n`);
    }
  }).observe({ entryTypes: ['gc'] });
  const flush = () => { if (lines.length) { appendFileSync(file, lines.join('')); lines = []; } };
  setInterval(flush, 250).unref();
  if (process.env.K8TS_BENCH_LOOP_STALLS === '1') {
    const monoOrigin = Number(process.hrtime.bigint() / 1000n) / 1000 - performance.now();
    const onCpu = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
    let last = performance.now();
    let lastCpu = onCpu();
    setInterval(() => {
      const now = performance.now();
      const cpu = onCpu();
      // Last, the stall's start on the monotonic clock in µs, as a --cpu-prof profile's (bench/lib/cpuprofile.ts --from-us).
      if (now - last > 3) lines.push(`${(performance.timeOrigin + last + 1).toFixed(1)} stall ${(now - last - 1).toFixed(2)} ${(cpu - lastCpu).toFixed(2)} ${Math.round((monoOrigin + last + 1) * 1000)}\n`);
      last = now;
      lastCpu = cpu;
    }, 1).unref();
  }
  process.on('exit', flush);
}
