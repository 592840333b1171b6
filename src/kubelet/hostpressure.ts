/**
 * The host's measurements behind the pressure conditions of a real node
 * (pressure.ts): memory.available from /proc/meminfo's MemAvailable (upstream
 * reads the root cgroup's working set through cadvisor; MemAvailable is the
 * kernel's own estimate of the same: memory that can be had without
 * swapping), nodefs from statfs of the kubelet's root directory (available =
 * blocks free to unprivileged users, as df shows). The image filesystem is
 * not asked of the runtime: it is taken to be the same disk.
 */
import { readFileSync, statfsSync } from 'node:fs';
import type { FsMeasurement, NodeMeasurements } from './pressure.js';

/** MemTotal and MemAvailable of a /proc/meminfo text, in bytes. */
export function parseMeminfo(text: string): { total?: number; available?: number } {
  const kb = (name: string) => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(text);
    return m ? Number(m[1]) * 1024 : undefined;
  };
  return { total: kb('MemTotal'), available: kb('MemAvailable') };
}

function fsMeasurement(path: string): FsMeasurement | undefined {
  try {
    const st = statfsSync(path);
    return { availableBytes: st.bavail * st.bsize, capacityBytes: st.blocks * st.bsize, inodesFree: st.ffree, inodes: st.files };
  } catch {
    return undefined; // not there yet: no observation
  }
}

export function measureHost(rootDir: string): NodeMeasurements {
  let mem: { total?: number; available?: number } = {};
  try { mem = parseMeminfo(readFileSync('/proc/meminfo', 'utf8')); } catch { /* not Linux: no memory observation */ }
  const nodefs = fsMeasurement(rootDir);
  return { memoryAvailableBytes: mem.available, memoryCapacityBytes: mem.total, nodefs, imagefs: nodefs };
}
