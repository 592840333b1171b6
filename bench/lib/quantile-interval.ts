/**
 * A distribution-free confidence interval for a percentile of latency samples (the order-statistic
 * interval): the number of samples below the true p-th percentile is Binomial(n, p/100), so the
 * sorted samples at ranks l and u with P(l <= that count < u) >= the confidence bracket it,
 * whatever the latencies' distribution, provided the samples are independent draws of it. Why the
 * bystander needs it (bench/bystander.ts): a 95% interval of a p99 from 100 GETs (a 10 s row) runs
 * from the 4th-slowest to past the slowest, i.e. it has no upper bound, and so does one from 300 (a
 * 30 s row); from 900 it runs from the 16th- to the 4th-slowest, from 1,500 from the 24th- to the
 * 8th-slowest. Nothing is dropped or trimmed: the interval says how far the figure can be trusted.
 */

export interface QuantileInterval {
  /** The nearest-rank percentile (stats.ts `percentile`). */
  value: number;
  /** Lower bound: a sample. */
  low: number;
  /** Upper bound: a sample, or Infinity when there are too few samples to bound it. */
  high: number;
}

/** Binomial(n, q)'s CDF at 0..n, each term from the previous one in log space (n up to tens of thousands). */
function binomialCdf(n: number, q: number): number[] {
  const cdf: number[] = [];
  let logPmf = n * Math.log1p(-q); // P(count = 0)
  let sum = 0;
  for (let i = 0; i <= n; i++) {
    if (i > 0) logPmf += Math.log(n - i + 1) - Math.log(i) + Math.log(q) - Math.log1p(-q);
    sum += Math.exp(logPmf);
    cdf.push(Math.min(1, sum));
  }
  return cdf;
}

/**
 * The 1-based ranks (l, u) of the interval: l the largest with P(count < l) <= alpha/2, u the
 * smallest with P(count < u) >= 1 - alpha/2; u > n means no sample bounds it from above.
 */
export function quantileRanks(n: number, p: number, confidence: number): { l: number; u: number } {
  const cdf = binomialCdf(n, p / 100);
  const tail = (1 - confidence) / 2;
  let l = 0;
  while (l + 1 <= n && cdf[l]! <= tail) l++;
  let u = 1;
  while (u <= n && cdf[u - 1]! < 1 - tail) u++;
  return { l, u };
}

/** The p-th percentile of `samples` with its distribution-free interval at `confidence`. */
export function percentileInterval(samples: readonly number[], p: number, confidence = 0.95): QuantileInterval {
  const sorted = [...samples].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return { value: NaN, low: NaN, high: NaN };
  const { l, u } = quantileRanks(n, p, confidence);
  const rank = Math.min(n, Math.max(1, Math.ceil((p / 100) * n)));
  return { value: sorted[rank - 1]!, low: l >= 1 ? sorted[l - 1]! : -Infinity, high: u <= n ? sorted[u - 1]! : Infinity };
}

/**
 * The ratio of two percentiles with an interval from theirs: [a.low / b.high, a.high / b.low].
 * Each side at 97.5% gives the ratio at least 95% (the two can fail together at most 2.5% + 2.5%).
 */
export function ratioInterval(a: readonly number[], b: readonly number[], p: number): QuantileInterval {
  const x = percentileInterval(a, p, 0.975);
  const y = percentileInterval(b, p, 0.975);
  return { value: x.value / y.value, low: x.low / y.high, high: y.low > 0 ? x.high / y.low : Infinity };
}
