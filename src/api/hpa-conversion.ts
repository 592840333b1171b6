/**
 * HorizontalPodAutoscaler conversion between autoscaling/v1 and v2 (upstream
 * pkg/apis/autoscaling/v1/conversion.go). v2 is the storage version; v1 can
 * say only `targetCPUUtilizationPercentage`, so what it cannot say travels in
 * annotations, as upstream keeps it:
 * - `autoscaling.alpha.kubernetes.io/metrics`: the spec metrics other than a
 *   CPU utilization target, in autoscaling/v1's MetricSpec form;
 * - `autoscaling.alpha.kubernetes.io/current-metrics`: every status metric;
 * - `autoscaling.alpha.kubernetes.io/conditions`: status conditions;
 * - `autoscaling.alpha.kubernetes.io/behavior`: spec.behavior.
 * v1 → v2 reads them back and drops them from metadata.
 */
import type { HorizontalPodAutoscaler as HPAv1 } from 'kubernetes-types/autoscaling/v1.js';
import type { HorizontalPodAutoscaler as HPAv2, HorizontalPodAutoscalerBehavior, HorizontalPodAutoscalerStatus, MetricSpec, MetricStatus, MetricTarget } from 'kubernetes-types/autoscaling/v2.js';
import { appendAll } from './append.js';

export const otherMetricsAnnotation = 'autoscaling.alpha.kubernetes.io/metrics';
export const currentMetricsAnnotation = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const conditionsAnnotation = 'autoscaling.alpha.kubernetes.io/conditions';
export const behaviorAnnotation = 'autoscaling.alpha.kubernetes.io/behavior';
const annotations = [otherMetricsAnnotation, currentMetricsAnnotation, conditionsAnnotation, behaviorAnnotation];

type V1Metric = Record<string, any>;

const isCPUUtilization = (m: MetricSpec) => m.type === 'Resource' && m.resource?.name === 'cpu' && m.resource.target?.type === 'Utilization';
const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/** A v2 metric spec in autoscaling/v1's (v2beta1-like) form. */
function metricSpecToV1(m: MetricSpec): V1Metric {
  const out: V1Metric = { type: m.type };
  if (m.object) {
    out.object = defined({ target: m.object.describedObject, metricName: m.object.metric?.name, targetValue: m.object.target?.value, selector: m.object.metric?.selector, averageValue: m.object.target?.averageValue });
  }
  if (m.pods) out.pods = defined({ metricName: m.pods.metric?.name, targetAverageValue: m.pods.target?.averageValue, selector: m.pods.metric?.selector });
  if (m.resource) out.resource = defined({ name: m.resource.name, targetAverageUtilization: m.resource.target?.averageUtilization, targetAverageValue: m.resource.target?.averageValue });
  if (m.containerResource) {
    const c = m.containerResource;
    out.containerResource = defined({ name: c.name, container: c.container, targetAverageUtilization: c.target?.averageUtilization, targetAverageValue: c.target?.averageValue });
  }
  if (m.external) {
    out.external = defined({ metricName: m.external.metric?.name, metricSelector: m.external.metric?.selector, targetValue: m.external.target?.value, targetAverageValue: m.external.target?.averageValue });
  }
  return out;
}

/** The target type v1 implies: an average value wins, then utilization, else a plain value. */
const targetOf = (value: unknown, averageValue: unknown, averageUtilization?: unknown) => defined({
  type: averageValue !== undefined ? 'AverageValue' : averageUtilization !== undefined ? 'Utilization' : 'Value',
  value, averageValue, averageUtilization,
}) as MetricTarget;

function metricSpecFromV1(m: V1Metric): MetricSpec {
  const out: MetricSpec = { type: m.type };
  if (m.object) out.object = { describedObject: m.object.target, metric: defined({ name: m.object.metricName, selector: m.object.selector }), target: targetOf(m.object.targetValue, m.object.averageValue) };
  if (m.pods) out.pods = { metric: defined({ name: m.pods.metricName, selector: m.pods.selector }), target: targetOf(undefined, m.pods.targetAverageValue) };
  if (m.resource) out.resource = { name: m.resource.name, target: targetOf(undefined, m.resource.targetAverageValue, m.resource.targetAverageUtilization) };
  if (m.containerResource) {
    const c = m.containerResource;
    out.containerResource = { name: c.name, container: c.container, target: targetOf(undefined, c.targetAverageValue, c.targetAverageUtilization) };
  }
  if (m.external) out.external = { metric: defined({ name: m.external.metricName, selector: m.external.metricSelector }), target: targetOf(m.external.targetValue, m.external.targetAverageValue) };
  return out;
}

function metricStatusToV1(m: MetricStatus): V1Metric {
  const out: V1Metric = { type: m.type };
  if (m.object) out.object = defined({ target: m.object.describedObject, metricName: m.object.metric?.name, currentValue: m.object.current?.value, selector: m.object.metric?.selector, averageValue: m.object.current?.averageValue });
  if (m.pods) out.pods = defined({ metricName: m.pods.metric?.name, currentAverageValue: m.pods.current?.averageValue, selector: m.pods.metric?.selector });
  if (m.resource) out.resource = defined({ name: m.resource.name, currentAverageUtilization: m.resource.current?.averageUtilization, currentAverageValue: m.resource.current?.averageValue });
  if (m.containerResource) {
    const c = m.containerResource;
    out.containerResource = defined({ name: c.name, container: c.container, currentAverageUtilization: c.current?.averageUtilization, currentAverageValue: c.current?.averageValue });
  }
  if (m.external) out.external = defined({ metricName: m.external.metric?.name, metricSelector: m.external.metric?.selector, currentValue: m.external.current?.value, currentAverageValue: m.external.current?.averageValue });
  return out;
}

function metricStatusFromV1(m: V1Metric): MetricStatus {
  const out: MetricStatus = { type: m.type };
  if (m.object) out.object = { describedObject: m.object.target, metric: defined({ name: m.object.metricName, selector: m.object.selector }), current: defined({ value: m.object.currentValue, averageValue: m.object.averageValue }) };
  if (m.pods) out.pods = { metric: defined({ name: m.pods.metricName, selector: m.pods.selector }), current: defined({ averageValue: m.pods.currentAverageValue }) };
  if (m.resource) out.resource = { name: m.resource.name, current: defined({ averageValue: m.resource.currentAverageValue, averageUtilization: m.resource.currentAverageUtilization }) };
  if (m.containerResource) {
    const c = m.containerResource;
    out.containerResource = { name: c.name, container: c.container, current: defined({ averageValue: c.currentAverageValue, averageUtilization: c.currentAverageUtilization }) };
  }
  if (m.external) out.external = { metric: defined({ name: m.external.metricName, selector: m.external.metricSelector }), current: defined({ value: m.external.currentValue, averageValue: m.external.currentAverageValue }) };
  return out;
}

/** The stored (v2) object as autoscaling/v1 serves it. */
export function hpaV2ToV1(hpa: HPAv2): HPAv1 {
  const spec = hpa.spec;
  const status = hpa.status;
  const ann: Record<string, string> = { ...(hpa.metadata?.annotations ?? {}) };
  const metrics = spec?.metrics ?? [];
  const cpu = metrics.find(isCPUUtilization);
  const others = metrics.filter((m) => !isCPUUtilization(m));
  if (others.length) ann[otherMetricsAnnotation] = JSON.stringify(others.map(metricSpecToV1));
  if (status?.currentMetrics?.length) ann[currentMetricsAnnotation] = JSON.stringify(status.currentMetrics.map(metricStatusToV1));
  if (status?.conditions?.length) ann[conditionsAnnotation] = JSON.stringify(status.conditions);
  if (spec?.behavior) ann[behaviorAnnotation] = JSON.stringify(spec.behavior);
  const metadata = { ...hpa.metadata };
  if (Object.keys(ann).length) metadata.annotations = ann;
  const out: HPAv1 = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata };
  if (spec) {
    out.spec = defined({
      scaleTargetRef: spec.scaleTargetRef, minReplicas: spec.minReplicas, maxReplicas: spec.maxReplicas,
      targetCPUUtilizationPercentage: cpu?.resource?.target?.averageUtilization,
    });
  }
  if (status) {
    const cpuNow = status.currentMetrics?.find((m) => m.type === 'Resource' && m.resource?.name === 'cpu')?.resource?.current?.averageUtilization;
    out.status = defined({
      observedGeneration: status.observedGeneration, lastScaleTime: status.lastScaleTime,
      currentReplicas: status.currentReplicas ?? 0, desiredReplicas: status.desiredReplicas, currentCPUUtilizationPercentage: cpuNow,
    });
  }
  return out;
}

function parseAnnotation(ann: Record<string, string>, key: string): unknown {
  try {
    return ann[key] === undefined ? undefined : JSON.parse(ann[key]);
  } catch {
    return undefined;
  }
}

/** An autoscaling/v1 object in its stored (v2) form; the conversion annotations move back into fields. */
export function hpaV1ToV2(hpa: HPAv1): HPAv2 {
  const ann: Record<string, string> = { ...(hpa.metadata?.annotations ?? {}) };
  const others = parseAnnotation(ann, otherMetricsAnnotation);
  const current = parseAnnotation(ann, currentMetricsAnnotation);
  const conditions = parseAnnotation(ann, conditionsAnnotation);
  const behavior = parseAnnotation(ann, behaviorAnnotation) as HorizontalPodAutoscalerBehavior | undefined;
  for (const a of annotations) delete ann[a];
  const metadata = { ...hpa.metadata };
  if (Object.keys(ann).length) metadata.annotations = ann; else delete metadata.annotations;
  const out: HPAv2 = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata };
  const spec = hpa.spec;
  if (spec) {
    const metrics: MetricSpec[] = [];
    if (spec.targetCPUUtilizationPercentage !== undefined) {
      metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } } });
    }
    if (Array.isArray(others)) appendAll(metrics, others.map(metricSpecFromV1));
    out.spec = defined({ scaleTargetRef: spec.scaleTargetRef, minReplicas: spec.minReplicas, maxReplicas: spec.maxReplicas, metrics: metrics.length ? metrics : undefined, behavior });
  }
  const status = hpa.status;
  if (status) {
    let currentMetrics: MetricStatus[] | undefined;
    // The annotation carries more than the CPU percentage: it wins.
    if (Array.isArray(current)) currentMetrics = current.map(metricStatusFromV1);
    else if (status.currentCPUUtilizationPercentage !== undefined) {
      currentMetrics = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } } }];
    }
    out.status = defined({
      observedGeneration: status.observedGeneration, lastScaleTime: status.lastScaleTime, currentReplicas: status.currentReplicas,
      desiredReplicas: status.desiredReplicas, currentMetrics, conditions: Array.isArray(conditions) ? conditions : undefined,
    }) as HorizontalPodAutoscalerStatus;
  }
  return out;
}
