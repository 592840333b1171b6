/**
 * The kubelet's resource summary (GET /stats/summary): the node's CPU and
 * memory from /proc, its pods' from the runtime's container stats.
 *
 *  1. A reading is taken every periodMs (cadvisor's housekeeping) and on each
 *     request, so CPU rates exist from the second reading on (sampler.ts).
 *  2. A runtime that measures nothing (simulated without its usage model)
 *     gives no pod entries; the node entry describes the machine only when
 *     there is one to read (`machine`: /proc on a real node, the usage
 *     model's on a simulated one); else the node reports no usage at all.
 *  3. A failed runtime call leaves the pods out of that summary (logged),
 *     never the node.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Logger } from '../../util/log.js';
import type { PodRuntime, RuntimeContainerStats } from '../runtime/runtime.js';
import type { Timers, TimerHandle } from '../timers.js';
import { CPURateSampler } from './sampler.js';
import { podStatsOf } from './podstats.js';
import { readMachineCPU, readMachineMemory, type MachineMemory } from './procfs.js';
import type { NodeStats, Summary } from '../../api/stats-summary.js';

export interface MachineReader {
  cpuNanoSeconds(): number | undefined;
  memory(): MachineMemory | undefined;
}

export const procMachine: MachineReader = { cpuNanoSeconds: readMachineCPU, memory: readMachineMemory };

/** The machine a runtime simulates (the simulated runtime's usage model), or none. */
export function simulatedMachine(runtime: PodRuntime): MachineReader | undefined {
  const usage = runtime.machineUsage?.bind(runtime);
  return usage && { cpuNanoSeconds: () => usage().cpuNanoSeconds, memory: () => usage().memory };
}

export interface SummaryProviderOptions {
  nodeName: string;
  runtime: PodRuntime;
  pods: () => Pod[];
  timers: Timers;
  logger: Logger;
  /** The real machine; absent for a simulated node. */
  machine?: MachineReader;
  periodMs?: number;
}

/** cadvisor's default housekeeping interval; also the window metrics.k8s.io reports. */
export const statsPeriodMs = 10_000;

export class SummaryProvider {
  private readonly sampler = new CPURateSampler();
  private readonly startTime: string;
  private timer?: TimerHandle;
  private closed = false;

  constructor(private readonly opts: SummaryProviderOptions) {
    this.startTime = opts.timers.now().toISOString();
  }

  /** Starts the periodic readings, when there is anything to read. */
  start(): void {
    if (!this.opts.machine && !this.opts.runtime.containerStats) return;
    const tick = () => {
      if (this.closed) return;
      this.summary().catch(() => undefined).finally(() => { if (!this.closed) this.timer = this.opts.timers.setTimeout(tick, this.opts.periodMs ?? statsPeriodMs); });
    };
    tick();
  }

  close(): void {
    this.closed = true;
    if (this.timer) this.opts.timers.clearTimeout(this.timer);
  }

  async summary(): Promise<Summary> {
    const node = this.nodeStats();
    const readings = await this.containerReadings();
    const live = new Set(['node', ...readings.map(containerKey)]);
    this.sampler.retain(live);
    const rateOf = (r: RuntimeContainerStats) => r.usageCoreNanoSeconds === undefined ? undefined : this.sampler.observe(containerKey(r), r.timestamp.getTime(), r.usageCoreNanoSeconds);
    return { node, pods: podStatsOf(this.opts.pods(), readings, rateOf) };
  }

  private nodeStats(): NodeStats {
    const node: NodeStats = { nodeName: this.opts.nodeName, startTime: this.startTime };
    const m = this.opts.machine;
    if (!m) return node;
    const now = this.opts.timers.now();
    const time = now.toISOString();
    const cpu = m.cpuNanoSeconds();
    if (cpu !== undefined) {
      const rate = this.sampler.observe('node', now.getTime(), cpu);
      node.cpu = { time, usageCoreNanoSeconds: cpu, ...(rate !== undefined ? { usageNanoCores: rate } : {}) };
    }
    const mem = m.memory();
    if (mem) node.memory = { time, availableBytes: mem.availableBytes, usageBytes: mem.usageBytes, workingSetBytes: mem.workingSetBytes };
    return node;
  }

  private async containerReadings(): Promise<RuntimeContainerStats[]> {
    if (!this.opts.runtime.containerStats) return [];
    try {
      return await this.opts.runtime.containerStats();
    } catch (e) {
      this.opts.logger.warn('unable to read container stats from the runtime', { err: (e as Error).message });
      return [];
    }
  }
}

const containerKey = (r: RuntimeContainerStats) => `${r.podUID}/${r.name}`;
