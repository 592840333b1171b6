/**
 * Pod admission on the node (pkg/kubelet/lifecycle/predicate.go
 * generalFilter, after the sysctl allowlist), checked once when a pod first
 * reaches the agent, in upstream's order; the first failure rejects the pod
 * (phase Failed):
 *
 *  0. Sysctls: each one the pod sets must be allowlisted on the node
 *     (sysctl.ts): reason SysctlForbidden, message `forbidden sysctl:
 *     "net.core.somaxconn" not allowlisted`.
 *  1. Resources: one more pod must fit the node's allocatable pods, and the
 *     pod's requests (cpu, memory, ephemeral-storage) must fit next to the
 *     pods already admitted. Reason `OutOf<resource>`, message
 *     `Node didn't have enough resource: cpu, requested: 500, used: 3800,
 *     capacity: 4000` (cpu in millicores, the rest in units).
 *  2. Node selector and required node affinity must match the node:
 *     reason NodeAffinity.
 *  3. No untolerated NoExecute taint on the node: reason TaintToleration.
 *
 * A pod's requests are upstream's PodRequests: the larger of the sum of its
 * containers (plus sidecars) and each regular init container together with
 * the sidecars started before it, plus spec.overhead.
 */
import type { Container, Node, Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import { parseQuantity, milliValue, integerValue } from '../api/quantity.js';
import { podMatchesNodeSelectorAndAffinity } from '../api/nodeaffinity.js';
import { findMatchingUntoleratedTaint } from '../api/tolerations.js';
import { SysctlAllowlist, sysctlForbiddenReason } from './sysctl.js';

export type AdmitResult = { admit: true } | { admit: false; reason: string; message: string };

const scalarResources = ['cpu', 'memory', 'ephemeral-storage'] as const;

function amount(resource: string, q: unknown): bigint {
  const parsed = q === undefined ? undefined : parseQuantity(q);
  if (!parsed) return 0n;
  return resource === 'cpu' ? milliValue(parsed) : integerValue(parsed);
}

function containerRequests(c: Container): Record<string, bigint> {
  const out: Record<string, bigint> = {};
  for (const r of scalarResources) out[r] = amount(r, c?.resources?.requests?.[r]);
  return out;
}

const add = (a: Record<string, bigint>, b: Record<string, bigint>) => {
  const out: Record<string, bigint> = {};
  for (const r of scalarResources) out[r] = (a[r] ?? 0n) + (b[r] ?? 0n);
  return out;
};
const max = (a: Record<string, bigint>, b: Record<string, bigint>) => {
  const out: Record<string, bigint> = {};
  for (const r of scalarResources) out[r] = (a[r] ?? 0n) > (b[r] ?? 0n) ? a[r] ?? 0n : b[r] ?? 0n;
  return out;
};

/** Upstream resourcehelper.PodRequests for cpu, memory and ephemeral-storage. */
export function podRequests(spec: PodSpec | undefined): Record<string, bigint> {
  let reqs: Record<string, bigint> = {};
  for (const c of spec?.containers ?? []) reqs = add(reqs, containerRequests(c));
  let sidecars: Record<string, bigint> = {};
  let initMax: Record<string, bigint> = {};
  for (const c of spec?.initContainers ?? []) {
    const r = containerRequests(c);
    if (c.restartPolicy === 'Always') {
      sidecars = add(sidecars, r);
      initMax = max(initMax, sidecars);
    } else {
      initMax = max(initMax, add(r, sidecars));
    }
  }
  reqs = max(add(reqs, sidecars), initMax);
  const overhead: Record<string, bigint> = {};
  for (const r of scalarResources) overhead[r] = amount(r, spec?.overhead?.[r]);
  return add(reqs, overhead);
}

const safeSysctlsOnly = new SysctlAllowlist();

/** Whether `pod` may run on `node` next to the `admitted` pods (active pods already running there). */
export function canAdmitPod(node: Node | undefined, pod: Pod, admitted: readonly Pod[], sysctls = safeSysctlsOnly): AdmitResult {
  const forbidden = sysctls.forbidden(pod);
  if (forbidden) return { admit: false, reason: sysctlForbiddenReason, message: forbidden };
  const allocatable: Record<string, unknown> = node?.status?.allocatable ?? {};
  const allowedPods = Number(allocatable.pods ?? 110);
  if (admitted.length + 1 > allowedPods) {
    return { admit: false, reason: 'OutOfpods', message: `Node didn't have enough resource: pods, requested: 1, used: ${admitted.length}, capacity: ${allowedPods}` };
  }
  const want = podRequests(pod.spec);
  let used: Record<string, bigint> = {};
  for (const p of admitted) used = add(used, podRequests(p.spec));
  for (const r of scalarResources) {
    if (!want[r]) continue;
    const capacity = amount(r, allocatable[r]);
    if (allocatable[r] === undefined) continue;
    if (want[r] + (used[r] ?? 0n) > capacity) {
      return { admit: false, reason: `OutOf${r}`, message: `Node didn't have enough resource: ${r}, requested: ${want[r]}, used: ${used[r] ?? 0n}, capacity: ${capacity}` };
    }
  }
  if (!podMatchesNodeSelectorAndAffinity(pod.spec, node!)) {
    return { admit: false, reason: 'NodeAffinity', message: "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector" };
  }
  const untolerated = findMatchingUntoleratedTaint(node?.spec?.taints ?? [], pod.spec?.tolerations ?? [], (t) => t.effect === 'NoExecute');
  if (untolerated) {
    return { admit: false, reason: 'TaintToleration', message: "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate" };
  }
  return { admit: true };
}
