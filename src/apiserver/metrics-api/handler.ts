/**
 * GET /apis/metrics.k8s.io/v1beta1/{nodes,pods}[/name] and the namespaced
 * pods list, answered as metrics-server's storage does:
 *
 *  1. The objects come from the API (nodes, pods) with the request's label
 *     and field selectors; each gets the usage its kubelet's summary reports
 *     (scraper.ts, convert.ts), and one without usage is left out of a list.
 *  2. Pods are those Running (metrics-server's pod informer selects
 *     status.phase=Running). A get of a node or pod it does not know is its
 *     lister's 404, `node "x" not found` (the typed lister's singular) or
 *     `pods "x" not found` (the metadata lister's resource); of one known
 *     without usage, 404 `nodemetrics.metrics.k8s.io "x" not found` or
 *     `podmetrics.metrics.k8s.io "ns/x" not found` (metrics-server's
 *     pkg/api/node.go and pod.go).
 *  3. k8ts only: when nothing is measured because the objects asked for
 *     are on simulated nodes that report no usage at all (no summary, or
 *     one without the node's usage: `k8ts sim`'s nodes serve no kubelet
 *     API), the answer is 503 saying so and how to get a real node, rather
 *     than the 404 or empty list that kubectl turns into "metrics not
 *     available yet", which would never change. The nodes of `k8ts up` and
 *     `k8ts agent` model their usage (the simulated runtime's usage.ts) and
 *     are answered as real ones: a pod just started has no CPU rate yet,
 *     and is "not available yet" as upstream.
 *  4. Only get and list: a watch or a write is 405.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { isSimulatedNode, realNodeHint } from '../../api/kubelet-endpoint.js';
import { methodNotAllowed, notFound, pageNotFound, serviceUnavailable, StatusError } from '../../api/status.js';
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

/** Rule 2: the resource metrics-server's lister names in its NotFound. */
const listerResource = { nodes: 'node', pods: 'pods' } as const;
/** Rule 2: metrics-server sees only the Running pods. */
const seen = (plural: 'nodes' | 'pods', o: Node | Pod) => plural === 'nodes' || (o as Pod).status?.phase === 'Running';

async function objects<T extends Node | Pod>(r: MetricsRequest, plural: 'nodes' | 'pods'): Promise<T[]> {
  const store = r.registry.store('', 'v1', plural)!;
  const unknown = () => notFound({ group: '', resource: listerResource[plural] }, r.info.name!);
  if (r.info.verb === 'get') {
    let o: T;
    try {
      o = await store.get(r.info.namespace, r.info.name!) as T;
    } catch (e) {
      if (isNotFoundError(e)) throw unknown();
      throw e;
    }
    if (!seen(plural, o)) throw unknown();
    return [o];
  }
  const q = (k: string) => r.url.searchParams.get(k) ?? undefined;
  const items = (await store.list(r.info.namespace, { labelSelector: q('labelSelector'), fieldSelector: q('fieldSelector') })).items as T[];
  return items.filter((o) => seen(plural, o));
}

/** The simulated nodes among `names` (the nodes asked for, or the asked pods' nodes) whose kubelet reported no usage. */
async function unmeasuredSimulated(r: MetricsRequest, names: Set<string>, summaries: Map<string, Summary>): Promise<string[]> {
  if (!names.size) return [];
  const nodes = (await r.registry.store('', 'v1', 'nodes')!.list(undefined, {})).items as Node[];
  const reports = (name: string) => summaries.get(name)?.node.memory !== undefined;
  return nodes.filter((n) => names.has(n.metadata!.name!) && isSimulatedNode(n) && !reports(n.metadata!.name!)).map((n) => n.metadata!.name!).sort();
}

/** Rule 3: 503 naming the simulated nodes when none of the objects asked for was measured. */
function simulatedNodesUnavailable(names: string[]): StatusError {
  const quoted = names.map((n) => `"${n}"`).join(', ');
  const which = names.length === 1 ? `node ${quoted} is` : `nodes ${quoted} are`;
  const s = names.length === 1 ? 's' : '';
  return serviceUnavailable(`metrics not available: ${which} simulated by k8ts and report${s} no usage (nodes of k8ts sim serve no kubelet API; those of k8ts up model usage); ${realNodeHint}`);
}

async function measured<T>(r: MetricsRequest, kind: string, items: (T | undefined)[], nodeNames: Set<string>, summaries: Map<string, Summary>): Promise<T[]> {
  const out = items.filter((i): i is T => !!i);
  if (out.length) return out;
  const simulated = await unmeasuredSimulated(r, nodeNames, summaries);
  if (simulated.length) throw simulatedNodesUnavailable(simulated);
  if (r.info.verb === 'get') throw notFound({ group: metricsGroup, resource: kind }, r.info.namespace ? `${r.info.namespace}/${r.info.name}` : r.info.name!);
  return out;
}

async function nodeItems(r: MetricsRequest, summaries: Map<string, Summary>, o: ConvertOptions) {
  const nodes = await objects<Node>(r, 'nodes');
  return measured(r, 'nodemetrics', nodes.map((n) => {
    const s = summaries.get(n.metadata!.name!);
    return s && nodeMetricsOf(n, s, o);
  }), new Set(nodes.map((n) => n.metadata!.name!)), summaries);
}

async function podItems(r: MetricsRequest, summaries: Map<string, Summary>, o: ConvertOptions) {
  const pods = await objects<Pod>(r, 'pods');
  const byName = new Map<string, PodStats>();
  for (const s of summaries.values()) for (const p of s.pods) byName.set(`${p.podRef.namespace}/${p.podRef.name}`, p);
  return measured(r, 'podmetrics', pods.map((p) => {
    const ps = byName.get(`${p.metadata!.namespace}/${p.metadata!.name}`);
    return ps && podMetricsOf(p, ps, o);
  }), new Set(pods.flatMap((p) => (p.spec?.nodeName ? [p.spec.nodeName] : []))), summaries);
}
