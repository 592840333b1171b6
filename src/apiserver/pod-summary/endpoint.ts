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
 * continues them exactly. Authentication, impersonation and authorization are
 * the API server's own, with the request taken as the list (or watch) of pods
 * in NS, or in all namespaces, that it stands for: RBAC decides exactly as for
 * that list, and a refusal is the list's 403 in the API's words.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest } from '../../api/status.js';
import { writeJSON } from '../respond.js';
import { podStates } from '../../api/pod-card.js';
import type { PodSummary } from './summary.js';

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
      if (url.pathname === podsPath) return servePods(summary, res, namespace, url.searchParams.getAll('node'));
      if (!isTrue(url.searchParams.get('watch'))) return writeJSON(res, 200, snapshot(summary, namespace));
      streamSummary(summary, req, res, namespace);
    },
    close: () => summary.close(),
  };
}

const snapshot = (summary: PodSummary, namespace: string | undefined) =>
  ({ kind: 'PodSummary', resourceVersion: String(summary.revision), states: podStates, nodes: summary.nodes(namespace) });

function servePods(summary: PodSummary, res: ServerResponse, namespace: string | undefined, nodes: string[]): void {
  if (nodes.length === 0) throw badRequest('at least one node parameter is required');
  if (nodes.length > maxColumns) throw badRequest(`at most ${maxColumns} node parameters are allowed`);
  const columns: Record<string, { items: unknown[]; total: number }> = {};
  for (const node of new Set(nodes)) columns[node] = summary.podsOn(node, namespace, columnLimit);
  writeJSON(res, 200, { kind: 'PodColumns', resourceVersion: String(summary.revision), columns });
}

/** A snapshot, then the changed nodes' groups, coalesced: a burst of events costs one line per `flushMs`. */
function streamSummary(summary: PodSummary, req: IncomingMessage, res: ServerResponse, namespace: string | undefined): void {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.write(`${JSON.stringify({ type: 'SNAPSHOT', object: snapshot(summary, namespace) })}\n`);
  let dirty = new Set<string>();
  let reset = false;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    const line = reset
      ? { type: 'SNAPSHOT', object: snapshot(summary, namespace) }
      : { type: 'NODES', object: { resourceVersion: String(summary.revision), nodes: summary.nodes(namespace, dirty) } };
    dirty = new Set();
    reset = false;
    res.write(`${JSON.stringify(line)}\n`);
  };
  const unsubscribe = summary.subscribe(namespace, (c) => {
    if (c === 'reset') reset = true; else for (const n of c.nodes) dirty.add(n);
    timer ??= setTimeout(flush, flushMs);
  });
  const end = () => { unsubscribe(); if (timer) clearTimeout(timer); };
  res.on('close', end);
  req.on('close', end);
}
