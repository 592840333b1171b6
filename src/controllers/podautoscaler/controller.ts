/**
 * The HorizontalPodAutoscaler controller (upstream pkg/controller/podautoscaler),
 * every 15 s per HPA (--horizontal-pod-autoscaler-sync-period):
 *  1. The target's scale subresource gives the current replicas and the pod
 *     selector (Deployment, ReplicaSet, StatefulSet, ReplicationController).
 *  2. Replicas 0 (with minReplicas > 0): scaling disabled. Outside
 *     [minReplicas, maxReplicas]: brought back inside. Otherwise each
 *     Resource metric's recommendation (replicas.ts) from the resource
 *     metrics API (metrics.k8s.io, what `kubectl top` reads), the largest
 *     winning, normalized (normalize.ts).
 *  3. A changed count is written to the scale subresource with the
 *     SuccessfulRescale event ("New size: 3; reason: cpu resource
 *     utilization (percentage of request) above target"); status
 *     (currentReplicas, desiredReplicas, currentMetrics, lastScaleTime) and
 *     the AbleToScale / ScalingActive / ScalingLimited conditions in
 *     upstream's words, written only when they change.
 * Pods, Object, External and ContainerResource metrics need a custom or
 * external metrics API that k8ts does not serve: they fail as upstream fails
 * without one.
 */
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerCondition, MetricSpec, MetricStatus } from 'kubernetes-types/autoscaling/v2.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Controller, ControllerContext, ControllerFactory } from '../types.js';
import type { EventRecorder, Informer } from '../../client/index.js';
import { WorkQueue, runWorkers, metaKey, isConflict, isNotFound } from '../../client/index.js';
import { matchesSelector, parseSelector } from '../../api/labels.js';
import { milliValue, parseQuantity } from '../../api/quantity.js';
import type { Logger } from '../../util/log.js';
import { rfc3339 } from '../../util/clock.js';
import { resourceReplicas } from './replicas.js';
import { normalize, normalizeWithBehavior, type Recommendation, type ScaleEvent } from './normalize.js';

export const syncPeriodMs = 15_000;

/** The scale subresources the controller knows, by the target's kind. */
const scalePaths: Record<string, { apiVersion: RegExp; base: string; resource: string }> = {
  Deployment: { apiVersion: /^(apps\/v1|extensions\/v1beta1)$/, base: '/apis/apps/v1', resource: 'deployments' },
  ReplicaSet: { apiVersion: /^apps\/v1$/, base: '/apis/apps/v1', resource: 'replicasets' },
  StatefulSet: { apiVersion: /^apps\/v1$/, base: '/apis/apps/v1', resource: 'statefulsets' },
  ReplicationController: { apiVersion: /^v1$/, base: '/api/v1', resource: 'replicationcontrollers' },
};

interface Scale { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string; resourceVersion?: string }; spec?: { replicas?: number }; status?: { replicas?: number; selector?: string } }
interface PodMetricsList { items: { metadata: { name: string }; containers: { name: string; usage: Record<string, string> }[] }[] }

const defaultMetrics: MetricSpec[] = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];

/** A milli-unit amount as a quantity (NewMilliQuantity, DecimalSI). */
const milliQuantity = (m: number) => (Math.round(m) % 1000 === 0 ? String(Math.round(m) / 1000) : `${Math.round(m)}m`);

function setCondition(hpa: HorizontalPodAutoscaler, type: string, status: 'True' | 'False', reason: string, message: string, now: string): void {
  const conditions = hpa.status!.conditions ?? (hpa.status!.conditions = []);
  const old = conditions.find((c) => c.type === type);
  const next: HorizontalPodAutoscalerCondition = { type, status, reason, message, lastTransitionTime: old && old.status === status ? old.lastTransitionTime : now };
  if (old) conditions[conditions.indexOf(old)] = next; else conditions.push(next);
}

export class HorizontalController implements Controller {
  readonly name = 'horizontalpodautoscaling';
  private readonly queue = new WorkQueue();
  private readonly hpas: Informer;
  private readonly pods: Informer;
  private readonly recorder: EventRecorder;
  private readonly log: Logger;
  private readonly recommendations = new Map<string, Recommendation[]>();
  private readonly scaleUps = new Map<string, ScaleEvent[]>();
  private readonly scaleDowns = new Map<string, ScaleEvent[]>();

  constructor(private readonly ctx: ControllerContext) {
    this.log = ctx.logger.with('horizontal-pod-autoscaler');
    this.recorder = ctx.recorder('horizontal-pod-autoscaler');
    this.hpas = ctx.informers.informer('horizontalpodautoscalers');
    this.pods = ctx.informers.informer('pods');
    // The endpoints and endpointslice controllers' index (one index, by its name): an HPA reads its namespace's pods.
    this.pods.addIndex('metadata.namespace', (p: Pod) => [p.metadata?.namespace ?? '']);
    const enqueue = (h: HorizontalPodAutoscaler) => this.queue.add(metaKey(h));
    this.hpas.addEventHandler({
      add: enqueue,
      update: (o: HorizontalPodAutoscaler, n: HorizontalPodAutoscaler) => { if (o.metadata?.generation !== n.metadata?.generation) enqueue(n); },
      delete: (h: HorizontalPodAutoscaler) => { const k = metaKey(h); this.recommendations.delete(k); this.scaleUps.delete(k); this.scaleDowns.delete(k); },
    });
  }

  run(): void {
    void runWorkers(this.queue, this.ctx.config.workers, (key) => this.sync(key),
      (key, err) => (isConflict(err) ? this.log.debug : this.log.warn)('sync failed', { hpa: key, err }));
  }

  stop(): void { this.queue.shutDown(); }

  async sync(key: string): Promise<void | { requeueAfterMs?: number }> {
    const cached: HorizontalPodAutoscaler | undefined = this.hpas.get(key);
    if (!cached) return;
    const hpa: HorizontalPodAutoscaler = structuredClone(cached);
    hpa.status ??= { desiredReplicas: 0 };
    try {
      await this.reconcile(key, hpa);
    } catch (e) {
      if (isNotFound(e)) return;
      this.log.debug('reconcile failed', { hpa: key, err: e });
    }
    await this.writeStatus(cached, hpa);
    return { requeueAfterMs: syncPeriodMs };
  }

  private async reconcile(key: string, hpa: HorizontalPodAutoscaler): Promise<void> {
    const now = rfc3339(this.ctx.clock.now());
    const nowMs = this.ctx.clock.now().getTime();
    const ns = hpa.metadata!.namespace!;
    const ref = hpa.spec!.scaleTargetRef;
    const reference = `${ref.kind}/${ref.name}`;
    const target = scalePaths[ref.kind];
    const scalePath = target && target.apiVersion.test(ref.apiVersion ?? '') ? `${target.base}/namespaces/${ns}/${target.resource}/${ref.name}/scale` : undefined;
    let scale: Scale;
    try {
      if (!scalePath) throw new Error(`no matches for kind "${ref.kind}" in group "${(ref.apiVersion ?? '').split('/').slice(0, -1).join('/')}"`);
      scale = await this.ctx.clients.rest.request('GET', scalePath);
    } catch (e) {
      const message = `the HPA controller was unable to get the target's current scale: ${(e as Error).message}`;
      setCondition(hpa, 'AbleToScale', 'False', 'FailedGetScale', message, now);
      this.recorder.event(asHPA(hpa), 'Warning', 'FailedGetScale', (e as Error).message);
      return;
    }
    setCondition(hpa, 'AbleToScale', 'True', 'SucceededGetScale', 'the HPA controller was able to get the target\'s current scale', now);
    const current = scale.spec?.replicas ?? 0;
    const min = hpa.spec!.minReplicas ?? 1;
    const max = hpa.spec!.maxReplicas;
    hpa.status!.currentReplicas = scale.status?.replicas ?? current;
    let desired = current;
    let reason = '';
    if (current === 0 && min !== 0) {
      setCondition(hpa, 'ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero', now);
      hpa.status!.desiredReplicas = 0;
      return;
    } else if (current > max) {
      reason = 'Current number of replicas above Spec.MaxReplicas';
      desired = max;
    } else if (current < min) {
      reason = 'Current number of replicas below Spec.MinReplicas';
      desired = min;
    } else {
      const computed = await this.replicasForMetrics(hpa, scale, current, now);
      if (computed.replicas === -1) {
        this.recorder.event(asHPA(hpa), 'Warning', 'FailedComputeMetricsReplicas', `invalid metrics (${computed.failures} invalid out of ${computed.total}), first error is: ${computed.error}`);
        hpa.status!.desiredReplicas = hpa.status!.desiredReplicas ?? current;
        return;
      }
      if (computed.replicas > desired) { desired = computed.replicas; reason = `${computed.metric} above target`; }
      if (computed.replicas < current) { desired = computed.replicas; reason = 'All metrics below target'; }
      const history = this.recommendations.get(key) ?? [];
      this.recommendations.set(key, history);
      const n = hpa.spec!.behavior
        ? normalizeWithBehavior(current, desired, min, max, hpa.spec!.behavior, history, this.scaleUps.get(key) ?? [], this.scaleDowns.get(key) ?? [], nowMs)
        : normalize(current, desired, min, max, history, nowMs);
      setCondition(hpa, 'AbleToScale', 'True', n.ableToScale.reason, n.ableToScale.message, now);
      setCondition(hpa, 'ScalingLimited', n.limited.status, n.limited.reason, n.limited.message, now);
      desired = n.replicas;
    }
    hpa.status!.desiredReplicas = desired;
    if (desired === current) return;
    try {
      await this.ctx.clients.rest.request('PUT', scalePath!, { body: { ...scale, spec: { ...scale.spec, replicas: desired } } });
    } catch (e) {
      this.recorder.event(asHPA(hpa), 'Warning', 'FailedRescale', `New size: ${desired}; reason: ${reason}; error: ${(e as Error).message}`);
      setCondition(hpa, 'AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${(e as Error).message}`, now);
      return;
    }
    setCondition(hpa, 'AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desired}`, now);
    this.recorder.event(asHPA(hpa), 'Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${reason}`);
    this.log.info('rescaled', { hpa: key, target: reference, from: current, to: desired, reason });
    const events = desired > current ? this.scaleUps : this.scaleDowns;
    const list = (events.get(key) ?? []).filter((e) => e.atMs > nowMs - 30 * 60_000);
    list.push({ atMs: nowMs, change: Math.abs(desired - current) });
    events.set(key, list);
    hpa.status!.lastScaleTime = now;
  }

  /** computeReplicasForMetrics: the largest recommendation over the metrics that could be computed; -1 when none could. */
  private async replicasForMetrics(hpa: HorizontalPodAutoscaler, scale: Scale, current: number, now: string):
    Promise<{ replicas: number; metric: string; failures: number; total: number; error?: string }> {
    const specs = hpa.spec!.metrics?.length ? hpa.spec!.metrics : defaultMetrics;
    const statuses: MetricStatus[] = [];
    let best = -1;
    let bestName = '';
    let failures = 0;
    let firstError: string | undefined;
    for (const spec of specs) {
      try {
        if (spec.type !== 'Resource' || !spec.resource) throw new Error(`unable to get metric of type ${spec.type}: no ${spec.type === 'External' ? 'external' : 'custom'} metrics API is served by k8ts`);
        const { name, target } = spec.resource;
        const selector = scale.status?.selector;
        if (!selector) throw new Error('selector is required');
        const sel = parseSelector(selector);
        // The labels asked before a pod is read: pods the informer keeps cold are decoded only when selected.
        const pods: Pod[] = this.pods.byIndex('metadata.namespace', hpa.metadata!.namespace!, (labels) => matchesSelector(sel, labels));
        const metrics = await this.podMetrics(hpa.metadata!.namespace!, selector, name);
        const utilizationTarget = target.type === 'Utilization';
        const averageValue = parseQuantity(target.averageValue);
        if (!utilizationTarget && !averageValue) throw new Error(`invalid target for ${name}: ${target.type} without averageValue`);
        const r = resourceReplicas(current, utilizationTarget
          ? { kind: 'Utilization', averageUtilization: target.averageUtilization ?? 80 }
          : { kind: 'AverageValue', averageMilli: Number(milliValue(averageValue!)) },
        name, pods, metrics);
        statuses.push({ type: 'Resource', resource: { name, current: { averageValue: milliQuantity(r.averageMilli), ...(r.utilization !== undefined ? { averageUtilization: r.utilization } : {}) } } });
        const metricName = utilizationTarget ? `${name} resource utilization (percentage of request)` : `${name} resource`;
        if (r.replicas > best) { best = r.replicas; bestName = metricName; }
      } catch (e) {
        failures++;
        const what = spec.type === 'Resource' ? `failed to get ${spec.resource?.name} ${spec.resource?.target.type === 'Utilization' ? 'utilization' : 'usage'}: ` : '';
        const message = `${what}${(e as Error).message}`;
        firstError ??= message;
        statuses.push({ type: '' } as MetricStatus);
        const reason = spec.type === 'Resource' ? 'FailedGetResourceMetric' : `FailedGet${spec.type}Metric`;
        this.recorder.event(asHPA(hpa), 'Warning', reason, message);
        setCondition(hpa, 'ScalingActive', 'False', reason, `the HPA was unable to compute the replica count: ${message}`, now);
      }
    }
    hpa.status!.currentMetrics = statuses;
    if (best !== -1) {
      setCondition(hpa, 'ScalingActive', 'True', 'ValidMetricFound', `the HPA was able to successfully calculate a replica count from ${bestName}`, now);
    }
    return { replicas: best, metric: bestName, failures, total: specs.length, error: firstError };
  }

  /** Each pod's usage of the resource (milli-units), from metrics.k8s.io. */
  private async podMetrics(namespace: string, selector: string, resource: string): Promise<Map<string, number>> {
    let list: PodMetricsList;
    try {
      list = await this.ctx.clients.rest.request('GET', `/apis/metrics.k8s.io/v1beta1/namespaces/${namespace}/pods`, { query: { labelSelector: selector } });
    } catch (e) {
      throw new Error(`unable to get metrics for resource ${resource}: unable to fetch metrics from resource metrics API: ${(e as Error).message}`);
    }
    if (!list.items?.length) throw new Error(`unable to get metrics for resource ${resource}: no metrics returned from resource metrics API`);
    const out = new Map<string, number>();
    for (const m of list.items) {
      let sum = 0;
      let found = false;
      for (const c of m.containers ?? []) {
        const q = parseQuantity(c.usage?.[resource]);
        if (q) { sum += Number(milliValue(q)); found = true; }
      }
      if (found) out.set(m.metadata.name, sum);
    }
    return out;
  }

  private async writeStatus(cached: HorizontalPodAutoscaler, hpa: HorizontalPodAutoscaler): Promise<void> {
    hpa.status!.observedGeneration = hpa.metadata?.generation;
    hpa.status!.currentMetrics = hpa.status!.currentMetrics?.filter((m) => m.type);
    if (JSON.stringify(cached.status ?? {}) === JSON.stringify(hpa.status)) return;
    await this.ctx.clients.resource('horizontalpodautoscalers').updateStatus(asHPA(hpa));
  }
}

const asHPA = (h: HorizontalPodAutoscaler): HorizontalPodAutoscaler => ({ ...h, apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' });

export const horizontalPodAutoscalerController: ControllerFactory = (ctx) => new HorizontalController(ctx);
