/**
 * PodDisruptionBudget rules shared by the eviction subresource, the
 * disruption controller and the scheduler's preemption.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Condition } from 'kubernetes-types/meta/v1.js';
import type { PodDisruptionBudget, PodDisruptionBudgetStatus } from 'kubernetes-types/policy/v1.js';
import { isEverything, matchesSelector, selectorFromLabelSelector, type Selector } from './labels.js';
import { podIsReady } from './pods.js';

export const disruptionAllowedCondition = 'DisruptionAllowed';
export const disruptionTargetCondition = 'DisruptionTarget';

/** The budget's selector; undefined when it does not parse (it then selects nothing). */
function budgetSelector(pdb: PodDisruptionBudget | undefined): Selector | undefined {
  try {
    return selectorFromLabelSelector(pdb?.spec?.selector);
  } catch {
    return undefined;
  }
}

/**
 * The budgets that cover a pod, as the eviction handler and the scheduler
 * find them: same namespace, and a selector that parses, is not empty and
 * matches ("a PDB with a nil or empty selector ... should match nothing").
 */
export function budgetsCoveringPod<T extends PodDisruptionBudget>(pdbs: Iterable<T>, pod: Pod): T[] {
  const out: T[] = [];
  for (const pdb of pdbs) {
    if (pdb.metadata?.namespace !== pod.metadata?.namespace) continue;
    const sel = budgetSelector(pdb);
    if (!sel || isEverything(sel) || !matchesSelector(sel, pod.metadata?.labels)) continue;
    out.push(pdb);
  }
  return out;
}

/** The pods a budget counts (the disruption controller's getPodsForPdb): an empty selector selects every pod of its namespace. */
export function podsSelectedByBudget<T extends Pod>(pdb: PodDisruptionBudget, pods: Iterable<T>): T[] {
  const sel = budgetSelector(pdb);
  if (!sel) return [];
  const out: T[] = [];
  for (const p of pods) if (p.metadata?.namespace === pdb.metadata?.namespace && matchesSelector(sel, p.metadata?.labels)) out.push(p);
  return out;
}

/**
 * UpdateDisruptionAllowedCondition: True/SufficientPods when disruptions are
 * allowed, else False/InsufficientPods; lastTransitionTime moves only when
 * the status does (meta.SetStatusCondition).
 */
export function setDisruptionAllowedCondition(status: PodDisruptionBudgetStatus, observedGeneration: number, now: string): void {
  const allowed = (status.disruptionsAllowed ?? 0) > 0;
  setStatusCondition(status, {
    type: disruptionAllowedCondition, status: allowed ? 'True' : 'False', reason: allowed ? 'SufficientPods' : 'InsufficientPods',
    message: '', observedGeneration,
  }, now);
}

/** meta.SetStatusCondition for metav1.Conditions. */
export function setStatusCondition(status: { conditions?: Condition[] }, cond: Omit<Condition, 'lastTransitionTime'>, now: string): void {
  const conditions: Condition[] = (status.conditions ??= []);
  const i = conditions.findIndex((c) => c.type === cond.type);
  if (i < 0) {
    conditions.push({ ...cond, lastTransitionTime: now });
    return;
  }
  const old = conditions[i];
  conditions[i] = { ...cond, lastTransitionTime: old.status === cond.status && old.lastTransitionTime ? old.lastTransitionTime : now };
}

/**
 * Whether an eviction of `pod` may skip the budget check: terminal, pending
 * or already terminating pods (canIgnorePDB).
 */
export function evictionCanIgnoreBudget(pod: Pod | undefined): boolean {
  const phase = pod?.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod?.metadata?.deletionTimestamp;
}

/**
 * Whether an unready pod may be evicted without spending a disruption:
 * always under AlwaysAllow; under IfHealthyBudget (the default) while the
 * budget is met (currentHealthy >= desiredHealthy > 0).
 */
export function unhealthyPodMayBeEvicted(pdb: PodDisruptionBudget, pod: Pod): boolean {
  if (podIsReady(pod)) return false;
  if (pdb.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow') return true;
  const s: Partial<PodDisruptionBudgetStatus> = pdb.status ?? {};
  return (s.currentHealthy ?? 0) >= (s.desiredHealthy ?? 0) && (s.desiredHealthy ?? 0) > 0;
}
