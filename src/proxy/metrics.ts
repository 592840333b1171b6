/** kube-proxy's sync metrics, with upstream's names (pkg/proxy/metrics/metrics.go). */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface ProxyMetrics {
  syncFailures: Counter;
  observe(full: boolean, seconds: number, services: number): void;
}

export function proxyMetrics(registry: Registry): ProxyMetrics {
  const buckets = [0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1.024, 2.048, 4.096, 8.192, 16.384];
  const all = new Histogram({ name: 'kubeproxy_sync_proxy_rules_duration_seconds', help: 'SyncProxyRules latency in seconds', buckets, registers: [registry] });
  const full = new Histogram({ name: 'kubeproxy_sync_full_proxy_rules_duration_seconds', help: 'SyncProxyRules latency in seconds for full resyncs', buckets, registers: [registry] });
  const partial = new Histogram({ name: 'kubeproxy_sync_partial_proxy_rules_duration_seconds', help: 'SyncProxyRules latency in seconds for partial resyncs', buckets, registers: [registry] });
  const last = new Gauge({ name: 'kubeproxy_sync_proxy_rules_last_timestamp_seconds', help: 'The last time proxy rules were successfully synced', registers: [registry] });
  const services = new Gauge({ name: 'kubeproxy_sync_proxy_rules_services', help: 'Services programmed in the last sync (k8ts)', registers: [registry] });
  const syncFailures = new Counter({ name: 'kubeproxy_sync_proxy_rules_nftables_sync_failures_total', help: 'Cumulative proxy nftables sync failures', registers: [registry] });
  return {
    syncFailures,
    observe(isFull, seconds, n) {
      all.observe(seconds);
      (isFull ? full : partial).observe(seconds);
      last.set(Date.now() / 1000);
      services.set(n);
    },
  };
}
