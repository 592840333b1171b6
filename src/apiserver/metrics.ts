/** Prometheus metrics with upstream's names where upstream has one. */
import { Registry, Counter, Histogram, Gauge, collectDefaultMetrics } from 'prom-client';

export interface ApiMetrics {
  registry: Registry;
  requests: Counter<'verb' | 'resource' | 'code'>;
  latency: Histogram<'verb' | 'resource'>;
  storageLatency: Histogram<'operation'>;
  watchers: Gauge<string>;
}

export function createMetrics(): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({ name: 'apiserver_request_total', help: 'Counter of apiserver requests broken out by verb, resource and HTTP response code.', labelNames: ['verb', 'resource', 'code'], registers: [registry] }),
    latency: new Histogram({ name: 'apiserver_request_duration_seconds', help: 'Response latency distribution in seconds for each verb and resource.', labelNames: ['verb', 'resource'], buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [registry] }),
    storageLatency: new Histogram({ name: 'k8ts_storage_request_duration_seconds', help: 'Storage backend operation latency in seconds.', labelNames: ['operation'], buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1], registers: [registry] }),
    watchers: new Gauge({ name: 'apiserver_registered_watchers', help: 'Number of currently open watch requests.', registers: [registry] }),
  };
}
