/**
 * Background threads (docs/threads.md, "Priorities"): a worker thread whose
 * work can wait lowers its own scheduling priority, so that when the cores
 * are short the kernel runs the serving thread first and the worker gets what
 * is left, instead of the two sharing a core evenly while a client waits.
 *
 * Linux only: there nice is a property of each thread, and
 * setpriority(PRIO_PROCESS, tid) changes that one thread. Node's
 * `os.setPriority(id, nice)` passes the id through, so a thread only needs its
 * own id, which /proc/thread-self names (`<pid>/task/<tid>`) without native
 * code. Elsewhere (macOS, Windows) the same call would lower the whole
 * process, so it is not made.
 *
 * A priority is only ever lowered: raising one needs privileges, and a thread
 * already at or below `nice` (a server started under `nice`) is left as it is.
 * When anything fails the thread keeps its priority and says so in one log
 * line; nothing else changes.
 *
 * Threads a thread starts inherit its nice value. libuv's thread pool (the
 * fsync of group commit, gzip) starts on first use: a lowered thread must not
 * be the first to use it, so it does no asynchronous I/O of its own.
 */
import { spawnSync } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';
import type { Logger } from './log.js';
import { ownTasks, platformPoolSize, platformThreadIds } from './platform-threads.js';
import { thisThreadId } from './thread-cpu.js';
import { nameThisThread } from './thread-name.js';

/**
 * The heavy lane's priority: weight 110 against the serving thread's 1,024, so a waking loop
 * preempts the worker and gets about nine tenths of a core they both want. Not 19 (weight 15,
 * about 1.5% of a contended core), measured first: under the same session's sustained load (CI's
 * two e2e files at a time) that left a 200,000-key body's worker near its 60 s budget.
 */
export const backgroundNice = 10;

/**
 * Names the calling thread (`name`, at most 15 bytes: `top -H`, `ps -L`,
 * /proc/<pid>/task/<tid>/comm) and lowers it to `nice`. Returns its thread id,
 * or undefined where its priority stays as it was.
 */
export function lowerThisThread(name: string, logger: Logger, nice = backgroundNice): number | undefined {
  if (process.platform !== 'linux') {
    logger.info('thread keeps its priority', { thread: name, reason: `nice applies to the whole process on ${process.platform}` });
    return undefined;
  }
  try {
    const tid = thisThreadId();
    if (!tid) throw new Error('/proc/thread-self does not name a task');
    const was = getPriority(tid);
    if (was < nice) setPriority(tid, nice);
    // Named once lowered, not before: whoever finds the thread by its name (top -H, a test reading
    // /proc) then sees its priority too, never the moment between.
    nameThisThread(name);
    logger.info('thread runs at a lower priority than the serving thread', { thread: name, tid, nice: Math.max(was, nice) });
    return tid;
  } catch (e) {
    nameThisThread(name);
    logger.info('thread keeps its priority', { thread: name, reason: (e as Error).message });
    return undefined;
  }
}

/**
 * Lowers V8's platform threads (platform-threads.ts) to `nice`, as lowerThisThread does for one
 * thread: only ever lowered, Linux only, one log line either way. Returns the ids lowered.
 */
export function lowerPlatformThreads(logger: Logger, nice = backgroundNice): number[] {
  if (process.platform !== 'linux') return [];
  try {
    const size = platformPoolSize();
    const tids = size === undefined ? [] : platformThreadIds(process.pid, ownTasks(), size);
    if (!tids.length) throw new Error('the platform threads could not be told apart');
    for (const tid of tids) if (getPriority(tid) < nice) setPriority(tid, nice);
    logger.info('V8 platform threads run at a lower priority than the serving thread', { tids: tids.join(','), nice });
    return tids;
  } catch (e) {
    logger.info('V8 platform threads keep their priority', { reason: (e as Error).message });
    return [];
  }
}

/**
 * Opt-in (K8TS_HEAVY_SCHED_IDLE=1): the heavy lane's threads also take Linux's SCHED_IDLE policy.
 * Why nice alone leaves a waking serving thread waiting: the kernel's EEVDF scheduler lets a running
 * thread finish a protected slice (about a millisecond or more) before a waking one of higher
 * weight takes its core, whatever its nice value; only a SCHED_IDLE thread is preempted at once by
 * any other that wakes. On 2 cores with the worker and its collector's helpers on both, each wake-up
 * of the serving thread and of its client can wait one such slice. What it costs: a SCHED_IDLE
 * thread gets a CPU only when nothing else of the same scheduling group (autogroup or cgroup) wants
 * it, as nice 19 would.
 */
export const idlePolicyRequested = (threads: 'worker' | 'platform', env: NodeJS.ProcessEnv = process.env): boolean =>
  env.K8TS_HEAVY_SCHED_IDLE === '1' || env.K8TS_HEAVY_SCHED_IDLE === threads;

/**
 * Gives threads `tids` of this process the SCHED_IDLE policy through util-linux's `chrt` (Node has
 * no sched_setscheduler; lowering a policy needs no privilege). Linux only; one log line either way.
 * Returns the ids changed.
 */
export function idlePolicyFor(tids: readonly number[], logger: Logger, what: string): number[] {
  if (process.platform !== 'linux' || !tids.length) return [];
  const done: number[] = [];
  let reason = '';
  for (const tid of tids) {
    const r = spawnSync('chrt', ['--idle', '--pid', '0', String(tid)], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 5_000 });
    if (r.status === 0) done.push(tid);
    else reason = r.error?.message ?? r.stderr?.toString().trim() ?? `chrt exited ${r.status}`;
  }
  if (done.length) logger.info('threads run at the idle scheduling policy', { threads: what, tids: done.join(',') });
  if (reason) logger.info('threads keep their scheduling policy', { threads: what, reason });
  return done;
}
