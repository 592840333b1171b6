/**
 * A container's requests and limits → CRI LinuxContainerResources, as the
 * kubelet computes them (pkg/kubelet/kuberuntime/kuberuntime_container_linux.go
 * calculateLinuxResources, pkg/kubelet/cm/helpers_linux.go, pkg/kubelet/qos/policy.go), v1.32:
 *
 *  1. cpu_shares from the cpu request (the limit when only a limit is set):
 *     milliCPU × 1024 / 1000, at least 2 (MinShares), at most 262144; no
 *     request gives 2.
 *  2. cpu_period is 100000 µs (the CFS quota period); cpu_quota is
 *     milliCPU(limit) × period / 1000, at least 1000 (MinQuotaPeriod), and
 *     0 (no quota) without a cpu limit.
 *  3. memory_limit_in_bytes is the memory limit (0: none).
 *  4. oom_score_adj: node-critical pods and Guaranteed pods -997, BestEffort
 *     1000; Burstable 1000 − 1000 × memoryRequest / memoryCapacity, kept in
 *     [3, 999]. A sidecar (restartable init container) counts at least the
 *     smallest memory request of the regular containers, so it is not killed
 *     before them.
 *
 * The pod sandbox gets no cgroup parent: k8ts keeps no QoS cgroup hierarchy
 * (kubepods/burstable/...), so each container is limited on its own.
 */
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { milliValue, integerValue, parseQuantity } from '../../../api/quantity.js';
import { podQOSClass } from '../../../api/qos.js';
import type * as cri from './types.js';

export const minShares = 2;
export const maxShares = 262144;
export const sharesPerCPU = 1024;
export const quotaPeriod = 100_000;
export const minQuotaPeriod = 1000;
export const guaranteedOOMScoreAdj = -997;
export const besteffortOOMScoreAdj = 1000;
/** scheduling.SystemCriticalPriority. */
const systemCriticalPriority = 2_000_000_000;

/** cm.MilliCPUToShares. */
export function milliCPUToShares(milliCPU: number): number {
  if (milliCPU === 0) return minShares;
  const shares = Math.floor((milliCPU * sharesPerCPU) / 1000);
  return Math.min(maxShares, Math.max(minShares, shares));
}

/** cm.MilliCPUToQuota. */
export function milliCPUToQuota(milliCPU: number, period: number): number {
  if (milliCPU === 0) return 0;
  return Math.max(minQuotaPeriod, Math.floor((milliCPU * period) / 1000));
}

function amount(list: Record<string, unknown> | undefined, name: string, milli: boolean): number | undefined {
  const q = list?.[name] === undefined ? undefined : parseQuantity(list[name]);
  return q && Number(milli ? milliValue(q) : integerValue(q));
}

/** types.IsNodeCriticalPod: system-node-critical and critical (static, mirror, or critical priority). */
function isNodeCriticalPod(pod: Pod): boolean {
  if (pod.spec?.priorityClassName !== 'system-node-critical') return false;
  const source = pod.metadata?.annotations?.['kubernetes.io/config.source'];
  const staticOrMirror = (source !== undefined && source !== 'api') || pod.metadata?.annotations?.['kubernetes.io/config.mirror'] !== undefined;
  return staticOrMirror || (pod.spec.priority ?? 0) >= systemCriticalPriority;
}

/** qos.GetContainerOOMScoreAdjust. */
export function containerOOMScoreAdjust(pod: Pod, c: Container, memoryCapacity: number): number {
  if (isNodeCriticalPod(pod)) return guaranteedOOMScoreAdj;
  const qos = pod.status?.qosClass ?? podQOSClass(pod.spec);
  if (qos === 'Guaranteed') return guaranteedOOMScoreAdj;
  if (qos === 'BestEffort') return besteffortOOMScoreAdj;
  let memoryRequest = amount(c.resources?.requests, 'memory', false) ?? 0;
  const sidecar = c.restartPolicy === 'Always' && (pod.spec?.initContainers ?? []).some((x) => x.name === c.name);
  if (sidecar) {
    const regular = (pod.spec?.containers ?? []).map((x) => amount(x.resources?.requests, 'memory', false) ?? 0);
    if (regular.length) memoryRequest = Math.max(memoryRequest, Math.min(...regular));
  }
  const adjust = 1000 - Math.floor((1000 * memoryRequest) / memoryCapacity);
  // Burstable stays above any Guaranteed container and below BestEffort.
  if (adjust < 1000 + guaranteedOOMScoreAdj) return 1000 + guaranteedOOMScoreAdj;
  if (adjust === besteffortOOMScoreAdj) return adjust - 1;
  return adjust;
}

/** generateLinuxContainerResources (without the alpha MemoryQoS and swap settings). */
export function linuxContainerResources(pod: Pod, c: Container, memoryCapacity: number): NonNullable<NonNullable<cri.ContainerConfig['linux']>['resources']> {
  const limitCPU = amount(c.resources?.limits, 'cpu', true) ?? 0;
  const requestCPU = amount(c.resources?.requests, 'cpu', true) ?? (limitCPU || undefined);
  return {
    cpuShares: milliCPUToShares(requestCPU ?? 0),
    cpuPeriod: quotaPeriod,
    cpuQuota: milliCPUToQuota(limitCPU, quotaPeriod),
    memoryLimitInBytes: amount(c.resources?.limits, 'memory', false) ?? 0,
    oomScoreAdj: containerOOMScoreAdjust(pod, c, memoryCapacity),
  };
}
