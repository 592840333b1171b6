/**
 * Planning: pure functions from cached state to lists of actions, as upstream's
 * podsShouldBeOnNode / manage / rollingUpdate / updateDaemonSetStatus compute
 * them. The controller's single writer (syncNodes) carries them out.
 */
import { podIsAvailable, podIsReady } from '../../api/pods.js';
import { nodeShouldRunDaemonPod } from './predicates.js';
import {
  allowsSurge, compareDaemonPods, controllerRevisionHashLabel, isDeleting, isPodUpdated, podIsFailed, podIsSucceeded,
  surgeCount, templateGeneration, unavailableCount,
} from './util.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';

/** Daemon pods by the node they run on or are pinned to. */
export type NodeToDaemonPods = Map<string, Pod[]>;

export interface PlanEvent { type: 'Normal' | 'Warning'; reason: string; message: string }

export interface PlanContext {
  ds: DaemonSet;
  hash: string;
  now: Date;
  /** Milliseconds left of the failed-pod back-off for the node, or undefined when a failed pod may go now. */
  failedPodBackoff?: (nodeName: string) => number | undefined;
}

export interface ManagePlan {
  nodesNeedingDaemonPods: string[];
  podsToDelete: string[];
  /** Events to record on the DaemonSet (FailedDaemonPod, SucceededDaemonPod). */
  events: PlanEvent[];
  /** Nodes whose failed pod is being deleted: the back-off steps forward for them. */
  backoffNodes: string[];
  /** Sync again after this long (a failed pod waits for its back-off). */
  requeueAfterMs?: number;
}

const emptyPlan = (): ManagePlan => ({ nodesNeedingDaemonPods: [], podsToDelete: [], events: [], backoffNodes: [] });

/** Groups pods by target node (GetTargetNodeName); pods with neither nodeName nor a pinned name are left out. */
export function groupByNode(pods: readonly Pod[], targetNode: (pod: Pod) => string | undefined): NodeToDaemonPods {
  const out: NodeToDaemonPods = new Map();
  for (const pod of pods) {
    const node = targetNode(pod);
    if (node === undefined) continue;
    const list = out.get(node);
    if (list) list.push(pod); else out.set(node, [pod]);
  }
  return out;
}

/**
 * podsShouldBeOnNode, in upstream's order:
 *  1. should run and no pod: create one.
 *  2. may keep running: failed pods are deleted (unless in back-off),
 *     succeeded ones too; without surge every running pod but the oldest
 *     goes; with surge, keep the oldest new-hash pod and the oldest old pod,
 *     and drop the old one once it is not ready or the new one is available;
 *     with surge and nothing left running, create one.
 *  3. may not keep running: delete every pod not already being deleted.
 */
export function podsShouldBeOnNode(node: Node, nodeToDaemonPods: NodeToDaemonPods, ctx: PlanContext): ManagePlan {
  const plan = emptyPlan();
  addPodsShouldBeOnNode(node, nodeToDaemonPods, ctx, allowsSurge(ctx.ds), plan);
  return plan;
}

/** podsShouldBeOnNode's actions, added to `plan` (planManage's one plan for every node). */
function addPodsShouldBeOnNode(node: Node, nodeToDaemonPods: NodeToDaemonPods, ctx: PlanContext, surge: boolean, plan: ManagePlan): void {
  const name: string = node.metadata!.name!;
  const { shouldRun, shouldContinueRunning } = nodeShouldRunDaemonPod(node, ctx.ds);
  const daemonPods = nodeToDaemonPods.get(name);
  if (shouldRun && !daemonPods) {
    plan.nodesNeedingDaemonPods.push(name); // 1
  } else if (shouldContinueRunning) {
    const running = collectRunning(name, daemonPods ?? [], ctx, plan); // 2
    if (!surge) {
      if (running.length > 1) plan.podsToDelete.push(...running.sort(compareDaemonPods).slice(1).map(podName));
    } else if (running.length === 0) {
      if (shouldRun) plan.nodesNeedingDaemonPods.push(name);
    } else if (running.length > 1) {
      pruneSurgedPods(running, ctx, plan);
    }
  } else if (daemonPods) {
    for (const pod of daemonPods) if (!isDeleting(pod)) plan.podsToDelete.push(podName(pod)); // 3
  }
}

const podName = (pod: Pod): string => pod.metadata!.name!;

/** Rule 2's first half: terminal pods are planned for deletion; returns the others not being deleted. */
function collectRunning(node: string, pods: readonly Pod[], ctx: PlanContext, plan: ManagePlan): Pod[] {
  const running: Pod[] = [];
  const ns = ctx.ds.metadata!.namespace;
  for (const pod of pods) {
    if (isDeleting(pod)) continue;
    if (podIsFailed(pod)) {
      const wait = ctx.failedPodBackoff?.(node);
      if (wait !== undefined) {
        plan.requeueAfterMs = Math.min(plan.requeueAfterMs ?? Infinity, wait);
        continue;
      }
      plan.backoffNodes.push(node);
      plan.events.push({ type: 'Warning', reason: 'FailedDaemonPod', message: `Found failed daemon pod ${ns}/${podName(pod)} on node ${node}, will try to kill it` });
      plan.podsToDelete.push(podName(pod));
    } else if (podIsSucceeded(pod)) {
      plan.events.push({ type: 'Normal', reason: 'SucceededDaemonPod', message: `Found succeeded daemon pod ${ns}/${podName(pod)} on node ${node}, will try to delete it` });
      plan.podsToDelete.push(podName(pod));
    } else {
      running.push(pod);
    }
  }
  return running;
}

/** Rule 2 with surge and several pods running. */
function pruneSurgedPods(running: Pod[], ctx: PlanContext, plan: ManagePlan): void {
  let oldestNew: Pod | undefined;
  let oldestOld: Pod | undefined;
  for (const pod of [...running].sort(compareDaemonPods)) {
    if (pod.metadata?.labels?.[controllerRevisionHashLabel] === ctx.hash) {
      if (!oldestNew) { oldestNew = pod; continue; }
    } else if (!oldestOld) {
      oldestOld = pod;
      continue;
    }
    plan.podsToDelete.push(podName(pod));
  }
  if (!oldestNew || !oldestOld) return;
  if (!podIsReady(oldestOld) || podIsAvailable(oldestNew, ctx.ds.spec?.minReadySeconds ?? 0, ctx.now)) plan.podsToDelete.push(podName(oldestOld));
}

/** getUnscheduledPodsWithoutNode: pending pods pinned to nodes that do not exist (pod GC never sees them). */
export function unscheduledPodsWithoutNode(nodes: readonly Node[], nodeToDaemonPods: NodeToDaemonPods): string[] {
  // The node names' set only when some pod is pending: most syncs have none, and 5,000 names cost more than the rest of the plan.
  let exists: Set<string | undefined> | undefined;
  const out: string[] = [];
  for (const [node, pods] of nodeToDaemonPods) {
    for (const pod of pods) {
      if (pod.spec?.nodeName) continue;
      exists ??= new Set(nodes.map((n) => n.metadata!.name));
      if (exists.has(node)) break;
      out.push(podName(pod));
    }
  }
  return out;
}

/** manage's plan: podsShouldBeOnNode over every node, plus pending pods pinned to vanished nodes. */
export function planManage(nodes: readonly Node[], nodeToDaemonPods: NodeToDaemonPods, ctx: PlanContext): ManagePlan {
  const plan = emptyPlan();
  // One plan for all nodes: the same lists, in node order, as podsShouldBeOnNode's per node concatenated.
  const surge = allowsSurge(ctx.ds);
  for (const node of nodes) addPodsShouldBeOnNode(node, nodeToDaemonPods, ctx, surge, plan);
  plan.podsToDelete.push(...unscheduledPodsWithoutNode(nodes, nodeToDaemonPods));
  return plan;
}

export interface DaemonSetCounts {
  desiredNumberScheduled: number;
  currentNumberScheduled: number;
  numberMisscheduled: number;
  numberReady: number;
  updatedNumberScheduled: number;
  numberAvailable: number;
  numberUnavailable: number;
}

/**
 * updateDaemonSetStatus's numbers: desired = nodes that should run the pod;
 * of those, current = nodes with a pod; ready/available/updated judge the
 * oldest pod there; misscheduled = nodes with a pod that should not run one;
 * unavailable = desired - available.
 */
export function computeStatus(nodes: readonly Node[], nodeToDaemonPods: NodeToDaemonPods, ctx: PlanContext): DaemonSetCounts {
  const c = { desiredNumberScheduled: 0, currentNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0, updatedNumberScheduled: 0, numberAvailable: 0, numberUnavailable: 0 };
  const generation = templateGeneration(ctx.ds);
  const minReady = ctx.ds.spec?.minReadySeconds ?? 0;
  for (const node of nodes) {
    const pods = nodeToDaemonPods.get(node.metadata!.name!) ?? [];
    if (!nodeShouldRunDaemonPod(node, ctx.ds).shouldRun) {
      if (pods.length > 0) c.numberMisscheduled++;
      continue;
    }
    c.desiredNumberScheduled++;
    if (pods.length === 0) continue;
    c.currentNumberScheduled++;
    const pod = pods.length === 1 ? pods[0]! : oldestDaemonPod(pods);
    if (podIsReady(pod)) {
      c.numberReady++;
      if (podIsAvailable(pod, minReady, ctx.now)) c.numberAvailable++;
    }
    if (isPodUpdated(pod, ctx.hash, generation)) c.updatedNumberScheduled++;
  }
  c.numberUnavailable = c.desiredNumberScheduled - c.numberAvailable;
  return c;
}

/** The first pod in compareDaemonPods order (the one status judges). */
function oldestDaemonPod(pods: readonly Pod[]): Pod {
  let first = pods[0]!;
  for (let i = 1; i < pods.length; i++) if (compareDaemonPods(pods[i]!, first) < 0) first = pods[i]!;
  return first;
}

export type UpdateCounts = { maxSurge: number; maxUnavailable: number; desiredNumberScheduled: number } | { error: string };

/**
 * updatedDesiredNodeCounts: maxSurge and maxUnavailable scaled against the
 * number of nodes that should run the pod (percentages rounded up); with both
 * 0 and something to run, maxUnavailable is taken as 1. Adds an empty entry
 * to nodeToDaemonPods for every desired node without pods.
 */
export function updatedDesiredNodeCounts(ds: DaemonSet, nodes: readonly Node[], nodeToDaemonPods: NodeToDaemonPods): UpdateCounts {
  let desired = 0;
  for (const node of nodes) {
    if (!nodeShouldRunDaemonPod(node, ds).shouldRun) continue;
    desired++;
    if (!nodeToDaemonPods.has(node.metadata!.name!)) nodeToDaemonPods.set(node.metadata!.name!, []);
  }
  const unavailable = unavailableCount(ds, desired);
  if ('error' in unavailable) return { error: `invalid value for MaxUnavailable: ${unavailable.error}` };
  const surge = surgeCount(ds, desired);
  if ('error' in surge) return { error: `invalid value for MaxSurge: ${surge.error}` };
  let maxUnavailable = unavailable.value;
  if (desired > 0 && maxUnavailable === 0 && surge.value === 0) maxUnavailable = 1;
  return { maxSurge: surge.value, maxUnavailable, desiredNumberScheduled: desired };
}

/**
 * findUpdatedPodsOnNode: the node's one new and one old pod (either may be
 * missing), ignoring pods being deleted; not ok when there are two of a kind.
 */
export function findUpdatedPodsOnNode(ds: DaemonSet, pods: readonly Pod[], hash: string, generation = templateGeneration(ds)): { ok: true; newPod?: Pod; oldPod?: Pod } | { ok: false } {
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const pod of pods) {
    if (isDeleting(pod)) continue;
    if (isPodUpdated(pod, hash, generation)) {
      if (newPod) return { ok: false };
      newPod = pod;
    } else {
      if (oldPod) return { ok: false };
      oldPod = pod;
    }
  }
  return { ok: true, newPod, oldPod };
}

export type RollingPlan = { podsToDelete: string[]; nodesToCreate: string[] } | { error: string };

/** rollingUpdate: maxSurge 0 deletes old pods within maxUnavailable; otherwise surges new pods first. */
export function planRollingUpdate(nodes: readonly Node[], nodeToDaemonPods: NodeToDaemonPods, ctx: PlanContext): RollingPlan {
  const counts = updatedDesiredNodeCounts(ctx.ds, nodes, nodeToDaemonPods);
  if ('error' in counts) return { error: `couldn't get unavailable numbers: ${counts.error}` };
  // Both plans act only on nodes with an old pod: without one (a rollout's creates, a finished update) there is nothing to order.
  if (!hasOldPod(nodeToDaemonPods, ctx)) return { podsToDelete: [], nodesToCreate: [] };
  // Go iterates a map here (random order); sorted names keep k8ts deterministic.
  const entries = [...nodeToDaemonPods].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (counts.maxSurge === 0) return planUnavailable(entries, counts.maxUnavailable, ctx);
  const byName = new Map(nodes.map((n) => [n.metadata!.name!, n]));
  return planSurge(entries, counts.maxSurge, counts.desiredNumberScheduled, byName, ctx);
}

/** Whether any node has a pod not being deleted that is not of the current revision. */
function hasOldPod(nodeToDaemonPods: NodeToDaemonPods, ctx: PlanContext): boolean {
  const generation = templateGeneration(ctx.ds);
  for (const pods of nodeToDaemonPods.values()) {
    for (const pod of pods) if (!isDeleting(pod) && !isPodUpdated(pod, ctx.hash, generation)) return true;
  }
  return false;
}

/**
 * Without surge: unavailable old pods are replaced at once; available old
 * pods are deleted while nodes without an available up-to-date pod number
 * fewer than maxUnavailable. Nodes with excess pods, with no pod, or with both
 * an old and a new pod count as unavailable (manage handles them).
 */
function planUnavailable(entries: [string, Pod[]][], maxUnavailable: number, ctx: PlanContext): RollingPlan {
  const minReady = ctx.ds.spec?.minReadySeconds ?? 0;
  const generation = templateGeneration(ctx.ds);
  let numUnavailable = 0;
  const allowed: string[] = [];
  const candidates: string[] = [];
  for (const [, pods] of entries) {
    const found = findUpdatedPodsOnNode(ctx.ds, pods, ctx.hash, generation);
    if (!found.ok) { numUnavailable++; continue; }
    const { newPod, oldPod } = found;
    if ((!oldPod && !newPod) || (oldPod && newPod)) {
      numUnavailable++;
    } else if (newPod) {
      if (!podIsAvailable(newPod, minReady, ctx.now)) numUnavailable++;
    } else if (!podIsAvailable(oldPod, minReady, ctx.now)) {
      allowed.push(podName(oldPod!));
      numUnavailable++;
    } else if (numUnavailable < maxUnavailable) {
      candidates.push(podName(oldPod!));
    }
  }
  const remaining = Math.min(Math.max(0, maxUnavailable - numUnavailable), candidates.length);
  return { podsToDelete: [...allowed, ...candidates.slice(0, remaining)], nodesToCreate: [] };
}

/**
 * With surge: a node whose old pod is unavailable gets its new pod at once;
 * other old pods get a new pod next to them while fewer than maxSurge nodes
 * are surging; an old pod goes once the new pod beside it is available. Old
 * pods on nodes that should no longer run them go only while more pods are
 * available than desired. (A pod pinned to a node that no longer exists is
 * treated as not to run there; upstream errors until pod GC removes it.)
 */
function planSurge(entries: [string, Pod[]][], maxSurge: number, desired: number, nodes: Map<string, Node>, ctx: PlanContext): RollingPlan {
  const minReady = ctx.ds.spec?.minReadySeconds ?? 0;
  const available = (pod: Pod) => podIsAvailable(pod, minReady, ctx.now);
  const shouldRun = (name: string) => { const n = nodes.get(name); return !!n && nodeShouldRunDaemonPod(n, ctx.ds).shouldRun; };
  const podsToDelete: string[] = [];
  const shouldNotRun: string[] = [];
  const candidates: string[] = [];
  const allowed: string[] = [];
  let numSurge = 0;
  let numAvailable = 0;
  const generation = templateGeneration(ctx.ds);
  for (const [nodeName, pods] of entries) {
    const found = findUpdatedPodsOnNode(ctx.ds, pods, ctx.hash, generation);
    if (!found.ok) { numSurge++; continue; }
    const { newPod, oldPod } = found;
    if (oldPod ? available(oldPod) : newPod && available(newPod)) numAvailable++;
    if (!oldPod) continue;
    if (!newPod) {
      if (!available(oldPod)) {
        if (!shouldRun(nodeName)) podsToDelete.push(podName(oldPod)); else allowed.push(nodeName);
      } else if (!shouldRun(nodeName)) {
        shouldNotRun.push(podName(oldPod));
      } else if (numSurge < maxSurge) {
        candidates.push(nodeName);
      }
    } else if (!available(newPod)) {
      numSurge++;
    } else {
      podsToDelete.push(podName(oldPod));
    }
  }
  const deletable = Math.min(Math.max(0, numAvailable - desired), shouldNotRun.length);
  podsToDelete.push(...shouldNotRun.slice(0, deletable));
  const remaining = Math.min(Math.max(0, maxSurge - numSurge), candidates.length);
  return { podsToDelete, nodesToCreate: [...allowed, ...candidates.slice(0, remaining)] };
}
