/**
 * The table for kinds without a printer: apiserver's rest.DefaultTableConvertor
 * (k8s.io/apiserver pkg/registry/rest/table.go), which kube-apiserver uses for
 * built-in kinds such as ClusterRole. Its columns are NAME and "Created At", a
 * `date` cell holding creationTimestamp in RFC 3339 UTC, so kubectl prints
 * `NAME   CREATED AT`. (CRDs, by contrast, get NAME AGE from their own convertor.)
 */
import { docColumn, nameColumn } from './columns.js';
import { parseTime } from './duration.js';
import type { KindPrinter, TableRow } from './types.js';

/** time.Time{}.UTC().Format(time.RFC3339) for the zero time. */
const ZERO_TIME_RFC3339 = '0001-01-01T00:00:00Z';

/** RFC 3339 in UTC to whole seconds, as Go's time.RFC3339 layout writes it. */
export function rfc3339(ts: unknown): string {
  const ms = parseTime(ts);
  if (ms === undefined) return ZERO_TIME_RFC3339;
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export const defaultPrinter: KindPrinter = {
  columns: [nameColumn(), docColumn('Created At', 'metav1.ObjectMeta.creationTimestamp', { type: 'date' })],
  row(obj: { metadata?: { name?: string; creationTimestamp?: string } }): TableRow {
    return { cells: [obj.metadata?.name ?? '', rfc3339(obj.metadata?.creationTimestamp)] };
  },
};
