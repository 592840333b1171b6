/**
 * A thread's own CPU time, read by another thread of the process (Linux
 * only): the heavy lane's budget counts the work a job did, not the time it
 * waited for a CPU (docs/threads.md, "As built"). Node 20 has no
 * `process.threadCpuUsage` (it came in 23, and then for the calling thread
 * only), so the kernel's per-task schedstat is read: its first field is the
 * task's time on a CPU in nanoseconds, one small procfs read (~10 µs).
 */
import { readFileSync, readlinkSync } from 'node:fs';

/** The calling thread's kernel id (its `/proc/thread-self` is `<pid>/task/<tid>`), or undefined off Linux. */
export function thisThreadId(): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const tid = Number(/^\d+\/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'))?.[1]);
    return tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** Milliseconds the thread `tid` of this process has run on a CPU, or undefined when it cannot be read (it ended). */
export function threadCpuMs(tid: number): number | undefined {
  try {
    const ns = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'latin1').split(' ', 1)[0]);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}
