/**
 * The simulated runtime's resource usage, for the kubelet's summary
 * (GET /stats/summary, /metrics/resource) and so metrics.k8s.io, `kubectl
 * top` and the HorizontalPodAutoscaler (usage-model.ts, usage-profiles.ts):
 *
 *  1. The running container instances are counted from their start; an
 *     instance that no longer runs leaves the model when the runtime is
 *     next read (its CPU stays in the node's).
 *  2. containerStats answers each running instance's cumulative CPU and
 *     working set (the kubelet's sampler makes rates of them), as a CRI
 *     runtime's ListContainerStats does.
 *  3. A request a container's responder answers (listeners.ts, reached by
 *     port-forward, pods/proxy, a node port or another pod's wget) costs
 *     its image's CPU per request, and the answer waits until the model
 *     has run it (throttled by the CPU limit, shared on the node's cores).
 *  4. The node: the sum of its containers and a system baseline, against
 *     its capacity (cpu and memory as the node reports them).
 */
import type { Container } from 'kubernetes-types/core/v1.js';
import { integerValue, milliValue, parseQuantity } from '../../../api/quantity.js';
import type { RuntimeContainerStats } from '../runtime.js';
import type { Timers } from '../../timers.js';
import { SimulatedNodeUsage } from './usage-model.js';
import { containerUsageSpec, usageProfile } from './usage-profiles.js';

/** A container instance that runs now. */
export interface RunningContainer { podUID: string; id: string; spec: Container; startedAt: Date }

export interface SimulatedUsageOptions {
  /** The node's CPU capacity (a quantity; default 4, the simulated node's). */
  cpu?: string;
  /** The node's memory capacity (default 8Gi). */
  memory?: string;
}

const cores = (q: string) => { const p = parseQuantity(q); return p ? Number(milliValue(p)) / 1000 : 4; };
const bytes = (q: string) => { const p = parseQuantity(q); return p ? Number(integerValue(p)) : 8 * 1024 ** 3; };

export class SimulatedRuntimeUsage {
  readonly model: SimulatedNodeUsage;

  constructor(o: SimulatedUsageOptions, private readonly timers: Timers) {
    this.model = new SimulatedNodeUsage({ cores: cores(o.cpu ?? '4'), memoryBytes: bytes(o.memory ?? '8Gi'), timers });
  }

  private sync(running: readonly RunningContainer[]): void {
    const live = new Set(running.map((c) => c.id));
    for (const key of this.model.keys()) if (!live.has(key)) this.model.remove(key);
    for (const c of running) this.model.ensure(c.id, containerUsageSpec(c.spec), c.startedAt.getTime());
  }

  /** Rule 2. */
  stats(running: readonly RunningContainer[]): RuntimeContainerStats[] {
    this.sync(running);
    const timestamp = this.timers.now();
    return running.flatMap((c) => {
      const u = this.model.containerUsage(c.id);
      return u ? [{ podUID: c.podUID, name: c.spec.name, timestamp, usageCoreNanoSeconds: u.cpuNanoSeconds, workingSetBytes: u.workingSetBytes, usageBytes: u.workingSetBytes, rssBytes: u.workingSetBytes }] : [];
    });
  }

  /** Rule 3: resolves when the container has done the request's work. */
  serve(c: RunningContainer): Promise<void> {
    this.model.ensure(c.id, containerUsageSpec(c.spec), c.startedAt.getTime());
    return this.model.serve(c.id, usageProfile(String(c.spec.image ?? '')).requestCpuMs);
  }

  /** Rule 4. */
  nodeUsage() { return this.model.nodeUsage(); }

  close(): void { this.model.close(); }
}
