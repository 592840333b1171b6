/**
 * The server's pod summary (GET /dashboard/api/summary?watch=1): every
 * node's pods counted by owner group and state, kept live by the server's
 * NODES lines, so the page never lists every pod. Updates are published at
 * most once per animation frame. An API server without the endpoint (404,
 * e.g. `k8ts dashboard` in front of another server) makes `available` false:
 * the page then lists every pod itself, as before.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure, readLines, session } from './api.js';
import type { OwnerKind, PodState, StateCounts } from './model.js';
import type { PodTotals } from '../../src/api/pod-tally.js';

export interface GroupSummary { kind: OwnerKind; namespace: string; name: string; counts: StateCounts }

export interface Summary {
  /** Groups by node ('' for pods no node has yet). */
  nodes: ReadonlyMap<string, GroupSummary[]>; version: number; available?: boolean; error?: ApiFailure; resourceVersion?: string;
  /** Every pod the user sees, counted by owner kind and phase by the server (the header strip). */
  totals?: PodTotals;
}

interface WireGroup { kind: OwnerKind; namespace: string; name: string; counts: number[] }
type Line = { type: 'SNAPSHOT'; object: { resourceVersion: string; states: PodState[]; totals?: PodTotals; nodes: Record<string, WireGroup[]> } }
  | { type: 'NODES'; object: { resourceVersion: string; totals?: PodTotals; nodes: Record<string, WireGroup[]> } };

export const summaryQuery = (namespace?: string) => (namespace ? `namespace=${encodeURIComponent(namespace)}` : '');


export function useSummary(namespace: string | undefined, enabled: boolean): Summary {
  const nodes = useRef(new Map<string, GroupSummary[]>());
  const version = useRef(0);
  const [state, setState] = useState<Summary>({ nodes: nodes.current, version: 0 });
  useEffect(() => {
    if (!enabled) return undefined;
    const ctl = new AbortController();
    let states: PodState[] = [];
    let rv = '';
    let totals: PodTotals | undefined;
    let queued = false;
    const publish = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => { queued = false; if (!ctl.signal.aborted) setState({ nodes: nodes.current, version: ++version.current, available: true, resourceVersion: rv, totals }); });
    };
    const toGroups = (gs: WireGroup[]) => gs.map((g) => ({ ...g, counts: Object.fromEntries(states.map((s, i) => [s, g.counts[i] ?? 0])) as StateCounts }));
    const apply = (l: Line) => {
      rv = l.object.resourceVersion;
      totals = l.object.totals ?? totals;
      if (l.type === 'SNAPSHOT') { states = l.object.states; nodes.current = new Map(); }
      for (const [n, gs] of Object.entries(l.object.nodes)) if (gs.length) nodes.current.set(n, toGroups(gs)); else nodes.current.delete(n);
      publish();
    };
    (async () => {
      while (!ctl.signal.aborted) {
        try {
          const q = summaryQuery(namespace);
          const res = await fetch(`/dashboard/api/summary?watch=1${q ? `&${q}` : ''}`, {
            headers: { Authorization: `Bearer ${session.token ?? ''}`, Accept: 'application/json' }, credentials: 'omit', signal: ctl.signal,
          });
          if (res.status === 404) { setState((s) => ({ ...s, available: false })); return; }
          if (!res.ok || !res.body) {
            const body = await res.json().catch(() => undefined);
            throw new ApiFailure(res.status, body?.message ?? `summary: ${res.status}`, body?.reason);
          }
          await readLines<Line>(res, apply);
        } catch (err) {
          if (ctl.signal.aborted) return;
          const f = err instanceof ApiFailure ? err : new ApiFailure(0, String(err));
          setState((s) => ({ ...s, error: f }));
          if (f.code === 401 || f.code === 403) return;
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
    })();
    return () => ctl.abort();
  }, [namespace, enabled]);
  return state;
}
