/**
 * The taints the node lifecycle controller owns, and how it changes them
 * (upstream `node_lifecycle_controller.go` doNoScheduleTaintingPass,
 * `controller/util/node` SwapNodeControllerTaint, `controller_utils.go`
 * AddOrUpdateTaintOnNode / RemoveTaintOffNode).
 *
 * Taint by condition (NoSchedule), from the node's conditions:
 *   Ready False → node.kubernetes.io/not-ready, Ready Unknown →
 *   node.kubernetes.io/unreachable, MemoryPressure/DiskPressure/PIDPressure
 *   True → node.kubernetes.io/{memory,disk,pid}-pressure, NetworkUnavailable
 *   True → node.kubernetes.io/network-unavailable; spec.unschedulable →
 *   node.kubernetes.io/unschedulable. Only NoSchedule taints with those keys
 *   are compared; others (the user's) are never touched.
 * NoExecute: node.kubernetes.io/not-ready for Ready False and
 *   node.kubernetes.io/unreachable for Ready Unknown, mutually exclusive.
 * Taints added by the controller carry timeAdded.
 */
import type { Taint } from '../../api/taints.js';
import { matchTaint } from '../../api/taints.js';
import type { Clientset } from '../../client/index.js';
import { isConflict } from '../../client/index.js';
import { rfc3339 } from '../../util/clock.js';
import type { Node } from 'kubernetes-types/core/v1.js';

export const TaintNodeNotReady = 'node.kubernetes.io/not-ready';
export const TaintNodeUnreachable = 'node.kubernetes.io/unreachable';
export const TaintNodeUnschedulable = 'node.kubernetes.io/unschedulable';
export const TaintNodeMemoryPressure = 'node.kubernetes.io/memory-pressure';
export const TaintNodeDiskPressure = 'node.kubernetes.io/disk-pressure';
export const TaintNodePIDPressure = 'node.kubernetes.io/pid-pressure';
export const TaintNodeNetworkUnavailable = 'node.kubernetes.io/network-unavailable';

export const UnreachableTaintTemplate: Taint = { key: TaintNodeUnreachable, effect: 'NoExecute' };
export const NotReadyTaintTemplate: Taint = { key: TaintNodeNotReady, effect: 'NoExecute' };

/** nodeConditionToTaintKeyStatusMap. */
const conditionTaints: Record<string, Record<string, string>> = {
  Ready: { False: TaintNodeNotReady, Unknown: TaintNodeUnreachable },
  MemoryPressure: { True: TaintNodeMemoryPressure },
  DiskPressure: { True: TaintNodeDiskPressure },
  NetworkUnavailable: { True: TaintNodeNetworkUnavailable },
  PIDPressure: { True: TaintNodePIDPressure },
};

const conditionTaintKeys = new Set([TaintNodeNotReady, TaintNodeUnreachable, TaintNodeMemoryPressure, TaintNodeDiskPressure,
  TaintNodePIDPressure, TaintNodeNetworkUnavailable]);

/** The NoSchedule taints the node should have from its conditions and spec.unschedulable, in condition order. */
export function conditionTaintsFor(node: Node): Taint[] {
  const out: Taint[] = [];
  for (const c of node.status?.conditions ?? []) {
    const key = conditionTaints[c.type]?.[c.status];
    if (key) out.push({ key, effect: 'NoSchedule' });
  }
  if (node.spec?.unschedulable) out.push({ key: TaintNodeUnschedulable, effect: 'NoSchedule' });
  return out;
}

/** TaintSetDiff: taints of `want` missing from `have`, and taints of `have` not in `want` (by key and effect). */
export function taintSetDiff(want: readonly Taint[], have: readonly Taint[]): { add: Taint[]; remove: Taint[] } {
  return {
    add: want.filter((t) => !have.some((h) => matchTaint(t, h))),
    remove: have.filter((h) => !want.some((t) => matchTaint(t, h))),
  };
}

/** doNoScheduleTaintingPass's plan: what to add and remove among the controller's NoSchedule taints. */
export function noScheduleTaintPlan(node: Node): { add: Taint[]; remove: Taint[] } {
  const have = (node.spec?.taints ?? []).filter((t: Taint) => t.effect === 'NoSchedule'
    && (t.key === TaintNodeUnschedulable || conditionTaintKeys.has(t.key)));
  return taintSetDiff(conditionTaintsFor(node), have);
}

export const taintExists = (taints: readonly Taint[] | undefined, t: Taint) => (taints ?? []).some((x) => matchTaint(x, t));

/**
 * The new taint list: each taint to add replaces one with its key and effect
 * (or is appended), then taints matching one to remove are dropped.
 * Undefined when nothing changes.
 */
export function swapTaints(current: readonly Taint[] | undefined, add: readonly Taint[], remove: readonly Taint[]): Taint[] | undefined {
  let taints = [...(current ?? [])];
  let changed = false;
  for (const t of add) {
    const i = taints.findIndex((x) => matchTaint(x, t));
    if (i >= 0 && JSON.stringify(taints[i]) === JSON.stringify(t)) continue;
    if (i >= 0) taints[i] = t; else taints.push(t);
    changed = true;
  }
  const kept = taints.filter((x) => !remove.some((r) => matchTaint(r, x)));
  if (kept.length !== taints.length) changed = true;
  taints = kept;
  return changed ? taints : undefined;
}

/**
 * SwapNodeControllerTaint: adds `add` (stamped with timeAdded) and removes
 * `remove` in one write, reading the node afresh and retrying on conflict;
 * the resourceVersion in the patch guards against lost updates, as upstream's
 * RV-stripped two-way patch does. Returns false on failure.
 */
export async function swapNodeControllerTaint(clients: Clientset, nodeName: string, add: readonly Taint[], remove: readonly Taint[],
  now: Date): Promise<boolean> {
  const stamped = add.map((t) => ({ ...t, timeAdded: rfc3339(now) }));
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const node = await clients.nodes.get(undefined, nodeName);
      const taints = swapTaints(node.spec?.taints, stamped, remove);
      if (!taints) return true;
      await clients.nodes.patch(undefined, nodeName, { metadata: { resourceVersion: node.metadata.resourceVersion }, spec: { taints: taints.length ? taints : null } });
      return true;
    } catch (e) {
      if (!isConflict(e)) return false;
    }
  }
  return false;
}
