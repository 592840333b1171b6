/**
 * Toleration matching, shared by the scheduler's TaintToleration plugin, the
 * DaemonSet controller and the taint-eviction controller (upstream:
 * `k8s.io/api/core/v1/toleration.go`, `component-helpers/scheduling/corev1`,
 * `pkg/apis/core/v1/helper`, `pkg/controller/tainteviction`). Pure functions
 * over plain API objects.
 *
 * A toleration tolerates a taint when, applied in this order:
 *  1. Effect: an empty toleration effect matches every effect; otherwise the
 *     effects must be equal.
 *  2. Key: an empty toleration key matches every key; otherwise the keys must
 *     be equal. (Validation only allows an empty key with operator Exists.)
 *  3. Operator Exists matches any value. Upstream ignores the toleration's
 *     value here; validation rejects Exists with a value, so such a
 *     toleration never reaches a stored pod.
 *  4. Operator Equal, or empty (the default), matches when the values are
 *     equal; an absent value is "".
 *  5. Any other operator matches nothing.
 */
import type { Taint, Toleration } from 'kubernetes-types/core/v1.js';

export type { Taint, Toleration };

/** The rules of the file comment, in their order. */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  const effect = toleration.effect ?? '';
  if (effect !== '' && effect !== (taint.effect ?? '')) return false; // 1
  const key = toleration.key ?? '';
  if (key !== '' && key !== (taint.key ?? '')) return false; // 2
  switch (toleration.operator ?? '') {
    case 'Exists': return true; // 3
    case '':
    case 'Equal': return (toleration.value ?? '') === (taint.value ?? ''); // 4
    default: return false; // 5
  }
}

/** True when any of the tolerations tolerates the taint. */
export function tolerationsTolerateTaint(tolerations: readonly Toleration[] | undefined, taint: Taint): boolean {
  return (tolerations ?? []).some((t) => toleratesTaint(t, taint));
}

/** Decides which taints a check looks at, e.g. only NoSchedule and NoExecute ones. */
export type TaintFilter = (taint: Taint) => boolean;

/**
 * The first taint (among those the filter keeps; all without a filter) that no
 * toleration tolerates, or undefined when all are tolerated. The scheduler
 * passes NoSchedule|NoExecute, the DaemonSet controller the same.
 */
export function findMatchingUntoleratedTaint(
  taints: readonly Taint[] | undefined, tolerations: readonly Toleration[] | undefined, inclusionFilter?: TaintFilter,
): Taint | undefined {
  for (const taint of taints ?? []) {
    if (inclusionFilter && !inclusionFilter(taint)) continue;
    if (!tolerationsTolerateTaint(tolerations, taint)) return taint;
  }
  return undefined;
}

/** The first toleration tolerating each taint, in taint order, when every taint is tolerated. */
export type MatchingTolerations = { tolerated: true; tolerations: Toleration[] } | { tolerated: false; tolerations: [] };

/**
 * GetMatchingTolerations: for each taint the first toleration that tolerates
 * it; not tolerated as soon as one taint has none. No taints: tolerated, none used.
 */
export function getMatchingTolerations(taints: readonly Taint[] | undefined, tolerations: readonly Toleration[] | undefined): MatchingTolerations {
  const used: Toleration[] = [];
  for (const taint of taints ?? []) {
    const match = (tolerations ?? []).find((t) => toleratesTaint(t, taint));
    if (!match) return { tolerated: false, tolerations: [] };
    used.push(match);
  }
  return { tolerated: true, tolerations: used };
}

/**
 * How long a pod may stay on a node whose NoExecute taints these (matching)
 * tolerations tolerate, as the taint-eviction controller's getMinTolerationTime:
 *  - no tolerations: 0 (evict now);
 *  - any tolerationSeconds <= 0: 0;
 *  - otherwise the smallest tolerationSeconds;
 *  - none sets tolerationSeconds: undefined (tolerate forever; upstream's -1).
 */
export function minTolerationSeconds(tolerations: readonly Toleration[]): number | undefined {
  if (tolerations.length === 0) return 0;
  let min: number | undefined;
  for (const t of tolerations) {
    const s = t.tolerationSeconds;
    if (s === undefined || s === null) continue;
    if (s <= 0) return 0;
    if (min === undefined || s < min) min = s;
  }
  return min;
}

/**
 * Toleration.MatchToleration: tolerations are the same when key, effect,
 * operator and value are (tolerationSeconds aside). Used to add tolerations
 * without duplicates (DaemonSet pods, DefaultTolerationSeconds admission).
 */
export function matchToleration(a: Toleration, b: Toleration): boolean {
  return (a.key ?? '') === (b.key ?? '') && (a.effect ?? '') === (b.effect ?? '')
    && (a.operator ?? '') === (b.operator ?? '') && (a.value ?? '') === (b.value ?? '');
}

/**
 * AddOrUpdateTolerationInPodSpec: `toleration` replaces the tolerations it
 * matches (matchToleration) or is appended. Unchanged when the first match is
 * already identical (tolerationSeconds included). The input is not modified.
 */
export function addOrUpdateToleration(tolerations: readonly Toleration[] | undefined, toleration: Toleration): { tolerations: Toleration[]; changed: boolean } {
  const out: Toleration[] = [];
  let updated = false;
  for (const t of tolerations ?? []) {
    if (!matchToleration(t, toleration)) {
      out.push(t);
      continue;
    }
    if (sameToleration(t, toleration)) return { tolerations: [...(tolerations ?? [])], changed: false };
    out.push(toleration);
    updated = true;
  }
  if (!updated) out.push(toleration);
  return { tolerations: out, changed: true };
}

function sameToleration(a: Toleration, b: Toleration): boolean {
  return matchToleration(a, b) && (a.tolerationSeconds ?? null) === (b.tolerationSeconds ?? null);
}

/** Whether `ss` tolerates every taint `t` does (upstream's pkg/util/tolerations isSuperset). */
export function isSupersetToleration(ss: Toleration, t: Toleration): boolean {
  if (sameToleration(ss, t)) return true;
  // An empty key with Exists matches every key and value.
  if ((t.key ?? '') !== (ss.key ?? '') && ((ss.key ?? '') !== '' || ss.operator !== 'Exists')) return false;
  // An empty effect matches every effect.
  if ((t.effect ?? '') !== (ss.effect ?? '') && (ss.effect ?? '') !== '') return false;
  if (ss.effect === 'NoExecute' && ss.tolerationSeconds !== undefined && ss.tolerationSeconds !== null) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds === null || t.tolerationSeconds > ss.tolerationSeconds) return false;
  }
  switch (ss.operator ?? '') {
    case '':
    case 'Equal': return t.operator === 'Equal' && (t.value ?? '') === (ss.value ?? '');
    case 'Exists': return true;
    default: return false;
  }
}

/**
 * Two sets of tolerations as one (upstream's MergeTolerations, which the
 * RuntimeClass and PodTolerationRestriction admission plugins use): a
 * toleration another one tolerates a superset of is dropped; of two equal
 * ones the first is kept.
 */
export function mergeTolerations(first: readonly Toleration[] | undefined, second: readonly Toleration[] | undefined): Toleration[] {
  const all = [...(first ?? []), ...(second ?? [])];
  const merged: Toleration[] = [];
  all.forEach((t, i) => {
    if (merged.some((m) => isSupersetToleration(m, t))) return;
    if (all.slice(i + 1).some((later) => !sameToleration(t, later) && isSupersetToleration(later, t))) return;
    merged.push(t);
  });
  return merged;
}
