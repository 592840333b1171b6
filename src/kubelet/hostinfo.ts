/**
 * What a real node reports about its machine (upstream: cadvisor's machine
 * info behind the kubelet's capacity, nodeInfo and allocatable setters):
 *
 *  - capacity: cpu = logical CPUs, memory = total RAM in Ki,
 *    ephemeral-storage = size of the filesystem holding the kubelet's root
 *    directory in Ki, pods = --max-pods;
 *  - allocatable: capacity minus the default hard eviction thresholds
 *    (memory.available<100Mi, nodefs.available<10%), with no kube/system
 *    reservations (upstream's defaults);
 *  - nodeInfo: osImage = PRETTY_NAME of /etc/os-release, kernelVersion = uname -r.
 */
import { availableParallelism, release, totalmem } from 'node:os';
import { readFileSync, statfsSync } from 'node:fs';

export interface HostInfo {
  capacity: { cpu: string; memory: string; 'ephemeral-storage': string };
  allocatable: { memory: string; 'ephemeral-storage': string };
  osImage: string;
  kernelVersion: string;
}

const Ki = 1024;
const evictionMemoryBytes = 100 * Ki * Ki;

/** PRETTY_NAME from an os-release file's text ('Linux' when absent). */
export function prettyName(osRelease: string): string {
  const m = /^PRETTY_NAME=(.*)$/m.exec(osRelease);
  if (!m) return 'Linux';
  return m[1].trim().replace(/^(["'])(.*)\1$/, '$2');
}

function readOSRelease(): string {
  for (const f of ['/etc/os-release', '/usr/lib/os-release']) {
    try { return readFileSync(f, 'utf8'); } catch { /* next */ }
  }
  return '';
}

export function hostInfo(rootDir: string): HostInfo {
  const memory = totalmem();
  let disk = 0;
  try {
    const st = statfsSync(rootDir);
    disk = st.blocks * st.bsize;
  } catch { /* the root dir may not exist yet: report 0 */ }
  return {
    capacity: { cpu: String(availableParallelism()), memory: `${Math.floor(memory / Ki)}Ki`, 'ephemeral-storage': `${Math.floor(disk / Ki)}Ki` },
    allocatable: { memory: `${Math.floor(Math.max(0, memory - evictionMemoryBytes) / Ki)}Ki`, 'ephemeral-storage': String(Math.floor(disk * 0.9)) },
    osImage: prettyName(readOSRelease()),
    kernelVersion: release(),
  };
}
