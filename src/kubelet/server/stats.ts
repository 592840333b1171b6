/**
 * The kubelet's resource endpoints (upstream pkg/kubelet/server/stats and
 * pkg/kubelet/metrics/collectors/resource_metrics.go):
 *
 *  - GET /stats/summary: the Summary (stats/summary.ts) as JSON;
 *  - GET /metrics/resource: the same numbers in the Prometheus text format,
 *    with upstream's metric names, which metrics-server scrapes.
 * A kubelet whose host offers no summary answers both with Go's 404.
 */
import type { ServerResponse } from 'node:http';
import type { Summary } from '../../api/stats-summary.js';
import type { KubeletHost } from './host.js';
import { writeJSON, writeText } from './respond.js';

export const isStatsPath = (segs: string[]) =>
  segs.length === 2 && ((segs[0] === 'stats' && segs[1] === 'summary') || (segs[0] === 'metrics' && segs[1] === 'resource'));

export async function serveStats(host: KubeletHost, res: ServerResponse, segs: string[]): Promise<void> {
  if (!host.summary) return writeText(res, 404, '404 page not found\n');
  const summary = await host.summary();
  if (segs[0] === 'stats') return writeJSON(res, 200, summary);
  const body = resourceMetricsText(summary);
  res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

interface Family { name: string; help: string; type: 'counter' | 'gauge'; samples: string[] }

const family = (name: string, type: Family['type'], help: string): Family => ({ name, help, type, samples: [] });
const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const labelText = (labels: Record<string, string>) => {
  const keys = Object.keys(labels);
  return keys.length ? `{${keys.map((k) => `${k}="${escape(labels[k])}"`).join(',')}}` : '';
};

function add(f: Family, labels: Record<string, string>, value: number | undefined, time: string | undefined): void {
  if (value === undefined) return;
  f.samples.push(`${f.name}${labelText(labels)} ${value}${time ? ` ${Date.parse(time)}` : ''}`);
}

/** The resource metrics text: node, pod and container CPU seconds and working set, then scrape_error 0. */
export function resourceMetricsText(s: Summary): string {
  const f = {
    containerCPU: family('container_cpu_usage_seconds_total', 'counter', '[STABLE] Cumulative cpu time consumed by the container in core-seconds'),
    containerMem: family('container_memory_working_set_bytes', 'gauge', '[STABLE] Current working set of the container in bytes'),
    containerStart: family('container_start_time_seconds', 'gauge', '[STABLE] Start time of the container since unix epoch in seconds'),
    nodeCPU: family('node_cpu_usage_seconds_total', 'counter', '[STABLE] Cumulative cpu time consumed by the node in core-seconds'),
    nodeMem: family('node_memory_working_set_bytes', 'gauge', '[STABLE] Current working set of the node in bytes'),
    podCPU: family('pod_cpu_usage_seconds_total', 'counter', '[STABLE] Cumulative cpu time consumed by the pod in core-seconds'),
    podMem: family('pod_memory_working_set_bytes', 'gauge', '[STABLE] Current working set of the pod in bytes'),
  };
  const seconds = (ns: number | undefined) => (ns === undefined ? undefined : ns / 1e9);
  for (const p of s.pods) {
    const pl = { namespace: p.podRef.namespace, pod: p.podRef.name };
    for (const c of p.containers) {
      const cl = { container: c.name, ...pl };
      add(f.containerCPU, cl, seconds(c.cpu?.usageCoreNanoSeconds), c.cpu?.time);
      add(f.containerMem, cl, c.memory?.workingSetBytes, c.memory?.time);
      add(f.containerStart, cl, Date.parse(c.startTime) / 1000, undefined);
    }
    add(f.podCPU, pl, seconds(p.cpu?.usageCoreNanoSeconds), p.cpu?.time);
    add(f.podMem, pl, p.memory?.workingSetBytes, p.memory?.time);
  }
  add(f.nodeCPU, {}, seconds(s.node.cpu?.usageCoreNanoSeconds), s.node.cpu?.time);
  add(f.nodeMem, {}, s.node.memory?.workingSetBytes, s.node.memory?.time);
  const out: string[] = [];
  for (const fam of Object.values(f)) {
    if (!fam.samples.length) continue;
    out.push(`# HELP ${fam.name} ${fam.help}`, `# TYPE ${fam.name} ${fam.type}`, ...fam.samples);
  }
  out.push('# HELP scrape_error [ALPHA] 1 if there was an error while getting container metrics, 0 otherwise', '# TYPE scrape_error gauge', 'scrape_error 0');
  return `${out.join('\n')}\n`;
}
