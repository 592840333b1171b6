/**
 * Whether a node should run a DaemonSet's pod (upstream NodeShouldRunDaemonPod
 * and predicates in daemon_controller.go). The pod is the template with the
 * daemon tolerations added and spec.nodeName set to the node; then:
 *  1. A template spec.nodeName other than the node's name: neither run nor keep running.
 *  2. The template's nodeSelector and required node affinity must match the
 *     node, else neither run nor keep running.
 *  3. Every NoSchedule and NoExecute taint must be tolerated to run.
 *  4. A pod already there keeps running while every NoExecute taint is
 *     tolerated (an untolerated NoSchedule taint only stops new pods).
 */
import { podMatchesNodeSelectorAndAffinity } from '../../api/nodeaffinity.js';
import { findMatchingUntoleratedTaint } from '../../api/tolerations.js';
import type { Taint } from '../../api/tolerations.js';
import { addDaemonPodTolerations } from './util.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Node, PodSpec } from 'kubernetes-types/core/v1.js';

export interface ShouldRun {
  /** A daemon pod should be created on the node if none is there. */
  shouldRun: boolean;
  /** A daemon pod already on the node may stay. */
  shouldContinueRunning: boolean;
}

const noScheduleOrNoExecute = (t: Taint) => t.effect === 'NoExecute' || t.effect === 'NoSchedule';
const noExecute = (t: Taint) => t.effect === 'NoExecute';

/** The daemon pod's spec per DaemonSet object: informer objects are replaced, never mutated. */
const specCache = new WeakMap<object, PodSpec>();

/** NewPod's spec: the template spec with the daemon tolerations (shared, do not mutate). */
export function daemonPodSpec(ds: DaemonSet): PodSpec {
  let spec = specCache.get(ds);
  if (!spec) {
    spec = addDaemonPodTolerations(ds?.spec?.template?.spec as PodSpec);
    specCache.set(ds, spec);
  }
  return spec;
}

/** The rules of the file comment, in their order. */
export function nodeShouldRunDaemonPod(node: Node, ds: DaemonSet): ShouldRun {
  const spec = daemonPodSpec(ds);
  const nodeName = node?.metadata?.name;
  if (spec.nodeName && spec.nodeName !== nodeName) return { shouldRun: false, shouldContinueRunning: false }; // 1
  if (!podMatchesNodeSelectorAndAffinity(spec, node)) return { shouldRun: false, shouldContinueRunning: false }; // 2
  const taints: Taint[] = node?.spec?.taints ?? [];
  if (!findMatchingUntoleratedTaint(taints, spec.tolerations, noScheduleOrNoExecute)) return { shouldRun: true, shouldContinueRunning: true }; // 3
  return { shouldRun: false, shouldContinueRunning: !findMatchingUntoleratedTaint(taints, spec.tolerations, noExecute) }; // 4
}

/**
 * Whether two versions of a node give every DaemonSet the same nodeShouldRunDaemonPod: its inputs
 * from the node are the name, the labels (node selector and affinity) and the taints. Compared
 * field by field: most node updates (heartbeats, conditions) change none of them, and this runs
 * for every node update, 5,000 nodes' worth.
 */
export function sameDaemonPodInputs(a: Node, b: Node): boolean {
  return a.metadata?.name === b.metadata?.name && sameLabels(a.metadata?.labels, b.metadata?.labels) && sameTaints(a.spec?.taints, b.spec?.taints);
}

function sameLabels(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  if (a === b) return true;
  const x = a ?? {};
  const y = b ?? {};
  let n = 0;
  for (const k in x) {
    if (x[k] !== y[k] || !Object.hasOwn(y, k)) return false;
    n++;
  }
  for (const _ in y) n--;
  return n === 0;
}

function sameTaints(a: readonly Taint[] | undefined, b: readonly Taint[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) {
    const s = x[i]!, t = y[i]!;
    if (s.key !== t.key || s.value !== t.value || s.effect !== t.effect || s.timeAdded !== t.timeAdded) return false;
  }
  return true;
}
