/** Small statistics over latency samples (milliseconds). */

/** Nearest-rank percentile: the smallest sample with at least p% of the samples at or below it. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

export const median = (samples: readonly number[]) => percentile(samples, 50);

export const msSince = (startNs: bigint) => Number(process.hrtime.bigint() - startNs) / 1e6;

export const fmtMs = (ms: number) => (Number.isNaN(ms) ? 'n/a' : ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`);

export const fmtMB = (kB: number) => `${(kB / 1024).toFixed(0)} MB`;

export const fmtRate = (perSec: number) => perSec.toLocaleString('en-US', { maximumFractionDigits: 0 });
