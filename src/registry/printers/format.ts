/**
 * The string helpers upstream's printers lean on: labels.FormatLabels,
 * metav1.FormatLabelSelector, layoutContainerCells, GetAccessModesAsString.
 */
import type { LabelSelector, LabelSelectorRequirement } from 'kubernetes-types/meta/v1.js';

/** Go's sort.Strings order (bytewise; the same as UTF-16 order for label text, which is ASCII). */
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** labels.FormatLabels: `k=v` pairs sorted as strings, joined by ","; "<none>" when empty. */
export function formatLabels(labels: Record<string, string> | undefined | null): string {
  const pairs = Object.entries(labels ?? {}).map(([k, v]) => `${k}=${v}`);
  return pairs.length === 0 ? '<none>' : pairs.sort(byCodeUnit).join(',');
}

function requirementString(key: string, op: string, values: string[]): string | undefined {
  const sorted = [...values].sort(byCodeUnit).join(',');
  switch (op) {
    case '=': return `${key}=${values[0] ?? ''}`;
    case 'In': return `${key} in (${sorted})`;
    case 'NotIn': return `${key} notin (${sorted})`;
    case 'Exists': return key;
    case 'DoesNotExist': return `!${key}`;
    default: return undefined;
  }
}

/**
 * metav1.LabelSelectorAsSelector(sel).String(): requirements sorted by key
 * (matchLabels as `k=v`, expressions as `k in (a,b)`, `k notin (a)`, `k`, `!k`).
 * A nil selector selects nothing and an empty one everything; both print "".
 * Returns undefined where upstream returns an error (an unknown operator).
 */
export function labelSelectorString(sel: LabelSelector | undefined | null): string | undefined {
  if (!sel) return '';
  const reqs: { key: string; text: string | undefined }[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) reqs.push({ key: k, text: requirementString(k, '=', [v]) });
  for (const e of sel.matchExpressions ?? ([] as LabelSelectorRequirement[])) {
    reqs.push({ key: e.key, text: requirementString(e.key, e.operator, e.values ?? []) });
  }
  if (reqs.some((r) => r.text === undefined)) return undefined;
  return reqs.sort((a, b) => byCodeUnit(a.key, b.key)).map((r) => r.text).join(',');
}

/** metav1.FormatLabelSelector: the selector string, "<none>" when empty, "<error>" when invalid. */
export function formatLabelSelector(sel: LabelSelector | undefined | null): string {
  const s = labelSelectorString(sel);
  if (s === undefined) return '<error>';
  return s === '' ? '<none>' : s;
}

/** layoutContainerCells: container names and images, each joined by ",". */
export function layoutContainerCells(containers: { name?: string; image?: string }[] | undefined): [string, string] {
  const list = containers ?? [];
  return [list.map((c) => c.name ?? '').join(','), list.map((c) => c.image ?? '').join(',')];
}

/** helper.GetAccessModesAsString: always in the order RWO,ROX,RWX,RWOP, duplicates dropped. */
export function accessModesAsString(modes: string[] | undefined): string {
  const set = new Set(modes ?? []);
  const order: [string, string][] = [
    ['ReadWriteOnce', 'RWO'], ['ReadOnlyMany', 'ROX'], ['ReadWriteMany', 'RWX'], ['ReadWriteOncePod', 'RWOP'],
  ];
  return order.filter(([mode]) => set.has(mode)).map(([, short]) => short).join(',');
}

/** net.JoinHostPort: IPv6 hosts go in brackets. */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The number of keys of an optional map (len() of a nil Go map is 0). */
export const countKeys = (m: Record<string, unknown> | undefined | null): number => Object.keys(m ?? {}).length;
