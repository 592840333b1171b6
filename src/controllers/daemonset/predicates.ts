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

/**
 * A DaemonSet template's daemon pod spec and what each node gave against it. The answer depends
 * only on the template's pod spec and the node, and informer objects are replaced, never
 * mutated, so it is kept per node object: a sync over 5,000 nodes judges each once, not once in
 * each of its three passes (manage, rolling update, status) and again every sync. Every version
 * of a DaemonSet with the same template text shares one memo (a status write replaces the
 * DaemonSet object, not its template).
 */
interface TemplateMemo { spec: PodSpec; byNode: WeakMap<Node, ShouldRun> }
const memoByDaemonSet = new WeakMap<object, TemplateMemo>();
/** By template text; the oldest goes first past `maxTemplates` (DaemonSets come and go). */
const memoByTemplate = new Map<string, TemplateMemo>();
const maxTemplates = 256;

function templateMemo(ds: DaemonSet): TemplateMemo {
  let memo = memoByDaemonSet.get(ds);
  if (memo) return memo;
  const podSpec = ds?.spec?.template?.spec as PodSpec;
  const text = JSON.stringify(podSpec ?? null);
  memo = memoByTemplate.get(text);
  if (!memo) {
    memo = { spec: addDaemonPodTolerations(podSpec), byNode: new WeakMap() };
    if (memoByTemplate.size >= maxTemplates) memoByTemplate.delete(memoByTemplate.keys().next().value!);
    memoByTemplate.set(text, memo);
  }
  memoByDaemonSet.set(ds, memo);
  return memo;
}

/** NewPod's spec: the template spec with the daemon tolerations (shared, do not mutate). */
export function daemonPodSpec(ds: DaemonSet): PodSpec {
  return templateMemo(ds).spec;
}

/** The rules of the file comment (judged once per node object and template; the answer is shared, do not mutate). */
export function nodeShouldRunDaemonPod(node: Node, ds: DaemonSet): ShouldRun {
  const memo = templateMemo(ds);
  if (node === null || typeof node !== 'object') return judge(node, memo.spec);
  let answer = memo.byNode.get(node);
  if (!answer) {
    answer = Object.freeze(judge(node, memo.spec));
    memo.byNode.set(node, answer);
  }
  return answer;
}

function judge(node: Node, spec: PodSpec): ShouldRun {
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
