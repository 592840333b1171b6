/**
 * A counter and a histogram for what every request records, cheap to record.
 *
 * prom-client validates each label name and hashes the label set on every
 * `inc` and `observe` (about 2.5 and 1.5 µs with the request metrics' labels,
 * measured in a loop; 2.2% of the serving loop's busy time per pod create in
 * a profile, bench/RESULTS.md `percreate-2026-12-06`). Here a record is one
 * Map lookup by the label values joined in the caller's order. The counter
 * hands its sums to a prom-client Counter when it is scraped (its `collect`
 * hook); the histogram is its own registry entry and prints what prom-client's
 * does (`_bucket` with `le` first, `_sum`, `_count`). Both are bounded by the
 * number of distinct label sets, as prom-client's own series are.
 */
import type { Registry } from './prom.js';
import { Counter } from './prom.js';

type Labels<T extends string> = Record<T, string>;

/** The label values in the object's order, as one key; a value holding the separator falls back to JSON. */
export function keyOf(labels: Record<string, string>): string {
  let key = '';
  for (const k in labels) {
    const v = labels[k]!;
    if (v.includes('\x00')) return JSON.stringify(labels);
    key += v + '\x00';
  }
  return key;
}

export class BatchedCounter<T extends string> {
  private readonly pending = new Map<string, { labels: Labels<T>; n: number }>();
  readonly metric: Counter<T>;

  constructor(cfg: { name: string; help: string; labelNames: T[]; registers: Registry[] }) {
    const pending = this.pending;
    this.metric = new Counter<T>({
      ...cfg,
      collect(this: Counter<T>) {
        for (const e of pending.values()) if (e.n) { this.inc(e.labels, e.n); e.n = 0; }
      },
    });
  }

  inc(labels: Labels<T>, n = 1): void {
    const key = keyOf(labels);
    const e = this.pending.get(key);
    if (e) e.n += n;
    else this.pending.set(key, { labels: { ...labels }, n });
  }
}

interface Series<T extends string> { labels: Labels<T>; counts: number[]; sum: number; count: number }
/** One printed line, in prom-client's shape (exemplar null on buckets, undefined on _sum and _count, as its own). */
interface Sample { labels: Record<string, string | number>; sharedLabels: Record<string, string>; value: number; metricName: string; exemplar: null | undefined }

export class BatchedHistogram<T extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private series = new Map<string, Series<T>>();
  private readonly buckets: number[];

  constructor(readonly cfg: { name: string; help: string; labelNames: T[]; buckets: number[]; registers: Registry[] }) {
    this.buckets = [...cfg.buckets].sort((a, b) => a - b);
    // The registry reads name, help, type, aggregator, get() and getForPromString() of what it holds.
    for (const r of cfg.registers) r.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  get name(): string { return this.cfg.name; }
  get help(): string { return this.cfg.help; }

  observe(labels: Labels<T>, value: number): void {
    this.observeKeyed(keyOf(labels), labels, value);
  }

  /**
   * As observe, with the series' key made by the caller once for all the histograms a request
   * records (keyOf of the same label values); `labels` is read only when the series is new, so a
   * caller can pass a function and build the object only then.
   */
  observeKeyed(key: string, labels: Labels<T> | (() => Labels<T>), value: number): void {
    let s = this.series.get(key);
    if (!s) {
      const l = typeof labels === 'function' ? labels() : { ...labels };
      this.series.set(key, (s = { labels: l, counts: new Array<number>(this.buckets.length).fill(0), sum: 0, count: 0 }));
    }
    const buckets = this.buckets;
    for (let i = 0; i < buckets.length; i++) {
      if (value <= buckets[i]!) { s.counts[i]! += 1; break; }
    }
    s.sum += value;
    s.count += 1;
  }

  reset(): void { this.series = new Map(); }

  /** As prom-client's Histogram: cumulative buckets with `le`, then +Inf, _sum and _count, the series' labels shared. */
  getForPromString(): { name: string; help: string; type: string; values: Sample[]; aggregator: string } {
    const values: Sample[] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.series.values()) {
      let acc = 0;
      this.buckets.forEach((b, i) => { acc += s.counts[i]!; values.push({ labels: { le: b }, sharedLabels: s.labels, value: acc, metricName: bucket, exemplar: null }); });
      values.push({ labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: bucket, exemplar: null });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${this.name}_sum`, exemplar: undefined });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_count`, exemplar: undefined });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The JSON form (getMetricsAsJSON): each sample's labels with the series' merged in, as prom-client's splayLabels does. */
  get(): ReturnType<BatchedHistogram<T>['getForPromString']> {
    const data = this.getForPromString();
    data.values = data.values.map(({ sharedLabels, ...v }) => ({ ...v, labels: { ...v.labels, ...sharedLabels } })) as Sample[];
    return data;
  }
}
