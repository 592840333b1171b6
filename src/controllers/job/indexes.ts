/**
 * Completion indexes of Indexed Jobs (upstream pkg/controller/job/indexed_job_utils.go):
 * the index a pod carries, and the interval lists of status.completedIndexes
 * and status.failedIndexes ("1,3-5,7").
 */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
export const completionIndexAnnotation = 'batch.kubernetes.io/job-completion-index';
export const indexFailureCountAnnotation = 'batch.kubernetes.io/job-index-failure-count';
export const indexIgnoredFailureCountAnnotation = 'batch.kubernetes.io/job-index-ignored-failure-count';

/** A pod or a pod template: the annotations and labels are what count. */
type Meta = { metadata?: ObjectMeta };

/** The pod's completion index (annotation, else label), or undefined when missing or outside [0, completions). */
export function podIndex(pod: Meta | undefined, completions: number): number | undefined {
  const text = pod?.metadata?.annotations?.[completionIndexAnnotation] ?? pod?.metadata?.labels?.[completionIndexAnnotation];
  if (typeof text !== 'string' || !/^(0|[1-9][0-9]*)$/.test(text)) return undefined;
  const i = Number(text);
  return i < completions ? i : undefined;
}

/** Parses "1,3-5" into a sorted set of indexes below `completions`; malformed parts are skipped. */
export function parseIndexes(text: string | undefined | null, completions: number): Set<number> {
  const out = new Set<number>();
  for (const part of (text ?? '').split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) continue;
    const lo = Number(m[1]);
    const hi = Math.min(m[2] === undefined ? lo : Number(m[2]), completions - 1);
    for (let i = lo; i <= hi; i++) out.add(i);
  }
  return out;
}

/** Formats indexes as upstream's orderedIntervals.String: ascending, a run of three or more as "a-b", a run of two as "a,b" (the page's failedIndexes "0,1"). */
export function formatIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(j === i ? String(sorted[i]) : `${sorted[i]}${j === i + 1 ? ',' : '-'}${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** The per-index failure counts a replacement pod carries (backoffLimitPerIndex). */
export function podIndexFailureCount(pod: Meta | undefined): number {
  const n = Number(pod?.metadata?.annotations?.[indexFailureCountAnnotation] ?? 0);
  return Number.isInteger(n) && n >= 0 ? n : 0;
}

export function podIndexIgnoredFailureCount(pod: Meta | undefined): number {
  const n = Number(pod?.metadata?.annotations?.[indexIgnoredFailureCountAnnotation] ?? 0);
  return Number.isInteger(n) && n >= 0 ? n : 0;
}
