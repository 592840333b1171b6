/**
 * The prom-client classes the API server uses, loaded from their own files
 * rather than through the package's index: the index also loads the default
 * process metrics, whose CPU counter pulls in @opentelemetry/api (about 50
 * modules), the Pushgateway and the cluster aggregator, together some 40 ms of
 * `k8ts server`'s start (bench/startup.ts). The classes are the same
 * modules the index exports (one module cache), so metrics made here and
 * through 'prom-client' mix freely.
 */
import { createRequire } from 'node:module';
import type * as Prom from 'prom-client';

const require = createRequire(import.meta.url);

export const Registry = require('prom-client/lib/registry') as typeof Prom.Registry;
export type Registry = Prom.Registry;
export const Counter = require('prom-client/lib/counter') as typeof Prom.Counter;
export type Counter<T extends string = string> = Prom.Counter<T>;
export const Gauge = require('prom-client/lib/gauge') as typeof Prom.Gauge;
export type Gauge<T extends string = string> = Prom.Gauge<T>;
export const Histogram = require('prom-client/lib/histogram') as typeof Prom.Histogram;
export type Histogram<T extends string = string> = Prom.Histogram<T>;

/**
 * How often nodejs_eventloop_lag_* samples the loop's delay (ms). prom-client's default, 10, is a
 * libuv timer that wakes an idle process 100 times a second (its only wake-ups, bar a 100 ms
 * tick): 0.5% of a CPU for nothing, and on a VM a vCPU woken from halt each time. At 100 ms the
 * gauges still get some 150 samples between two 15 s scrapes; a stall under 100 ms is seen when
 * a sample falls due inside it (in proportion to its length) rather than every time.
 */
export const eventLoopMonitoringPrecisionMs = 100;

/** prom-client's collectDefaultMetrics (process_*, nodejs_*), its modules loaded on this first call. */
export function collectDefaultMetrics(config: Prom.DefaultMetricsCollectorConfiguration<Prom.RegistryContentType>): void {
  (require('prom-client/lib/defaultMetrics') as typeof Prom.collectDefaultMetrics)({ eventLoopMonitoringPrecision: eventLoopMonitoringPrecisionMs, ...config });
}
