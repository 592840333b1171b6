/**
 * Upstream's APF metrics (apiserver/pkg/util/flowcontrol/metrics) from the
 * counts each schema keeps (classify.ts): read when /metrics is scraped, so a
 * request only adds to a number.
 */
import { Counter, Gauge, type Registry } from '../../util/prom.js';
import type { FlowControl } from './flow-control.js';

type Labels = { priority_level: string; flow_schema: string };

/** A counter whose value is a running total kept elsewhere: each scrape adds what it grew by. */
function totalCounter<T extends string>(registry: Registry, name: string, help: string, labelNames: T[], totals: () => Iterable<[Record<T, string>, number]>): void {
  const reported = new Map<string, number>();
  registry.removeSingleMetric(name);
  new Counter<T>({
    name, help, labelNames, registers: [registry],
    collect(this: Counter<T>) {
      for (const [labels, n] of totals()) {
        const key = Object.values(labels).join('\x00');
        const grown = n - (reported.get(key) ?? 0);
        reported.set(key, n);
        if (grown > 0) this.inc(labels, grown);
      }
    },
  });
}

export function registerFlowControlMetrics(registry: Registry, fc: FlowControl): void {
  const schemas = fc.classifier.all;
  const labelsOf = new Map(schemas.map((s) => [s, { priority_level: s.priorityLevel, flow_schema: s.name } as Labels]));
  totalCounter(registry, 'apiserver_flowcontrol_dispatched_requests_total', '[BETA] Number of requests executed by API Priority and Fairness subsystem', ['priority_level', 'flow_schema'],
    function* () { for (const s of schemas) if (s.dispatched) yield [labelsOf.get(s)!, s.dispatched]; });
  totalCounter(registry, 'apiserver_flowcontrol_rejected_requests_total', '[BETA] Number of requests rejected by API Priority and Fairness subsystem', ['priority_level', 'flow_schema', 'reason'],
    function* () {
      for (const s of schemas) {
        for (const reason of ['queue-full', 'concurrency-limit'] as const) if (s.rejected[reason]) yield [{ ...labelsOf.get(s)!, reason }, s.rejected[reason]];
      }
    });
  registry.removeSingleMetric('apiserver_flowcontrol_current_inqueue_requests');
  new Gauge<keyof Labels>({
    name: 'apiserver_flowcontrol_current_inqueue_requests', help: '[BETA] Number of requests currently pending in queues of the API Priority and Fairness subsystem',
    labelNames: ['priority_level', 'flow_schema'], registers: [registry],
    collect(this: Gauge<keyof Labels>) { for (const s of schemas) if (s.dispatched || s.inQueue) this.set(labelsOf.get(s)!, s.inQueue); },
  });
  registry.removeSingleMetric('apiserver_flowcontrol_nominal_limit_seats');
  const nominal = new Gauge<'priority_level'>({
    name: 'apiserver_flowcontrol_nominal_limit_seats', help: '[BETA] Nominal number of execution seats configured for each priority level',
    labelNames: ['priority_level'], registers: [registry],
  });
  for (const level of fc.levels?.byName.values() ?? []) nominal.set({ priority_level: level.name }, level.queue?.seats ?? 0);
}
