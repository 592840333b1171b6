/**
 * Usage of the process runtime's containers. They have no cgroup of their
 * own, so a container is its process group (the recorded pid leads it): CPU
 * is the utime + stime of the group's live processes, memory their resident
 * set (VmRSS), reported as the working set. Time used by children that
 * already exited is not counted, so a container's CPU total can drop; the
 * sampler then starts over.
 */
import type { RuntimeContainerStats } from '../runtime.js';
import { readProcessGroupsUsage } from '../../stats/procfs.js';

export interface RunningProcess { podUID: string; name: string; pid: number }

export function processContainerStats(running: RunningProcess[], now: () => Date): RuntimeContainerStats[] {
  const usage = readProcessGroupsUsage(new Set(running.map((r) => r.pid)));
  const out: RuntimeContainerStats[] = [];
  for (const r of running) {
    const u = usage.get(r.pid);
    if (!u) continue;
    out.push({ podUID: r.podUID, name: r.name, timestamp: now(), usageCoreNanoSeconds: u.cpuNanoSeconds, workingSetBytes: u.rssBytes, rssBytes: u.rssBytes });
  }
  return out;
}
