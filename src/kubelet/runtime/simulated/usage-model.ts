/**
 * The CPU and memory a simulated node's containers use (the KWOK idea:
 * kwok's ResourceUsage / ClusterResourceUsage give simulated pods usage
 * for metrics-server; here the usage follows the work they are given):
 *
 *  1. A running container uses its image's idle baseline from its start:
 *     a few millicores and a working set (usage-profiles.ts).
 *  2. A request its server answers is work: the image's CPU cost per
 *     request, run by one thread at up to one core (Apache's prefork
 *     child, a Node event loop).
 *  3. CFS bandwidth control, as the kernel enforces a CPU limit: the
 *     container gets at most limit × 100 ms of CPU in each 100 ms period;
 *     once it is used, its threads wait for the next period (throttled).
 *     So the response waits cost / CPU available, and a serial client
 *     (a `while sleep 0.01; do wget ...; done` loop) slows down with it.
 *  4. The node's cores are shared: with more running threads than cores,
 *     each gets cores / threads (no CFS shares: requests weigh nothing).
 *  5. The node uses the sum of its containers plus a system baseline (the
 *     kubelet and the runtime); its cumulative CPU keeps what containers
 *     gone since used, so its counter never goes back.
 *  6. Busy threads (a load generator's spinning workers, stress.ts) always
 *     want a core: they count as that many running threads in rule 4 (at
 *     most the CPU limit's worth, as CFS lets no more run on average) and
 *     use a core each at that share, up to the limit (rule 3 averaged over
 *     its periods: `-cpus 2` under a 1-CPU limit uses 1 core). Requests to
 *     such a container get what the limit leaves.
 *  7. A working set may follow the time since the start (stress's
 *     allocations); the runtime's OOM killer acts where it passes the
 *     memory limit (oom-kill.ts), so it is only capped there.
 * Not modelled: CPU of clients (a container's own wget, exec), memory
 * growing with load, CFS shares.
 */
import type { Timers, TimerHandle } from '../../timers.js';

/** CFS's default cpu.cfs_period_us: 100 ms. */
export const cfsPeriodMs = 100;

/** What a container is given and uses when idle. */
export interface ContainerUsageSpec {
  /** The CPU limit in cores (resources.limits.cpu), absent: no quota. */
  limitCores?: number;
  /** Idle CPU in cores (0.001 = 1m). */
  idleCores: number;
  workingSetBytes: number;
  /** Rule 6: threads that always want a core. */
  busyThreads?: number;
  /** Rule 7: the working set this long after the start (bytes), in place of workingSetBytes. */
  workingSetAt?: (msSinceStart: number) => number;
  /** The memory limit in bytes: a working set is never reported above it. */
  memoryLimitBytes?: number;
}

export interface SimulatedNodeUsageOptions {
  cores: number;
  memoryBytes: number;
  timers: Timers;
  /** The kubelet and runtime's own use (rule 5). */
  system?: { cores: number; workingSetBytes: number };
}

interface Job { remainingMs: number; done: () => void }

interface ContainerState {
  spec: ContainerUsageSpec;
  startedAtMs: number;
  /** CPU-ms of work done (rule 2), beside the idle baseline. */
  workMs: number;
  jobs: Job[];
  /** CPU-ms used in the current CFS period. */
  periodUsedMs: number;
  /** CPU-ms of its busy threads (rule 6). */
  busyMs: number;
}

/** Below this a remaining amount is taken as done (float error). */
const epsilon = 1e-6;

export const defaultSystemUsage = { cores: 0.02, workingSetBytes: 192 * 1024 * 1024 };

export class SimulatedNodeUsage {
  private readonly containers = new Map<string, ContainerState>();
  /** Model time the state was advanced to: ms since `origin` (small numbers keep float steps exact). */
  private t = 0;
  private readonly origin: number;
  /** CPU-ms of containers removed since, kept in the node's counter. */
  private goneMs = 0;
  private timer?: TimerHandle;

  constructor(private readonly o: SimulatedNodeUsageOptions) {
    this.origin = o.timers.now().getTime();
  }

  private get now(): number { return this.o.timers.now().getTime() - this.origin; }
  private get system() { return this.o.system ?? defaultSystemUsage; }

  /** Starts counting a container (rule 1) from `startedAtMs` (epoch ms); a known one keeps its counters. */
  ensure(key: string, spec: ContainerUsageSpec, startedAtMs: number): void {
    if (this.containers.has(key)) return;
    this.advance(this.now);
    this.containers.set(key, { spec, startedAtMs: Math.min(startedAtMs - this.origin, this.t), workMs: 0, jobs: [], periodUsedMs: 0, busyMs: 0 });
  }

  /** A container ended: its requests in flight are let go, its CPU stays in the node's. */
  remove(key: string): void {
    const c = this.containers.get(key);
    if (!c) return;
    this.advance(this.now);
    this.goneMs += this.cpuMs(c);
    this.containers.delete(key);
    for (const j of c.jobs) j.done();
    this.schedule();
  }

  keys(): string[] { return [...this.containers.keys()]; }

  /** Rule 2: `costMs` CPU-ms of work for the container; resolves when it is done. */
  serve(key: string, costMs: number): Promise<void> {
    const c = this.containers.get(key);
    if (!c || costMs <= 0) return Promise.resolve();
    this.advance(this.now);
    return new Promise<void>((resolve) => {
      c.jobs.push({ remainingMs: costMs, done: resolve });
      this.schedule();
    });
  }

  /** The container's cumulative CPU (ns) and working set, now; undefined for one not counted. */
  containerUsage(key: string): { cpuNanoSeconds: number; workingSetBytes: number } | undefined {
    const c = this.containers.get(key);
    if (!c) return undefined;
    this.advance(this.now);
    return { cpuNanoSeconds: Math.round(this.cpuMs(c) * 1e6), workingSetBytes: this.workingSet(c) };
  }

  /** Rule 5: the node's cumulative CPU (ns) and memory. */
  nodeUsage(): { cpuNanoSeconds: number; memory: { totalBytes: number; usageBytes: number; workingSetBytes: number; availableBytes: number } } {
    this.advance(this.now);
    let cpu = this.goneMs + this.system.cores * this.t;
    let ws = this.system.workingSetBytes;
    for (const c of this.containers.values()) { cpu += this.cpuMs(c); ws += this.workingSet(c); }
    ws = Math.min(ws, this.o.memoryBytes);
    return { cpuNanoSeconds: Math.round(cpu * 1e6), memory: { totalBytes: this.o.memoryBytes, usageBytes: ws, workingSetBytes: ws, availableBytes: this.o.memoryBytes - ws } };
  }

  close(): void {
    if (this.timer) this.o.timers.clearTimeout(this.timer);
    this.timer = undefined;
    for (const c of this.containers.values()) for (const j of c.jobs) j.done();
    this.containers.clear();
  }

  private cpuMs(c: ContainerState): number {
    return c.spec.idleCores * Math.max(0, this.t - c.startedAtMs) + c.workMs + c.busyMs;
  }

  /** Rule 7, capped by the memory limit. */
  private workingSet(c: ContainerState): number {
    const ws = c.spec.workingSetAt ? c.spec.workingSetAt(Math.max(0, this.t - c.startedAtMs)) : c.spec.workingSetBytes;
    return c.spec.memoryLimitBytes ? Math.min(ws, c.spec.memoryLimitBytes) : ws;
  }

  /** Rule 6: the cores its busy threads ask for, at most its limit. */
  private busyDemand(c: ContainerState): number {
    const busy = c.spec.busyThreads ?? 0;
    return c.spec.limitCores === undefined ? busy : Math.min(busy, c.spec.limitCores);
  }

  /** The CFS quota its requests may use in a period: the limit's, less what busy threads take. */
  private quotaMs(c: ContainerState): number | undefined {
    return c.spec.limitCores === undefined ? undefined : (c.spec.limitCores - this.busyDemand(c)) * cfsPeriodMs;
  }

  /** Rules 3, 4 and 6: each running thread's speed (cores), and the containers whose requests may run now. */
  private running(): { perThread: number; active: ContainerState[] } {
    const active: ContainerState[] = [];
    let threads = 0;
    for (const c of this.containers.values()) {
      threads += this.busyDemand(c);
      const q = this.quotaMs(c);
      if (!c.jobs.length || (q !== undefined && c.periodUsedMs >= q - epsilon)) continue;
      active.push(c);
      threads += c.jobs.length;
    }
    return { perThread: threads ? Math.min(1, this.o.cores / threads) : 0, active };
  }

  /** Rule 6: busy threads run through `step` ms at the share `perThread`. */
  private runBusy(perThread: number, step: number): void {
    for (const c of this.containers.values()) {
      const demand = this.busyDemand(c);
      if (demand > 0) c.busyMs += demand * perThread * step;
    }
  }

  /** The model time of the next change: a job ending, a quota used up, or the period's end. */
  private nextEvent(): number | undefined {
    const { perThread, active } = this.running();
    const throttled = [...this.containers.values()].some((c) => c.jobs.length && !active.includes(c));
    if (!active.length && !throttled) return undefined;
    let next = (Math.floor(this.t / cfsPeriodMs) + 1) * cfsPeriodMs;
    for (const c of active) {
      for (const j of c.jobs) next = Math.min(next, this.t + j.remainingMs / perThread);
      const q = this.quotaMs(c);
      if (q !== undefined) next = Math.min(next, this.t + (q - c.periodUsedMs) / (perThread * c.jobs.length));
    }
    return next;
  }

  /** Runs the model from its time to `until`, event by event (a late timer catches up). */
  private advance(until: number): void {
    // Each round ends a job, a quota or a period: bounded by the work and the periods in between.
    while (this.t < until) {
      const next = this.nextEvent();
      const periodStart = Math.floor(this.t / cfsPeriodMs);
      if (next === undefined) {
        this.runBusy(this.running().perThread, until - this.t);
        this.t = until;
      } else {
        const step = Math.max(Math.min(next, until) - this.t, epsilon);
        const { perThread, active } = this.running();
        this.runBusy(perThread, step);
        for (const c of active) {
          const used = perThread * c.jobs.length * step;
          c.workMs += used;
          c.periodUsedMs += used;
          for (const j of c.jobs) j.remainingMs -= perThread * step;
          const finished = c.jobs.filter((j) => j.remainingMs <= epsilon);
          if (finished.length) c.jobs = c.jobs.filter((j) => j.remainingMs > epsilon);
          for (const j of finished) j.done();
        }
        this.t += step;
      }
      if (Math.floor(this.t / cfsPeriodMs) !== periodStart) for (const c of this.containers.values()) c.periodUsedMs = 0;
    }
  }

  /** One timer for the next event, while there is work. */
  private schedule(): void {
    if (this.timer) this.o.timers.clearTimeout(this.timer);
    this.timer = undefined;
    const next = this.nextEvent();
    if (next === undefined) return;
    this.timer = this.o.timers.setTimeout(() => {
      this.timer = undefined;
      this.advance(this.now);
      this.schedule();
    }, Math.max(1, Math.ceil(next - this.now)));
  }
}
