/**
 * The dashboard's read-only summary, served by the API server itself (it
 * reads the pods' watch cache, which the dashboard's own handler cannot):
 *
 *   GET /dashboard/api/summary[?namespace=NS][&watch=1]
 *     every node's pods counted by owner group and card state ('' is the
 *     pending column); with watch, one JSON object a line: a SNAPSHOT, then
 *     NODES with the changed nodes' groups (an empty list: none left), at most
 *     every `flushMs`.
 *   GET /dashboard/api/summary/pods?node=A&node=B[&namespace=NS]
 *     the pods of those columns, from the same index (no scan of all pods),
 *     at most `columnLimit` a column, with the total.
 *
 * Both carry the resourceVersion they are current to, so a pods watch from it
 * continues them exactly. The summary and its lines also carry `totals`: the
 * pods counted by owner kind and phase, cluster-wide (or in NS), from the same
 * watch-fed index (pod-tally.ts).
 *
 * Answers are gzipped when the client accepts it (the summary at 5,000 nodes
 * is ~880 KiB of JSON and ~16 KiB gzipped); a summary is made once per change
 * of the counts and namespace, text and gzip kept for the next caller, since
 * it depends on nothing else (each caller is still authorized on its own). Authentication, impersonation and authorization are
 * the API server's own, with the request taken as the list (or watch) of pods
 * in NS, or in all namespaces, that it stands for: RBAC decides exactly as for
 * that list, and a refusal is the list's 403 in the API's words.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest } from '../../api/status.js';
import { acceptsGzip, gzipLines } from '../../util/http-gzip.js';
import { writeJSONEncoded } from '../respond.js';
import { podStates } from '../../api/pod-card.js';
import type { PodSummary } from './summary.js';
import { SnapshotCache } from './snapshot-cache.js';

export const summaryPath = '/dashboard/api/summary';
const podsPath = `${summaryPath}/pods`;
/** Pods returned per column: the map draws 24 a group and counts the rest from the summary. */
const columnLimit = 500;
/** Columns per pods request: a viewport and its margins, with room to spare. */
const maxColumns = 100;
const flushMs = 100;

const isTrue = (v: string | null) => v === '1' || v === 'true';

export interface PodSummaryEndpoint {
  /** The pods list (or watch) URL a summary request stands for (what is authorized), or undefined when `url` is not one. */
  standsFor(method: string | undefined, url: URL): URL | undefined;
  serve(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
  close(): void;
}

export function podSummaryEndpoint(summary: PodSummary): PodSummaryEndpoint {
  const snapshots = new SnapshotCache(summary, (namespace) => snapshotText(summary, namespace));
  return {
    standsFor(method, url) {
      if ((method !== 'GET' && method !== 'HEAD') || (url.pathname !== summaryPath && url.pathname !== podsPath)) return undefined;
      const ns = url.searchParams.get('namespace');
      const list = new URL(ns ? `/api/v1/namespaces/${encodeURIComponent(ns)}/pods` : '/api/v1/pods', 'https://localhost');
      if (url.pathname === summaryPath && isTrue(url.searchParams.get('watch'))) list.searchParams.set('watch', 'true');
      return list;
    },
    async serve(req, res, url) {
      req.resume();
      await summary.ready();
      const namespace = url.searchParams.get('namespace') || undefined;
      const gzip = acceptsGzip(req.headers['accept-encoding']);
      if (url.pathname === podsPath) return servePods(summary, req, res, namespace, url.searchParams.getAll('node'));
      if (!isTrue(url.searchParams.get('watch'))) {
        const s = snapshots.get(namespace);
        return writeJSONEncoded(res, 200, s.text, gzip ? await s.gzip() : undefined);
      }
      streamSummary(summary, res, { namespace, gzip, snapshot: () => snapshots.get(namespace).text });
    },
    close: () => summary.close(),
  };
}

/** The summary's JSON, written as text: the nodes' part is mostly the columns' kept text (summary.nodesJSON). */
const snapshotText = (summary: PodSummary, namespace: string | undefined) =>
  `{"kind":"PodSummary","resourceVersion":${JSON.stringify(String(summary.revision))},"states":${JSON.stringify(podStates)},`
  + `"totals":${JSON.stringify(summary.totals(namespace))},"nodes":${summary.nodesJSON(namespace)}}`;

async function servePods(summary: PodSummary, req: IncomingMessage, res: ServerResponse, namespace: string | undefined, nodes: string[]): Promise<void> {
  if (nodes.length === 0) throw badRequest('at least one node parameter is required');
  if (nodes.length > maxColumns) throw badRequest(`at most ${maxColumns} node parameters are allowed`);
  const columns: Record<string, { items: unknown[]; total: number }> = {};
  for (const node of new Set(nodes)) columns[node] = summary.podsOn(node, namespace, columnLimit);
  await writeJSONEncoded(res, 200, JSON.stringify({ kind: 'PodColumns', resourceVersion: String(summary.revision), columns }), acceptsGzip(req.headers['accept-encoding']));
}

/**
 * A snapshot, then the changed nodes' groups and the new totals, coalesced: a burst of events
 * costs one line per `flushMs`. Gzipped when accepted, flushed line by line.
 */
function streamSummary(summary: PodSummary, res: ServerResponse, o: { namespace?: string; gzip: boolean; snapshot(): string }): void {
  const { namespace } = o;
  res.writeHead(200, {
    'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked',
    ...(o.gzip ? { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' } : {}),
  });
  const out = o.gzip ? gzipLines(res) : res;
  out.write(`{"type":"SNAPSHOT","object":${o.snapshot()}}\n`);
  let dirty = new Set<string>();
  let reset = false;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    const line = reset
      ? `{"type":"SNAPSHOT","object":${o.snapshot()}}`
      : `{"type":"NODES","object":{"resourceVersion":${JSON.stringify(String(summary.revision))},"totals":${JSON.stringify(summary.totals(namespace))},`
        + `"nodes":${summary.nodesJSON(namespace, dirty)}}}`;
    dirty = new Set();
    reset = false;
    out.write(`${line}\n`);
  };
  const unsubscribe = summary.subscribe(namespace, (c) => {
    if (c === 'reset') reset = true; else for (const n of c.nodes) dirty.add(n);
    timer ??= setTimeout(flush, flushMs);
  });
  const end = () => { unsubscribe(); if (timer) clearTimeout(timer); if (out !== res) out.destroy(); };
  // The response's close, not the request's: since Node 16 a request emits 'close' once its (empty)
  // body is read, which would end the stream right after its first line.
  res.on('close', end);
}
