/**
 * Pod and container entries of the summary from the runtime's readings
 * (upstream's summary provider, pkg/kubelet/stats):
 *
 *  1. Containers are matched to pods by pod UID; a pod the kubelet does not
 *     run here (or whose containers the runtime did not measure) is left out,
 *     so metrics.k8s.io has no entry for it rather than a made-up one.
 *  2. A container's CPU rate is `rates(key, reading)`: the sampler's view
 *     over its window; the cumulative time is always reported.
 *  3. A pod's CPU and memory are the sums of its containers' (upstream reads
 *     the pod cgroup, which also counts the sandbox; the pause process is
 *     negligible).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { RuntimeContainerStats } from '../runtime/runtime.js';
import type { ContainerStats, CPUStats, MemoryStats, PodStats } from '../../api/stats-summary.js';

export type RateOf = (r: RuntimeContainerStats) => number | undefined;

export function containerStatsOf(r: RuntimeContainerStats, startTime: string, rate: number | undefined): ContainerStats {
  const time = r.timestamp.toISOString();
  const c: ContainerStats = { name: r.name, startTime };
  if (r.usageCoreNanoSeconds !== undefined) c.cpu = { time, usageCoreNanoSeconds: r.usageCoreNanoSeconds, ...(rate !== undefined ? { usageNanoCores: rate } : {}) };
  if (r.workingSetBytes !== undefined) {
    c.memory = { time, workingSetBytes: r.workingSetBytes, ...(r.usageBytes !== undefined ? { usageBytes: r.usageBytes } : {}), ...(r.rssBytes !== undefined ? { rssBytes: r.rssBytes } : {}) };
  }
  return c;
}

function sum<T extends CPUStats | MemoryStats>(items: (T | undefined)[], fields: (keyof T)[]): T | undefined {
  const present = items.filter((i): i is T => !!i);
  if (!present.length) return undefined;
  const out = { time: present.map((p) => p.time).sort().at(-1)! } as T;
  for (const f of fields) {
    if (present.every((p) => p[f] !== undefined)) (out as any)[f] = present.reduce((a, p) => a + (p[f] as number), 0);
  }
  return out;
}

function startedAt(pod: Pod, name: string): string {
  const s = pod.status?.containerStatuses?.find((c) => c.name === name);
  return s?.state?.running?.startedAt ?? pod.status?.startTime ?? pod.metadata?.creationTimestamp ?? new Date(0).toISOString();
}

export function podStatsOf(pods: Pod[], readings: RuntimeContainerStats[], rateOf: RateOf): PodStats[] {
  const byPod = new Map<string, RuntimeContainerStats[]>();
  for (const r of readings) byPod.set(r.podUID, [...(byPod.get(r.podUID) ?? []), r]);
  const out: PodStats[] = [];
  for (const pod of pods) {
    const rs = byPod.get(pod.metadata?.uid ?? '');
    if (!rs?.length) continue;
    const containers = rs.map((r) => containerStatsOf(r, startedAt(pod, r.name), rateOf(r))).sort((a, b) => a.name.localeCompare(b.name));
    out.push({
      podRef: { name: pod.metadata!.name!, namespace: pod.metadata!.namespace!, uid: pod.metadata!.uid! },
      startTime: pod.status?.startTime ?? pod.metadata?.creationTimestamp ?? new Date(0).toISOString(),
      containers,
      cpu: sum<CPUStats>(containers.map((c) => c.cpu), ['usageNanoCores', 'usageCoreNanoSeconds']),
      memory: sum<MemoryStats>(containers.map((c) => c.memory), ['workingSetBytes', 'usageBytes', 'rssBytes']),
    });
  }
  return out;
}
