/**
 * Kubelet summaries to metrics.k8s.io objects, as metrics-server does
 * (pkg/storage: node.go, pod.go; pkg/scraper decode):
 *
 *  1. CPU is usageNanoCores as a quantity in nano-cores, canonical form
 *     (`12345678n`, `5m`); memory is workingSetBytes in binary SI (`2048Ki`).
 *  2. A node needs both its CPU rate and its working set, else it has no
 *     metrics (kubectl top shows it as <unknown>).
 *  3. A pod needs them for every container it reports, else it has no
 *     metrics at all (metrics-server drops incomplete pods rather than
 *     under-report them); a pod with no containers measured has none.
 *  4. timestamp is when the CPU was read, at second precision (metav1.Time);
 *     window is the interval the rate covers; labels are the object's.
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { formatQuantity, quantityFromInt } from '../../api/quantity.js';
import type { CPUStats, MemoryStats, PodStats, Summary } from '../../api/stats-summary.js';
import { metricsGroup, metricsVersion } from './resources.js';

export interface ResourceUsage { cpu: string; memory: string }
export interface ObjectMeta { name: string; namespace?: string; creationTimestamp: string; labels?: Record<string, string> }
export interface NodeMetrics { kind: 'NodeMetrics'; apiVersion: string; metadata: ObjectMeta; timestamp: string; window: string; usage: ResourceUsage }
export interface PodMetrics {
  kind: 'PodMetrics'; apiVersion: string; metadata: ObjectMeta; timestamp: string; window: string;
  containers: { name: string; usage: ResourceUsage }[];
}

export const apiVersion = `${metricsGroup}/${metricsVersion}`;

export const cpuQuantity = (nanoCores: number) => formatQuantity(quantityFromInt(BigInt(Math.round(nanoCores)), -9));
export const memoryQuantity = (bytes: number) => formatQuantity(quantityFromInt(BigInt(Math.round(bytes)), 0, 'BinarySI'));

/** metav1.Time: RFC 3339 in whole seconds. */
const metaTime = (iso: string) => `${new Date(iso).toISOString().slice(0, 19)}Z`;

function usageOf(cpu: CPUStats | undefined, memory: MemoryStats | undefined): ResourceUsage | undefined {
  if (cpu?.usageNanoCores === undefined || memory?.workingSetBytes === undefined) return undefined;
  return { cpu: cpuQuantity(cpu.usageNanoCores), memory: memoryQuantity(memory.workingSetBytes) };
}

export interface ConvertOptions { now: Date; window: string }

export function nodeMetricsOf(node: Node, s: Summary, o: ConvertOptions): NodeMetrics | undefined {
  const usage = usageOf(s.node.cpu, s.node.memory);
  if (!usage) return undefined;
  return {
    kind: 'NodeMetrics', apiVersion,
    metadata: { name: node.metadata!.name!, creationTimestamp: metaTime(o.now.toISOString()), ...(node.metadata?.labels ? { labels: node.metadata.labels } : {}) },
    timestamp: metaTime(s.node.cpu!.time), window: o.window, usage,
  };
}

export function podMetricsOf(pod: Pod, ps: PodStats, o: ConvertOptions): PodMetrics | undefined {
  if (!ps.containers.length) return undefined;
  const containers: PodMetrics['containers'] = [];
  for (const c of ps.containers) {
    const usage = usageOf(c.cpu, c.memory);
    if (!usage) return undefined;
    containers.push({ name: c.name, usage });
  }
  const times = ps.containers.map((c) => c.cpu!.time).sort();
  return {
    kind: 'PodMetrics', apiVersion,
    metadata: {
      name: pod.metadata!.name!, namespace: pod.metadata!.namespace!, creationTimestamp: metaTime(o.now.toISOString()),
      ...(pod.metadata?.labels ? { labels: pod.metadata.labels } : {}),
    },
    timestamp: metaTime(times.at(-1)!), window: o.window, containers,
  };
}
