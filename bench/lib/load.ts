/** The workloads: concurrent pod creates, list timings, watch fan-out. */
import type { ApiClient } from './client.js';
import { daemonSetPod } from './pods.js';
import { median, msSince, percentile } from './stats.js';

export const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io';

/** The server's CPU time used so far, in ms (see readCpuMs). */
export type CpuMeter = () => number;

export interface CreateRun {
  count: number;
  concurrency: number;
  wallMs: number;
  perSec: number;
  p50: number;
  p99: number;
  /** Server CPU time per create, in µs. */
  cpuUsPerOp: number;
  /** Every request's latency, ms. */
  latencies: number[];
}

/** Several runs of one shape: median throughput and CPU, latency percentiles over all their requests. */
export interface CreateRounds extends CreateRun {
  rounds: number;
  minPerSec: number;
  maxPerSec: number;
}

export function combineRounds(runs: CreateRun[]): CreateRounds {
  const latencies = runs.flatMap((r) => r.latencies);
  const rates = runs.map((r) => r.perSec);
  return {
    count: runs.reduce((n, r) => n + r.count, 0), concurrency: runs[0]!.concurrency,
    wallMs: runs.reduce((n, r) => n + r.wallMs, 0), perSec: median(rates), minPerSec: Math.min(...rates), maxPerSec: Math.max(...rates),
    p50: percentile(latencies, 50), p99: percentile(latencies, 99), cpuUsPerOp: median(runs.map((r) => r.cpuUsPerOp)),
    latencies, rounds: runs.length,
  };
}

/** Runs `task(i)` for i in [from, from+count) with `concurrency` workers; returns each task's latency. */
export async function runConcurrent(from: number, count: number, concurrency: number, task: (i: number) => Promise<number>): Promise<{ latencies: number[]; wallMs: number }> {
  const latencies: number[] = [];
  let next = from;
  const end = from + count;
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (next < end) latencies.push(await task(next++));
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { latencies, wallMs: msSince(started) };
}

export const podName = (prefix: string, i: number) => `${prefix}-${String(i).padStart(6, '0')}`;

/** Opens `concurrency` keep-alive connections (TLS handshake, client-certificate check) before a timed run. */
export async function warmUp(client: ApiClient, namespace: string, concurrency: number): Promise<void> {
  await Promise.all(Array.from({ length: concurrency }, () => client.expect(200, 'GET', `/api/v1/namespaces/${namespace}`)));
}

/** Creates pods podName(prefix, from..from+count-1) in `namespace`, on warm connections. */
export async function createPods(client: ApiClient, cpu: CpuMeter, o: { namespace: string; prefix: string; from: number; count: number; concurrency: number }): Promise<CreateRun> {
  const path = `/api/v1/namespaces/${o.namespace}/pods`;
  await warmUp(client, o.namespace, o.concurrency);
  const cpuBefore = cpu();
  const { latencies, wallMs } = await runConcurrent(o.from, o.count, o.concurrency, async (i) => {
    const body = JSON.stringify(daemonSetPod(o.namespace, podName(o.prefix, i), `node-${i % 5000}`));
    return (await client.expect(201, 'POST', path, { body })).ms;
  });
  return {
    count: o.count, concurrency: o.concurrency, wallMs, perSec: (o.count / wallMs) * 1000,
    p50: percentile(latencies, 50), p99: percentile(latencies, 99), cpuUsPerOp: ((cpu() - cpuBefore) * 1000) / o.count, latencies,
  };
}

export interface ListTiming {
  what: string; runs: number; medianMs: number; minMs: number; maxMs: number; bytes: number; items: number;
  /** Server CPU time per run, median. */
  cpuMs: number;
}

interface ListSpec { what: string; query: string; accept?: string }

export const listSpecs: ListSpec[] = [
  { what: 'full list, JSON', query: '' },
  { what: 'full list, Table (kubectl Accept)', query: '', accept: tableAccept },
  { what: 'first page, limit=500, JSON', query: '?limit=500' },
  { what: 'first page, limit=500, Table', query: '?limit=500', accept: tableAccept },
];

/** Times one list shape `runs` times; the first run's body is parsed to check the item count. */
export async function timeList(client: ApiClient, cpu: CpuMeter, namespace: string, spec: ListSpec, runs: number): Promise<ListTiming> {
  const path = `/api/v1/namespaces/${namespace}/pods${spec.query}`;
  const times: number[] = [];
  const cpuTimes: number[] = [];
  let bytes = 0;
  let items = 0;
  for (let r = 0; r < runs; r++) {
    const cpuBefore = cpu();
    const reply = await client.expect(200, 'GET', path, { accept: spec.accept, discard: r > 0 });
    cpuTimes.push(cpu() - cpuBefore);
    if (r === 0) {
      const doc = JSON.parse(reply.body.toString('utf8'));
      items = (doc.kind === 'Table' ? doc.rows : doc.items).length;
    }
    bytes = reply.bytes;
    times.push(reply.ms);
  }
  return { what: spec.what, runs, medianMs: median(times), minMs: Math.min(...times), maxMs: Math.max(...times), bytes, items, cpuMs: median(cpuTimes) };
}

/** A paginated walk over every page with limit=500, as `kubectl get pods` does (Table). */
export async function timePaginatedWalk(client: ApiClient, cpu: CpuMeter, namespace: string, runs: number): Promise<ListTiming> {
  const times: number[] = [];
  const cpuTimes: number[] = [];
  let items = 0;
  let bytes = 0;
  for (let r = 0; r < runs; r++) {
    const started = process.hrtime.bigint();
    const cpuBefore = cpu();
    items = 0;
    bytes = 0;
    let cont: string | undefined;
    for (let page = 0; page < 10_000; page++) {
      const q = `?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`;
      const reply = await client.expect(200, 'GET', `/api/v1/namespaces/${namespace}/pods${q}`, { accept: tableAccept });
      const doc = JSON.parse(reply.body.toString('utf8'));
      items += doc.rows.length;
      bytes += reply.bytes;
      cont = doc.metadata.continue;
      if (!cont) break;
    }
    times.push(msSince(started));
    cpuTimes.push(cpu() - cpuBefore);
  }
  return {
    what: 'all pages, limit=500, Table (kubectl get pods)', runs, medianMs: median(times), minMs: Math.min(...times), maxMs: Math.max(...times),
    bytes, items, cpuMs: median(cpuTimes),
  };
}
