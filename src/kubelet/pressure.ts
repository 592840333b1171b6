/**
 * Node pressure from measurements, as the kubelet's eviction manager decides
 * it (pkg/kubelet/eviction: thresholdsMet, nodeConditions,
 * thresholdsUpdatedStats; defaults from pkg/kubelet/eviction/defaults_linux.go), v1.32:
 *
 *  1. The default hard eviction thresholds: memory.available < 100Mi,
 *     nodefs.available < 10%, nodefs.inodesFree < 5%, imagefs.available < 15%,
 *     imagefs.inodesFree < 5%. A percentage is of the signal's capacity.
 *  2. A threshold is met when the observed value is below it; a signal that
 *     was not observed meets nothing.
 *  3. memory.* signals mean MemoryPressure; nodefs.* and imagefs.* mean
 *     DiskPressure.
 *  4. A condition stays True for the pressure transition period (5 min)
 *     after its threshold was last met, so the node does not flap.
 *
 * Eviction itself is not done: k8ts only reports the conditions.
 */

export type EvictionSignal = 'memory.available' | 'nodefs.available' | 'nodefs.inodesFree' | 'imagefs.available' | 'imagefs.inodesFree';

export interface EvictionThreshold {
  signal: EvictionSignal;
  /** An absolute amount (bytes or inodes) ... */
  quantity?: number;
  /** ... or a fraction of the capacity (0.1 = 10%). */
  percentage?: number;
}

export interface FsMeasurement {
  availableBytes: number;
  capacityBytes: number;
  inodesFree?: number;
  inodes?: number;
}

/** What the node measured (host.ts reads /proc/meminfo and statfs). */
export interface NodeMeasurements {
  memoryAvailableBytes?: number;
  memoryCapacityBytes?: number;
  nodefs?: FsMeasurement;
  /** The runtime's image filesystem; the same as nodefs when it has no disk of its own. */
  imagefs?: FsMeasurement;
}

export interface NodePressure { memory: boolean; disk: boolean }

const Mi = 1024 * 1024;
export const defaultHardEvictionThresholds: EvictionThreshold[] = [
  { signal: 'memory.available', quantity: 100 * Mi },
  { signal: 'nodefs.available', percentage: 0.1 },
  { signal: 'nodefs.inodesFree', percentage: 0.05 },
  { signal: 'imagefs.available', percentage: 0.15 },
  { signal: 'imagefs.inodesFree', percentage: 0.05 },
];
/** --eviction-pressure-transition-period default. */
export const pressureTransitionPeriodMs = 5 * 60_000;

/** The signal's observed value and capacity, or undefined when it was not measured. */
function observe(m: NodeMeasurements, signal: EvictionSignal): { value: number; capacity: number } | undefined {
  const [source, kind] = signal.split('.') as ['memory' | 'nodefs' | 'imagefs', 'available' | 'inodesFree'];
  if (source === 'memory') {
    return m.memoryAvailableBytes === undefined ? undefined : { value: m.memoryAvailableBytes, capacity: m.memoryCapacityBytes ?? 0 };
  }
  const fs = m[source];
  if (!fs) return undefined;
  if (kind === 'available') return { value: fs.availableBytes, capacity: fs.capacityBytes };
  return fs.inodesFree === undefined || !fs.inodes ? undefined : { value: fs.inodesFree, capacity: fs.inodes };
}

/** thresholdsMet: the thresholds whose signal is observed below them. */
export function thresholdsMet(m: NodeMeasurements, thresholds: EvictionThreshold[] = defaultHardEvictionThresholds): EvictionThreshold[] {
  return thresholds.filter((t) => {
    const o = observe(m, t.signal);
    if (!o) return false;
    const limit = t.quantity ?? (t.percentage ?? 0) * o.capacity;
    return o.value < limit;
  });
}

/** nodeConditions: which pressure the met thresholds mean. */
export function pressureOf(met: EvictionThreshold[]): NodePressure {
  return {
    memory: met.some((t) => t.signal.startsWith('memory.')),
    disk: met.some((t) => t.signal.startsWith('nodefs.') || t.signal.startsWith('imagefs.')),
  };
}

/** Keeps each condition for the transition period after its thresholds were last met (rule 4). */
export class PressureTracker {
  private lastMet: { memory?: number; disk?: number } = {};

  constructor(private readonly transitionPeriodMs = pressureTransitionPeriodMs, private readonly thresholds = defaultHardEvictionThresholds) {}

  observe(m: NodeMeasurements, nowMs: number): NodePressure {
    const now = pressureOf(thresholdsMet(m, this.thresholds));
    if (now.memory) this.lastMet.memory = nowMs;
    if (now.disk) this.lastMet.disk = nowMs;
    const held = (t: number | undefined) => t !== undefined && nowMs - t < this.transitionPeriodMs;
    return { memory: held(this.lastMet.memory), disk: held(this.lastMet.disk) };
  }
}
