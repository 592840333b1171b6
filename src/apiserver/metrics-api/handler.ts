/**
 * GET /apis/metrics.k8s.io/v1beta1/{nodes,pods}[/name] and the namespaced
 * pods list, answered as metrics-server's storage does:
 *
 *  1. The objects come from the API (nodes, pods) with the request's label
 *     and field selectors; each gets the usage its kubelet's summary reports
 *     (scraper.ts, convert.ts), and one without usage is left out of a list.
 *  2. A get of an object without usage, or of one that does not exist, is
 *     404 `nodemetrics.metrics.k8s.io "x" not found` (podmetrics for pods);
 *     kubectl top turns that into "metrics not available yet".
 *  3. Only get and list: a watch or a write is 405.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { methodNotAllowed, notFound, pageNotFound, StatusError } from '../../api/status.js';
import type { PodStats, Summary } from '../../api/stats-summary.js';
import type { Registry } from '../../registry/registry.js';
import type { RequestInfo } from '../request-info.js';
import { writeJSON } from '../respond.js';
import { apiVersion, nodeMetricsOf, podMetricsOf, type ConvertOptions } from './convert.js';
import { metricsGroup, metricsResources } from './resources.js';
import type { SummaryScraper } from './scraper.js';

export interface MetricsRequest {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  info: RequestInfo;
  registry: Registry;
  scraper: SummaryScraper;
  now: Date;
}

/** The interval usageNanoCores covers: the kubelet's sampling period (stats/provider.ts). */
export const metricsWindow = '10s';

const isNotFoundError = (e: unknown) => e instanceof StatusError && e.status.code === 404;

export async function handleMetrics(r: MetricsRequest): Promise<void> {
  const { info } = r;
  r.req.resume();
  const resource = metricsResources.find((x) => x.version === info.version && x.plural === info.resource);
  if (!resource || info.subresource || (info.namespace !== undefined && !resource.namespaced)) throw pageNotFound();
  if (info.verb !== 'get' && info.verb !== 'list') throw methodNotAllowed();
  const summaries = await r.scraper.summaries();
  const o: ConvertOptions = { now: r.now, window: metricsWindow };
  const items = resource.plural === 'nodes' ? await nodeItems(r, summaries, o) : await podItems(r, summaries, o);
  if (info.verb === 'get') return writeJSON(r.res, 200, items[0]);
  writeJSON(r.res, 200, { kind: `${resource.kind}List`, apiVersion, metadata: {}, items });
}

async function objects<T>(r: MetricsRequest, plural: 'nodes' | 'pods', kind: string): Promise<T[]> {
  const store = r.registry.store('', 'v1', plural)!;
  if (r.info.verb === 'get') {
    try {
      return [await store.get(r.info.namespace, r.info.name!)];
    } catch (e) {
      if (isNotFoundError(e)) throw notFound({ group: metricsGroup, resource: kind }, r.info.name!);
      throw e;
    }
  }
  const q = (k: string) => r.url.searchParams.get(k) ?? undefined;
  return (await store.list(r.info.namespace, { labelSelector: q('labelSelector'), fieldSelector: q('fieldSelector') })).items as T[];
}

function measured<T>(r: MetricsRequest, kind: string, items: (T | undefined)[]): T[] {
  const out = items.filter((i): i is T => !!i);
  if (r.info.verb === 'get' && !out.length) throw notFound({ group: metricsGroup, resource: kind }, r.info.name!);
  return out;
}

async function nodeItems(r: MetricsRequest, summaries: Map<string, Summary>, o: ConvertOptions) {
  const nodes = await objects<Node>(r, 'nodes', 'nodemetrics');
  return measured(r, 'nodemetrics', nodes.map((n) => {
    const s = summaries.get(n.metadata!.name!);
    return s && nodeMetricsOf(n, s, o);
  }));
}

async function podItems(r: MetricsRequest, summaries: Map<string, Summary>, o: ConvertOptions) {
  const pods = await objects<Pod>(r, 'pods', 'podmetrics');
  const byName = new Map<string, PodStats>();
  for (const s of summaries.values()) for (const p of s.pods) byName.set(`${p.podRef.namespace}/${p.podRef.name}`, p);
  return measured(r, 'podmetrics', pods.map((p) => {
    const ps = byName.get(`${p.metadata!.namespace}/${p.metadata!.name}`);
    return ps && podMetricsOf(p, ps, o);
  }));
}
