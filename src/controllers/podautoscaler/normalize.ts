/**
 * From a metric's recommendation to the replica count written (upstream
 * horizontal.go): the recommendations of the last stabilization window are
 * remembered per HPA; scale-down takes the highest of them (5 minutes
 * without spec.behavior), then the rate limits and min/max clamp it, each
 * step naming its reason as the AbleToScale and ScalingLimited conditions
 * upstream writes.
 */
import type { HPAScalingRules, HorizontalPodAutoscalerBehavior } from 'kubernetes-types/autoscaling/v2.js';

export interface Recommendation { atMs: number; replicas: number }
export interface ScaleEvent { atMs: number; change: number }

export interface Normalized {
  replicas: number;
  ableToScale: { reason: string; message: string };
  limited: { status: 'True' | 'False'; reason: string; message: string };
}

export const downscaleStabilizationMs = 5 * 60_000;

const defaultUp: Required<HPAScalingRules> = {
  stabilizationWindowSeconds: 0, selectPolicy: 'Max',
  policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }],
};
const defaultDown: Required<HPAScalingRules> = { stabilizationWindowSeconds: 300, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

const withDefaults = (r: HPAScalingRules | undefined, d: Required<HPAScalingRules>): Required<HPAScalingRules> => ({
  stabilizationWindowSeconds: r?.stabilizationWindowSeconds ?? d.stabilizationWindowSeconds,
  selectPolicy: r?.selectPolicy ?? d.selectPolicy,
  policies: r?.policies?.length ? r.policies : d.policies,
});

/** Keeps `history` to recommendations younger than `keepMs` and adds this one. */
function record(history: Recommendation[], nowMs: number, keepMs: number, replicas: number): void {
  const fresh = history.filter((r) => r.atMs > nowMs - keepMs);
  history.length = 0;
  history.push(...fresh, { atMs: nowMs, replicas });
}

const changeIn = (events: readonly ScaleEvent[], nowMs: number, periodSeconds: number) =>
  events.filter((e) => e.atMs > nowMs - periodSeconds * 1000).reduce((n, e) => n + e.change, 0);

/** normalizeDesiredReplicas: no spec.behavior. */
export function normalize(current: number, desired: number, min: number, max: number, history: Recommendation[], nowMs: number): Normalized {
  let stabilized = desired;
  for (const r of history) if (r.atMs > nowMs - downscaleStabilizationMs && r.replicas > stabilized) stabilized = r.replicas;
  record(history, nowMs, downscaleStabilizationMs, desired);
  const ableToScale = stabilized !== desired
    ? { reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' }
    : { reason: 'ReadyForNewScale', message: 'recommended size matches current size' };
  const scaleUpLimit = Math.max(2 * current, 4);
  let limit = max > scaleUpLimit
    ? { value: scaleUpLimit, reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' }
    : { value: max, reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' };
  let replicas = stabilized;
  if (stabilized < min) {
    limit = { value: min, reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
    replicas = min;
  } else if (stabilized > limit.value) {
    replicas = limit.value;
  } else {
    limit = { value: stabilized, reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };
  }
  return { replicas, ableToScale, limited: { status: replicas === stabilized ? 'False' : 'True', reason: limit.reason, message: limit.message } };
}

/** normalizeDesiredReplicasWithBehaviors: spec.behavior given (missing parts defaulted as the API defaults them). */
export function normalizeWithBehavior(current: number, desired: number, min: number, max: number, behavior: HorizontalPodAutoscalerBehavior,
  history: Recommendation[], ups: readonly ScaleEvent[], downs: readonly ScaleEvent[], nowMs: number): Normalized {
  const up = withDefaults(behavior.scaleUp, defaultUp);
  const down = withDefaults(behavior.scaleDown, defaultDown);
  let upRec = desired;
  let downRec = desired;
  for (const r of history) {
    if (r.atMs > nowMs - up.stabilizationWindowSeconds * 1000) upRec = Math.min(upRec, r.replicas);
    if (r.atMs > nowMs - down.stabilizationWindowSeconds * 1000) downRec = Math.max(downRec, r.replicas);
  }
  let stabilized = Math.max(current, upRec);
  stabilized = Math.min(stabilized, downRec);
  record(history, nowMs, Math.max(up.stabilizationWindowSeconds, down.stabilizationWindowSeconds) * 1000, desired);
  const ableToScale = stabilized !== desired
    ? (desired >= current
      ? { reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' }
      : { reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' })
    : { reason: 'ReadyForNewScale', message: 'recommended size matches current size' };
  let out = { replicas: stabilized, reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };
  const periodStart = (p: { periodSeconds: number }) => current - changeIn(ups, nowMs, p.periodSeconds) + changeIn(downs, nowMs, p.periodSeconds);
  if (stabilized > current) {
    let limit = up.selectPolicy === 'Disabled' ? current : up.selectPolicy === 'Min' ? Infinity : -Infinity;
    if (up.selectPolicy !== 'Disabled') {
      for (const p of up.policies) {
        const start = periodStart(p);
        const proposed = p.type === 'Pods' ? start + p.value : Math.ceil(start * (1 + p.value / 100));
        limit = up.selectPolicy === 'Min' ? Math.min(limit, proposed) : Math.max(limit, proposed);
      }
    }
    limit = Math.max(limit, current);
    const allowed = max > limit
      ? { value: limit, reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' }
      : { value: max, reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' };
    if (stabilized > allowed.value) out = { replicas: allowed.value, reason: allowed.reason, message: allowed.message };
  } else if (stabilized < current) {
    let limit = down.selectPolicy === 'Disabled' ? current : down.selectPolicy === 'Min' ? -Infinity : Infinity;
    if (down.selectPolicy !== 'Disabled') {
      for (const p of down.policies) {
        const start = periodStart(p);
        const proposed = p.type === 'Pods' ? start - p.value : Math.trunc(start * (1 - p.value / 100));
        limit = down.selectPolicy === 'Min' ? Math.max(limit, proposed) : Math.min(limit, proposed);
      }
    }
    limit = Math.min(limit, current);
    const allowed = min < limit
      ? { value: limit, reason: 'ScaleDownLimit', message: 'the desired replica count is decreasing faster than the maximum scale rate' }
      : { value: min, reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
    if (stabilized < allowed.value) out = { replicas: allowed.value, reason: allowed.reason, message: allowed.message };
  }
  return { replicas: out.replicas, ableToScale, limited: { status: out.replicas === stabilized ? 'False' : 'True', reason: out.reason, message: out.message } };
}
