/**
 * Readings of the machine and of processes from /proc, for the node's stats
 * and the process runtime's containers (upstream takes both from cadvisor,
 * which reads the root cgroup and the containers' cgroups). Parsers are pure
 * so they can be tested on fixed text; readers return undefined when the file
 * is gone (a process that just ended).
 */
import { readFileSync, readdirSync } from 'node:fs';

/** USER_HZ: the unit of /proc's CPU times on every Linux architecture Node runs on. */
const clockTicksPerSecond = 100;
const nsPerTick = 1e9 / clockTicksPerSecond;

/**
 * The busy time of all CPUs from /proc/stat's `cpu` line, in nanoseconds:
 * user + nice + system + irq + softirq + steal (idle and iowait excluded;
 * guest time is already inside user).
 */
export function parseProcStatCPU(text: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return undefined;
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = f;
  return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * nsPerTick;
}

/** /proc/meminfo as bytes by field name (its values are in kB). */
export function parseMeminfo(text: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const line of text.split('\n')) {
    const r = /^([^:]+):\s+(\d+)(?:\s+kB)?$/.exec(line.trim());
    if (r) m.set(r[1], Number(r[2]) * (line.includes('kB') ? 1024 : 1));
  }
  return m;
}

export interface MachineMemory { totalBytes: number; usageBytes: number; workingSetBytes: number; availableBytes: number }

/**
 * The root cgroup's view computed from meminfo: usage is everything not free;
 * the working set leaves out inactive file pages, as cadvisor does
 * (usage - inactive_file); available is what the working set leaves.
 */
export function machineMemory(meminfo: Map<string, number>): MachineMemory | undefined {
  const total = meminfo.get('MemTotal');
  const free = meminfo.get('MemFree');
  if (total === undefined || free === undefined) return undefined;
  const usage = total - free;
  const workingSet = Math.max(0, usage - (meminfo.get('Inactive(file)') ?? 0));
  return { totalBytes: total, usageBytes: usage, workingSetBytes: workingSet, availableBytes: total - workingSet };
}

/** Fields 3.. of /proc/PID/stat (the command name, field 2, may hold spaces and parentheses). */
function statFields(text: string): string[] {
  return text.slice(text.lastIndexOf(')') + 2).trim().split(' ');
}

/** utime + stime of /proc/PID/stat in nanoseconds, and its process group. */
export function parseProcessStat(text: string): { cpuNanoSeconds: number; pgrp: number } {
  const f = statFields(text);
  // Field 3 (state) is f[0]: pgrp is field 5, utime 14, stime 15.
  return { cpuNanoSeconds: (Number(f[11]) + Number(f[12])) * nsPerTick, pgrp: Number(f[2]) };
}

/** VmRSS of /proc/PID/status in bytes (0 for a kernel thread or a zombie). */
export function parseStatusRSS(text: string): number {
  const m = /^VmRSS:\s+(\d+)\s+kB$/m.exec(text);
  return m ? Number(m[1]) * 1024 : 0;
}

const read = (path: string): string | undefined => { try { return readFileSync(path, 'utf8'); } catch { return undefined; } };

export function readMachineCPU(): number | undefined {
  const t = read('/proc/stat');
  return t === undefined ? undefined : parseProcStatCPU(t);
}

export function readMachineMemory(): MachineMemory | undefined {
  const t = read('/proc/meminfo');
  return t === undefined ? undefined : machineMemory(parseMeminfo(t));
}

/**
 * CPU and resident memory of the live processes of each process group in
 * `pgrps` (a process runtime container is its leader's group: `sh -c` and
 * what it forks), from one pass over /proc. A group with no process left is
 * absent from the answer.
 */
export function readProcessGroupsUsage(pgrps: ReadonlySet<number>): Map<number, { cpuNanoSeconds: number; rssBytes: number }> {
  const out = new Map<number, { cpuNanoSeconds: number; rssBytes: number }>();
  if (!pgrps.size) return out;
  let pids: string[];
  try { pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d)); } catch { return out; }
  for (const pid of pids) {
    const stat = read(`/proc/${pid}/stat`);
    if (stat === undefined) continue;
    const s = parseProcessStat(stat);
    if (!pgrps.has(s.pgrp)) continue;
    const u = out.get(s.pgrp) ?? { cpuNanoSeconds: 0, rssBytes: 0 };
    u.cpuNanoSeconds += s.cpuNanoSeconds;
    u.rssBytes += parseStatusRSS(read(`/proc/${pid}/status`) ?? '');
    out.set(s.pgrp, u);
  }
  return out;
}
