/**
 * V8's platform threads (docs/threads.md, "Priorities"): the helpers that run
 * every isolate's parallel scavenges, concurrent marking and sweeping and
 * background compiles. One set serves the whole process, so while the heavy
 * lane's worker (at the background nice) builds a heap of a million objects,
 * its garbage collection ran on these threads at the serving thread's
 * priority, and a bystander's GET waited for them (hardening issue, 3a and 3c).
 *
 * Node 20 starts them before any JavaScript runs, right after the main
 * thread: first its delayed-task scheduler, then `--v8-pool-size` workers
 * (4 by default), and names them all `node` (libuv's thread pool, started
 * later on first use, too). So they are told apart by their order of birth:
 * the first 1 + pool-size threads after the main thread, sorted by start
 * time and then thread id (ids grow within a start-time tick). When that
 * cannot be read, none is named and nothing changes.
 */
import { readFileSync, readdirSync } from 'node:fs';

export interface TaskBirth { tid: number; /** Field 22 of /proc/<pid>/task/<tid>/stat: start time in clock ticks. */ born: number }

/** Node 20's default `--v8-pool-size`. */
const defaultPoolSize = 4;

/** The pool size node was started with: its own `--v8-pool-size` (or NODE_OPTIONS'), else Node's default; undefined when 0 (node picks one). */
export function platformPoolSize(nodeOptions: readonly string[] = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]): number | undefined {
  let size = defaultPoolSize;
  for (let i = 0; i < nodeOptions.length; i++) {
    const o = nodeOptions[i]!;
    const m = /^--v8[-_]pool[-_]size(?:=(\d+))?$/.exec(o);
    if (m) size = Number(m[1] ?? nodeOptions[++i]);
  }
  return Number.isInteger(size) && size > 0 ? size : undefined;
}

/**
 * The platform threads among `tasks` (the process's threads, main thread `pid`): the delayed-task
 * scheduler and the `poolSize` workers, the first born after the main thread.
 */
export function platformThreadIds(pid: number, tasks: readonly TaskBirth[], poolSize: number): number[] {
  const others = tasks.filter((t) => t.tid !== pid).sort((a, b) => a.born - b.born || a.tid - b.tid);
  return others.length >= poolSize + 1 ? others.slice(0, poolSize + 1).map((t) => t.tid) : [];
}

/** This process's threads and their start times, as the kernel reports them. */
export function ownTasks(): TaskBirth[] {
  const out: TaskBirth[] = [];
  for (const t of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
      out.push({ tid: Number(t), born: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[22 - 3]) });
    } catch { /* ended meanwhile */ }
  }
  return out;
}
