/**
 * Names the calling thread (Linux: /proc/thread-self/comm, at most 15 bytes), as `top -H`,
 * `ps -L`, `perf script --comm` and /proc/<pid>/task/<tid>/comm show it: the server's threads
 * told apart by what they do (k8ts-heavy, k8ts-etcd) instead of all being "node". A name only
 * helps people and tools; where it cannot be written nothing else changes.
 */
import { writeFileSync } from 'node:fs';

export function nameThisThread(name: string): void {
  try { writeFileSync('/proc/thread-self/comm', name.slice(0, 15)); } catch { /* a name only helps people */ }
}
