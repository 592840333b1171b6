/**
 * The server's request histograms read from /metrics: apiserver_request_duration_seconds and
 * upstream's SLI histogram (apiserver_request_sli_duration_seconds, without the fair queue's
 * wait) by "VERB resource[/sub]", and k8ts_request_stage_duration_seconds, where a write's time
 * went (src/apiserver/request-stages.ts), each as the difference of two scrapes.
 */
import type { Clientset } from '../../src/client/index.js';
import { metricsText } from './request-counts.js';

/** Cumulative bucket counts by upper bound, and the sum of the observed seconds. */
export interface Buckets { le: Map<number, number>; sumSec: number }
/** Per "VERB resource[/sub]" (and " stage" for the stage histogram). */
export type Histograms = Map<string, Buckets>;

/**
 * `seatWait` is apiserver_flowcontrol_request_wait_duration_seconds by "priority_level/flow_schema"
 * (" rejected" added for requests that never got a seat).
 */
export interface Scrape { duration: Histograms; sli: Histograms; stages: Histograms; seatWait: Histograms }

const labelsOf = (text: string) => Object.fromEntries([...text.matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1]!, x[2]!]));

type Labels = Record<string, string>;
const byCall = (l: Labels) => `${l.verb} ${l.subresource ? `${l.resource}/${l.subresource}` : l.resource}${l.stage ? ` ${l.stage}` : ''}`;
const byLevel = (l: Labels) => `${l.priority_level}/${l.flow_schema}${l.execute === 'false' ? ' rejected' : ''}`;

/** The series of `metric` in `text`, keyed by verb, resource and subresource (and stage when it has one), or by `keyOf`. */
export function parseHistograms(text: string, metric: string, keyOf: (l: Labels) => string = byCall): Histograms {
  const out: Histograms = new Map();
  const line = new RegExp(`^${metric}_(bucket|sum)\\{(.*)\\} ([0-9.e+-]+)`);
  for (const row of text.split('\n')) {
    const m = line.exec(row);
    if (!m) continue;
    const l = labelsOf(m[2]!);
    const key = keyOf(l);
    let h = out.get(key);
    if (!h) out.set(key, (h = { le: new Map(), sumSec: 0 }));
    if (m[1] === 'sum') h.sumSec = Number(m[3]);
    else h.le.set(l.le === '+Inf' ? Infinity : Number(l.le), Number(m[3]));
  }
  return out;
}

export async function scrape(clients: Clientset): Promise<Scrape> {
  const text = await metricsText(clients);
  return {
    duration: parseHistograms(text, 'apiserver_request_duration_seconds'),
    sli: parseHistograms(text, 'apiserver_request_sli_duration_seconds'),
    stages: parseHistograms(text, 'k8ts_request_stage_duration_seconds'),
    seatWait: parseHistograms(text, 'apiserver_flowcontrol_request_wait_duration_seconds', byLevel),
  };
}

export interface Quantile { key: string; count: number; p99UpperSec: number; overSec: number; meanSec: number }

/** Per key: calls between the scrapes, the upper bound of the bucket holding the 99th percentile, calls over `sloSec`, the mean. */
export function p99s(a: Histograms, b: Histograms, sloSec: number): Quantile[] {
  const out: Quantile[] = [];
  for (const [key, h] of b) {
    const before = a.get(key);
    const bounds = [...h.le.keys()].sort((x, y) => x - y);
    const total = (h.le.get(Infinity) ?? 0) - (before?.le.get(Infinity) ?? 0);
    if (total <= 0) continue;
    const within = (le: number) => (h.le.get(le) ?? 0) - (before?.le.get(le) ?? 0);
    const p99UpperSec = bounds.find((le) => within(le) >= total * 0.99) ?? Infinity;
    out.push({ key, count: total, p99UpperSec, overSec: total - within(sloSec), meanSec: (h.sumSec - (before?.sumSec ?? 0)) / total });
  }
  return out.sort((x, y) => y.count - x.count);
}

const stageOrder = ['quantum', 'body', 'seat', 'turn', 'handler', 'answer'];

/**
 * One line per call among `keys`: the mean milliseconds of each stage and, in brackets, the
 * calls whose stage alone took over `sloSec`; undefined when the server keeps no stages (a build
 * before them).
 */
export function describeStages(a: Scrape, b: Scrape, keys: string[], sloSec: number): string | undefined {
  const q = new Map(p99s(a.stages, b.stages, sloSec).map((x) => [x.key, x]));
  if (q.size === 0) return undefined;
  return keys.map((key) => {
    const parts = stageOrder.flatMap((stage) => {
      const s = q.get(`${key} ${stage}`);
      return s ? [`${stage} ${(s.meanSec * 1000).toFixed(1)}${s.overSec ? ` (${s.overSec.toLocaleString('en-US')})` : ''}`] : [];
    });
    return `${key}: ${parts.join(', ')}`;
  }).join('; ');
}

/** The fair queue's wait by priority level and flow schema: calls, mean ms, the p99's bucket, calls over `sloSec`. */
export function describeSeatWait(a: Scrape, b: Scrape, sloSec: number): string | undefined {
  const q = p99s(a.seatWait, b.seatWait, sloSec);
  if (q.length === 0) return undefined;
  return q.map((x) => `${x.key}: ${x.count.toLocaleString('en-US')}, mean ${(x.meanSec * 1000).toFixed(1)} ms, p99 <= ${x.p99UpperSec} s${x.overSec ? ` (${x.overSec.toLocaleString('en-US')} over ${sloSec} s)` : ''}`).join('; ');
}
