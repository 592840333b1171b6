/**
 * Preemption's choices (upstream framework/preemption and
 * plugins/defaultpreemption), pure over NodeInfo copies:
 *
 * selectVictimsOnNode:
 *  1. every pod of lower priority than the preemptor is a possible victim;
 *     none, or the preemptor still not fitting with all of them gone, means
 *     the node is no candidate;
 *  2. the possible victims are sorted most important first (higher
 *     priority, then the earlier start), and split into those whose eviction
 *     would break a PodDisruptionBudget and those that would not, spending
 *     each budget's disruptionsAllowed in that order (pods already in its
 *     disruptedPods are not counted again);
 *  3. each is given back to the node in that order, violating ones first,
 *     and stays (is reprieved) when the preemptor still fits; the others are
 *     the victims, and the violating ones among them are counted.
 *
 * pickOneNodeForPreemption: among the candidates, the node with
 *  1. the fewest budget violations; then
 *  2. the lowest highest-priority victim; then
 *  3. the smallest sum of victims' priorities (each shifted by 2^31, so more
 *     victims weigh more); then
 *  4. the fewest victims; then
 *  5. the latest start among the highest-priority victims; then
 *  6. the first one.
 */
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { budgetsCoveringPod } from '../../api/disruptionbudget.js';
import { isRejected, type Status } from '../framework.js';
import type { NodeInfo } from '../nodeinfo.js';

/** corev1helpers.PodPriority. */
export const podPriority = (pod: Pod): number => pod?.spec?.priority ?? 0;

export interface Victims { readonly node: string; readonly pods: Pod[]; readonly numPDBViolations: number }

type Filters = (pod: Pod, node: NodeInfo) => Status;

const startTime = (pod: Pod): number => {
  const t = Date.parse(pod?.status?.startTime ?? pod?.metadata?.creationTimestamp ?? '');
  return Number.isNaN(t) ? Number.MAX_SAFE_INTEGER : t;
};

/** MoreImportantPod as a sort order: higher priority first, then the earlier start. */
export function byImportance(a: Pod, b: Pod): number {
  return podPriority(b) - podPriority(a) || startTime(a) - startTime(b);
}

/** filterPodsWithPDBViolation over pods sorted by importance. */
export function splitByBudgetViolation<T extends [string, Pod]>(pods: readonly T[], pdbs: readonly PodDisruptionBudget[]): { violating: T[]; nonViolating: T[] } {
  const allowed = new Map<any, number>(pdbs.map((p) => [p, p.status?.disruptionsAllowed ?? 0]));
  const violating: T[] = [];
  const nonViolating: T[] = [];
  for (const entry of pods) {
    const pod = entry[1];
    let violated = false;
    if (Object.keys(pod.metadata?.labels ?? {}).length > 0) {
      for (const pdb of budgetsCoveringPod(pdbs, pod)) {
        if (Object.hasOwn(pdb.status?.disruptedPods ?? {}, pod.metadata!.name!)) continue;
        const left = allowed.get(pdb)! - 1;
        allowed.set(pdb, left);
        if (left < 0) violated = true;
      }
    }
    (violated ? violating : nonViolating).push(entry);
  }
  return { violating, nonViolating };
}

/** SelectVictimsOnNode: the victims, or the status saying why the node cannot help. */
export function selectVictimsOnNode(pod: Pod, node: NodeInfo, filters: Filters, pdbs: readonly PodDisruptionBudget[]):
  { victims: Victims } | { status: Status; noVictims: boolean } {
  const priority = podPriority(pod);
  const possible = [...node.pods].filter(([, p]) => podPriority(p) < priority); // 1
  if (possible.length === 0) return { status: { code: 'UnschedulableAndUnresolvable', reasons: [] }, noVictims: true };
  const copy = node.clone();
  for (const [k] of possible) copy.removePod(k);
  const fits = filters(pod, copy);
  if (isRejected(fits)) return { status: fits, noVictims: false };
  possible.sort((a, b) => byImportance(a[1], b[1])); // 2
  const { violating, nonViolating } = splitByBudgetViolation(possible, pdbs);
  const victims: Pod[] = [];
  let numPDBViolations = 0;
  const reprieve = ([k, p]: [string, any]): boolean => { // 3
    copy.addPod(k, p);
    if (!isRejected(filters(pod, copy))) return true;
    copy.removePod(k);
    victims.push(p);
    return false;
  };
  for (const v of violating) if (!reprieve(v)) numPDBViolations++;
  for (const v of nonViolating) reprieve(v);
  return { victims: { node: node.name, pods: victims, numPDBViolations } };
}

const highestPriority = (v: Victims) => v.pods.reduce((m, p) => Math.max(m, podPriority(p)), Number.MIN_SAFE_INTEGER);
const prioritySum = (v: Victims) => v.pods.reduce((s, p) => s + podPriority(p) + 2 ** 31, 0);

/** GetEarliestPodStartTime among the highest-priority victims. */
function earliestStartOfHighest(v: Victims): number {
  const top = highestPriority(v);
  return v.pods.filter((p) => podPriority(p) === top).reduce((m, p) => Math.min(m, startTime(p)), Number.MAX_SAFE_INTEGER);
}

/** pickOneNodeForPreemption: each criterion keeps the best candidates, in the order of the file comment. */
export function pickOneNodeForPreemption(candidates: readonly Victims[]): Victims | undefined {
  if (candidates.length === 0) return undefined;
  const free = candidates.find((c) => c.pods.length === 0);
  if (free) return free;
  const criteria: ((v: Victims) => number)[] = [
    (v) => v.numPDBViolations, highestPriority, prioritySum, (v) => v.pods.length, (v) => -earliestStartOfHighest(v),
  ];
  let best = [...candidates];
  for (const score of criteria) {
    const min = Math.min(...best.map(score));
    best = best.filter((v) => score(v) === min);
    if (best.length === 1) break;
  }
  return best[0];
}
