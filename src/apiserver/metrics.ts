/** Prometheus metrics with upstream's names (and label values) where upstream has one. */
import type { IncomingMessage } from 'node:http';
import { Registry, Gauge, collectDefaultMetrics } from '../util/prom.js';
import { BatchedCounter, BatchedHistogram } from '../util/batched-metrics.js';
import { queryValues, type RequestInfo } from './request-info.js';
import { featureEnabledHelp, featureGates, type FeatureGate } from '../api/feature-gates.js';

export interface ApiMetrics {
  registry: Registry;
  /** Every request records these: batched (util/batched-metrics.ts), not prom-client's per-call hashing. */
  requests: BatchedCounter<RequestLabel | 'code'>;
  latency: BatchedHistogram<'verb' | 'resource' | 'subresource'>;
  /**
   * Upstream's SLI histogram: the latency without the wait for a seat of the fair queue (and,
   * upstream, without admission webhooks' time), what ClusterLoader2 reads for its API call SLO.
   */
  sli: BatchedHistogram<'verb' | 'resource' | 'subresource'>;
  /** Where a write's time went, stage by stage (request-stages.ts); k8ts's own. */
  stages: BatchedHistogram<'verb' | 'resource' | 'subresource' | 'stage'>;
  /** The wait for a seat of the fair queue, by upstream's name and labels: the request's flow schema and priority level (flowcontrol/). */
  flowcontrolWait: BatchedHistogram<'flow_schema' | 'priority_level' | 'execute'>;
  /** Every storage call (a create's write among them) records one. */
  storageLatency: BatchedHistogram<'operation'>;
  watchers: Gauge<string>;
  /** Open long-running requests (watches, exec, logs...) by verb and resource, as upstream's gauge of that name. */
  longRunning: Gauge<'verb' | 'group' | 'version' | 'resource' | 'subresource' | 'scope' | 'component'>;
  /** Registers the process_* and nodejs_* metrics, once; createMetrics({ deferDefaultMetrics: true }) leaves it to the caller. */
  collectDefaultMetrics(): void;
}

/** The request latency histograms' buckets (seconds). */
const requestBuckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * deferDefaultMetrics: the process and Node.js metrics wait for collectDefaultMetrics(), so a
 * server can load their modules after it is ready rather than before (bench/startup.ts).
 */
export function createMetrics(opts: { deferDefaultMetrics?: boolean; featureGates?: FeatureGate[] } = {}): ApiMetrics {
  const registry = new Registry();
  registerFeatureEnabled(registry, opts.featureGates ?? featureGates());
  let defaults = false;
  const collectDefaults = () => {
    if (defaults) return;
    defaults = true;
    collectDefaultMetrics({ register: registry });
  };
  if (!opts.deferDefaultMetrics) collectDefaults();
  return {
    registry, collectDefaultMetrics: collectDefaults,
    requests: new BatchedCounter({ name: 'apiserver_request_total', help: '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.', labelNames: ['code', 'component', 'dry_run', 'group', 'resource', 'scope', 'subresource', 'verb', 'version'], registers: [registry] }),
    latency: new BatchedHistogram({ name: 'apiserver_request_duration_seconds', help: 'Response latency distribution in seconds for each verb, resource and subresource.', labelNames: ['verb', 'resource', 'subresource'], buckets: requestBuckets, registers: [registry] }),
    sli: new BatchedHistogram({ name: 'apiserver_request_sli_duration_seconds', help: 'Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds for each verb, resource and subresource.', labelNames: ['verb', 'resource', 'subresource'], buckets: requestBuckets, registers: [registry] }),
    stages: new BatchedHistogram({ name: 'k8ts_request_stage_duration_seconds', help: 'Time of each stage of a write (quantum, body, seat, turn, handler, answer) in seconds for each verb, resource and subresource.', labelNames: ['verb', 'resource', 'subresource', 'stage'], buckets: requestBuckets, registers: [registry] }),
    flowcontrolWait: new BatchedHistogram({ name: 'apiserver_flowcontrol_request_wait_duration_seconds', help: 'Length of time a request spent waiting in its queue', labelNames: ['flow_schema', 'priority_level', 'execute'], buckets: [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30], registers: [registry] }),
    storageLatency: new BatchedHistogram({ name: 'k8ts_storage_request_duration_seconds', help: 'Storage backend operation latency in seconds.', labelNames: ['operation'], buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1], registers: [registry] }),
    watchers: new Gauge({ name: 'apiserver_registered_watchers', help: 'Number of currently open watch requests.', registers: [registry] }),
    longRunning: new Gauge({
      name: 'apiserver_longrunning_requests', help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'], registers: [registry],
    }),
  };
}

/** apiserver_request_total's labels but the code, as upstream's (endpoints/metrics), in the order its exposition prints them. */
export type RequestLabel = 'component' | 'dry_run' | 'group' | 'resource' | 'scope' | 'subresource' | 'verb' | 'version';

/**
 * A request's labels as upstream's MonitorRequest gives them: scope (CleanScope) is `resource` for a
 * named object or a create, else `namespace` or `cluster`, empty for a non-resource path; dry_run is the
 * dryRun query's values.
 */
export function requestLabels(req: IncomingMessage, info: RequestInfo, url?: URL): Record<RequestLabel, string> {
  const scope = info.name || info.verb === 'create' ? 'resource' : info.namespace ? 'namespace' : info.isResourceRequest ? 'cluster' : '';
  return {
    component: 'apiserver', dry_run: url ? queryValues(url, 'dryRun').join(',') : '', group: info.group, resource: info.resource ?? '',
    scope, subresource: info.subresource ?? '', verb: reportedVerb(req, info), version: info.version,
  };
}

const connectSubresources = new Set(['exec', 'attach', 'portforward', 'proxy']);

/**
 * The verb label as upstream reports it (endpoints/metrics CanonicalVerb and
 * CleanVerb): the HTTP method, except LIST for a GET of a collection, WATCH,
 * APPLY for server-side apply patches and CONNECT for exec, attach, port-forward
 * and proxy.
 */
export function reportedVerb(req: IncomingMessage, info: RequestInfo): string {
  const method = (req.method ?? 'GET').toUpperCase();
  if (!info.isResourceRequest) return method;
  if (info.subresource && connectSubresources.has(info.subresource)) return 'CONNECT';
  if (info.verb === 'watch') return 'WATCH';
  if (info.verb === 'list') return 'LIST';
  if (method === 'HEAD') return 'GET';
  if (method === 'PATCH' && String(req.headers['content-type'] ?? '').startsWith('application/apply-patch+yaml')) return 'APPLY';
  return method;
}

/** component-base's kubernetes_feature_enabled: the server's feature gates, set once (they do not change while it runs). */
function registerFeatureEnabled(registry: Registry, gates: FeatureGate[]): void {
  const gauge = new Gauge({ name: 'kubernetes_feature_enabled', help: featureEnabledHelp, labelNames: ['name', 'stage'], registers: [registry] });
  for (const g of gates) gauge.set({ name: g.name, stage: g.stage }, g.enabled ? 1 : 0);
}
