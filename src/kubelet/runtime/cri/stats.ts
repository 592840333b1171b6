/**
 * Container usage through the CRI (ListContainerStats), as upstream's CRI
 * stats provider reads it: containerd answers from each container's cgroup
 * (cumulative CPU, working set = usage - inactive_file). Only this node's
 * containers (by the node label), only what the runtime measured.
 */
import type { RuntimeContainerStats } from '../runtime.js';
import type { CRIClient } from './client.js';
import { labelContainerName, labelNodeName, labelPodUID } from './config.js';
import type { ContainerStats } from './types.js';

/** CRI timestamps are nanoseconds since the epoch; 0 (unset) means now. */
const dateOf = (ns: number | undefined) => (ns ? new Date(Math.floor(ns / 1e6)) : new Date());

export function fromCRIStats(s: ContainerStats): RuntimeContainerStats | undefined {
  const labels = s.attributes?.labels ?? {};
  const podUID = labels[labelPodUID];
  const name = labels[labelContainerName] ?? s.attributes?.metadata?.name;
  if (!podUID || !name || (!s.cpu?.usageCoreNanoSeconds && !s.memory?.workingSetBytes)) return undefined;
  const out: RuntimeContainerStats = { podUID, name, timestamp: dateOf(s.cpu?.timestamp || s.memory?.timestamp) };
  if (s.cpu?.usageCoreNanoSeconds) out.usageCoreNanoSeconds = Number(s.cpu.usageCoreNanoSeconds.value);
  if (s.memory?.workingSetBytes) out.workingSetBytes = Number(s.memory.workingSetBytes.value);
  if (s.memory?.usageBytes) out.usageBytes = Number(s.memory.usageBytes.value);
  if (s.memory?.rssBytes) out.rssBytes = Number(s.memory.rssBytes.value);
  return out;
}

export async function criContainerStats(client: CRIClient, nodeName: string): Promise<RuntimeContainerStats[]> {
  const stats = await client.listContainerStats({ labelSelector: { [labelNodeName]: nodeName } });
  return stats.map(fromCRIStats).filter((s): s is RuntimeContainerStats => !!s);
}
