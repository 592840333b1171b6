/**
 * Mutating requests the server counted (its apiserver_request_total), by resource[/subresource]:
 * what a phase of a benchmark cost in writes, read from the server itself rather than from
 * the clients (controllers, scheduler and kubelets all write).
 */
import type { Clientset } from '../../src/client/index.js';

export type RequestCounts = Map<string, number>;

const mutating = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The server's /metrics text. */
export async function metricsText(clients: Clientset): Promise<string> {
  const res = await clients.rest.raw('GET', '/metrics');
  let text = '';
  for await (const c of res) text += c;
  return text;
}

export function writeCounts(clients: Clientset): Promise<RequestCounts> {
  return requestCounts(clients, { writesOnly: true });
}

/** Every request the server counted (reads too: GET, LIST, WATCH), or only the mutating ones. */
export interface CountOptions {
  writesOnly?: boolean;
  /** Keyed "VERB resource[/subresource] CODE" instead of summed over codes (which requests were answered 429). */
  byCode?: boolean;
}

export async function requestCounts(clients: Clientset, opts: CountOptions = {}): Promise<RequestCounts> {
  return parseRequestCounts(await metricsText(clients), opts);
}

/** apiserver_request_total of a /metrics text, summed over codes and scopes, by "VERB resource[/subresource]". */
export function parseRequestCounts(text: string, opts: CountOptions = {}): RequestCounts {
  const out: RequestCounts = new Map();
  for (const line of text.split('\n')) {
    const m = /^apiserver_request_total\{(.*)\} (\d+)/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (opts.writesOnly && !mutating.has(labels.verb)) continue;
    const key = `${labels.verb} ${labels.subresource ? `${labels.resource}/${labels.subresource}` : labels.resource}${opts.byCode ? ` ${labels.code}` : ''}`;
    out.set(key, (out.get(key) ?? 0) + Number(m[2]));
  }
  return out;
}

/** b - a, keys with a positive difference only. */
export function countsSince(a: RequestCounts, b: RequestCounts): RequestCounts {
  const out: RequestCounts = new Map();
  for (const [k, v] of b) if (v - (a.get(k) ?? 0) > 0) out.set(k, v - (a.get(k) ?? 0));
  return out;
}

export const countOf = (m: RequestCounts, pred: (key: string) => boolean) => [...m].filter(([k]) => pred(k)).reduce((s, [, v]) => s + v, 0);

/** "PUT leases 1,234, POST pods 5,000, ...", largest first. */
export const describeCounts = (m: RequestCounts) =>
  [...m].sort((x, y) => y[1] - x[1]).map(([k, v]) => `${k} ${v.toLocaleString('en-US')}`).join(', ');
