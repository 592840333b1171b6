/**
 * What the cluster map reads, from either source: the server's summary and
 * the pods of the columns in view (the normal case), or every pod listed by
 * the page (an API server without the summary endpoint).
 */
import { useMemo } from 'preact/hooks';
import type { Pod } from 'kubernetes-types/core/v1';
import { compareGroups, countStates, groupPods, podsByNode, type PodGroup, type StateCounts } from './model.js';
import type { Summary, GroupSummary } from './summary.js';
import type { ColumnPods } from './column-pods.js';
import type { Collection } from './use-collection.js';

export interface MapData {
  /** Changes whenever anything below does. */
  version: number;
  /** Nodes that have pods ('' left out): nodes the user may not list still get a column from them. */
  podNodes: readonly string[];
  /** A column's pods, or undefined while they are not loaded. */
  pods(column: string): Pod[] | undefined;
  /** A column's groups counted by the server, or undefined when the page counts its own pods. */
  summary(column: string): GroupSummary[] | undefined;
  /** The number of pods in a column. */
  total(column: string): number;
  /** All pods the user sees. */
  allPods: number;
  pod(key: string): Pod | undefined;
}

const sum = (c: StateCounts) => Object.values(c).reduce((a, b) => a + b, 0);

export function useFullData(pods: Collection<Pod>): MapData {
  return useMemo(() => {
    const byNode = podsByNode(pods.items.values());
    return {
      version: pods.version, podNodes: [...byNode.keys()].filter((n) => n), pods: (c) => byNode.get(c) ?? [], summary: () => undefined,
      total: (c) => byNode.get(c)?.length ?? 0, allPods: pods.items.size, pod: (k) => pods.items.get(k),
    };
  }, [pods.items, pods.version]);
}

export function useSummaryData(summary: Summary, columns: ColumnPods): MapData {
  const base = useMemo(() => {
    let all = 0;
    const totals = new Map<string, number>();
    for (const [n, gs] of summary.nodes) {
      const t = gs.reduce((a, g) => a + sum(g.counts), 0);
      totals.set(n, t);
      all += t;
    }
    return { totals, all, podNodes: [...summary.nodes.keys()].filter((n) => n) };
  }, [summary.nodes, summary.version]);
  return useMemo(() => ({
    version: summary.version * 1_000_003 + columns.version, podNodes: base.podNodes, allPods: base.all,
    pods: (c) => { const m = columns.columns.get(c); return m && [...m.pods.values()]; },
    summary: (c) => summary.nodes.get(c) ?? [], total: (c) => base.totals.get(c) ?? 0, pod: (k) => columns.byKey(k),
  }), [base, columns.version, columns.columns]);
}

/** A group as the map draws it: its first cards, and how many more there are by state. */
export interface DrawnGroup extends PodGroup { more: number; moreCounts: StateCounts }

/**
 * A column's groups: the loaded pods grouped (groupPods' order), with the
 * server's counts for what is not drawn; a group the server counts but
 * whose pods are not loaded (yet) is drawn as counts only.
 */
export function drawnGroups(pods: Pod[] | undefined, summary: GroupSummary[] | undefined, cards: number): DrawnGroup[] {
  const groups = groupPods(pods ?? []);
  const byKey = new Map(groups.map((g) => [`${g.kind}/${g.namespace}/${g.name}`, g]));
  for (const s of summary ?? []) {
    if (!byKey.has(`${s.kind}/${s.namespace}/${s.name}`)) groups.push({ kind: s.kind, namespace: s.namespace, name: s.name, pods: [] });
  }
  const counted = new Map((summary ?? []).map((s) => [`${s.kind}/${s.namespace}/${s.name}`, s.counts]));
  return groups.sort(compareGroups).map((g) => {
    const shown = g.pods.slice(0, cards);
    const all = counted.get(`${g.kind}/${g.namespace}/${g.name}`) ?? countStates(g.pods);
    const drawn = countStates(shown);
    const moreCounts = Object.fromEntries(Object.entries(all).map(([k, v]) => [k, Math.max(0, v - drawn[k as keyof StateCounts])])) as StateCounts;
    return { ...g, more: sum(moreCounts), moreCounts };
  });
}
