/**
 * The pods of the columns in view, and only those: fetched for the columns
 * the map draws (GET /dashboard/api/summary/pods?node=..., served from the
 * server's by-node index) and kept live by one watch of pods from the first
 * fetch's resourceVersion. An event for a column not loaded is dropped (the
 * summary counts it); one a column's fetch already contains (its
 * resourceVersion at or below the fetch's) is skipped. Columns that leave
 * the view are dropped, so memory follows the viewport, not the cluster.
 * One watch, not one per column: a browser keeps at most six HTTP/1.1
 * connections to a server, and a dozen columns' watches would take them all.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Pod } from 'kubernetes-types/core/v1';
import { ApiFailure, api, readLines, session, type WatchEvent } from './api.js';
import { podKey } from './model.js';
import { summaryQuery } from './summary.js';

export interface ColumnPods {
  /** Loaded columns' pods by key; a column absent is not loaded (yet). */
  columns: ReadonlyMap<string, { readonly pods: ReadonlyMap<string, Pod> }>; byKey(key: string): Pod | undefined; version: number; error?: ApiFailure;
}

interface Column { rv: number; pods: Map<string, Pod> }
interface Fetched { resourceVersion: string; columns: Record<string, { items: Pod[]; total: number }> }

/** Columns a fetch asks for at most (the server's limit). */
const batch = 100;

class ColumnLoader {
  readonly columns = new Map<string, Column>();
  private readonly where = new Map<string, string>();
  private wanted = new Set<string>();
  private readonly loading = new Set<string>();
  private watching = false;
  private scheduled = false;
  private readonly ctl = new AbortController();

  constructor(private readonly namespace: string | undefined, private readonly changed: () => void, private readonly failed: (f: ApiFailure) => void,
    /** Sees every pod watch event, loaded column or not (the timeline's recording). */
    private readonly tap?: (e: WatchEvent<Pod>) => void) {}

  want(cols: readonly string[]): void {
    this.wanted = new Set(cols);
    for (const name of [...this.columns.keys()]) if (!this.wanted.has(name)) this.drop(name);
    if (!this.scheduled) { this.scheduled = true; queueMicrotask(() => { this.scheduled = false; void this.fetchMissing(); }); }
    this.changed();
  }

  byKey(key: string): Pod | undefined {
    const col = this.where.get(key);
    return col === undefined ? undefined : this.columns.get(col)?.pods.get(key);
  }

  close(): void { this.ctl.abort(); }

  private drop(name: string): void {
    for (const k of this.columns.get(name)?.pods.keys() ?? []) this.where.delete(k);
    this.columns.delete(name);
  }

  private async fetchMissing(): Promise<void> {
    const missing = [...this.wanted].filter((c) => !this.columns.has(c) && !this.loading.has(c));
    for (let i = 0; i < missing.length; i += batch) {
      const cols = missing.slice(i, i + batch);
      for (const c of cols) this.loading.add(c);
      try {
        const q = [summaryQuery(this.namespace), ...cols.map((c) => `node=${encodeURIComponent(c)}`)].filter(Boolean).join('&');
        const got = await api<Fetched>(`/dashboard/api/summary/pods?${q}`, { signal: this.ctl.signal });
        this.take(got);
      } catch (err) {
        if (this.ctl.signal.aborted) return;
        this.failed(err instanceof ApiFailure ? err : new ApiFailure(0, String(err)));
      } finally {
        for (const c of cols) this.loading.delete(c);
      }
    }
  }

  private take(got: Fetched): void {
    const rv = Number(got.resourceVersion);
    for (const [name, col] of Object.entries(got.columns)) {
      if (!this.wanted.has(name)) continue;
      this.drop(name);
      this.columns.set(name, { rv, pods: new Map(col.items.map((p) => [podKey(p), p])) });
      for (const p of col.items) this.where.set(podKey(p), name);
    }
    this.changed();
    if (!this.watching) { this.watching = true; void this.watch(got.resourceVersion); }
  }

  /** Applies one pod event to the loaded columns it leaves or enters. */
  private apply(e: WatchEvent<Pod>): void {
    const pod = e.object;
    const key = podKey(pod);
    const rv = Number(pod.metadata?.resourceVersion);
    const to = pod.spec?.nodeName ?? '';
    const from = this.where.get(key);
    if (from !== undefined && (e.type === 'DELETED' || from !== to)) {
      const col = this.columns.get(from);
      if (col && rv > col.rv) { col.pods.delete(key); this.where.delete(key); }
    }
    const col = e.type === 'DELETED' ? undefined : this.columns.get(to);
    if (col && rv > col.rv) { col.pods.set(key, pod); this.where.set(key, to); }
    this.changed();
  }

  private async watch(from: string): Promise<void> {
    let rv = from;
    const path = this.namespace ? `/api/v1/namespaces/${encodeURIComponent(this.namespace)}/pods` : '/api/v1/pods';
    while (!this.ctl.signal.aborted) {
      try {
        const res = await fetch(`${path}?watch=1&allowWatchBookmarks=true&resourceVersion=${rv}`, {
          headers: { Authorization: `Bearer ${session.token ?? ''}`, Accept: 'application/json' }, credentials: 'omit', signal: this.ctl.signal,
        });
        if (!res.ok || !res.body) throw new ApiFailure(res.status, `watch ${path}: ${res.status}`);
        await readLines<WatchEvent<Pod>>(res, (e) => {
          if (e.type === 'ERROR') throw new ApiFailure((e.object as any)?.code ?? 500, (e.object as any)?.message ?? 'watch error');
          rv = e.object.metadata?.resourceVersion ?? rv;
          if (e.type !== 'BOOKMARK') { this.tap?.(e); this.apply(e); }
        });
      } catch (err) {
        if (this.ctl.signal.aborted) return;
        const f = err instanceof ApiFailure ? err : new ApiFailure(0, String(err));
        this.failed(f);
        if (f.code === 401 || f.code === 403) return;
        // Anything else (410 Gone included): fetch the columns in view again, and watch from there.
        for (const name of [...this.columns.keys()]) this.drop(name);
        this.watching = false;
        await new Promise((r) => setTimeout(r, 1000));
        void this.fetchMissing();
        return;
      }
    }
  }
}

export function useColumnPods(namespace: string | undefined, enabled: boolean, wanted: readonly string[], tap?: (e: WatchEvent<Pod>) => void): ColumnPods {
  const loader = useRef<ColumnLoader | undefined>(undefined);
  const version = useRef(0);
  const latest = useRef(wanted);
  latest.current = wanted;
  const [state, setState] = useState<{ version: number; error?: ApiFailure }>({ version: 0 });
  useEffect(() => {
    if (!enabled) return undefined;
    let queued = false;
    const changed = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => { queued = false; setState((s) => ({ ...s, version: ++version.current })); });
    };
    const l = loader.current = new ColumnLoader(namespace, changed, (error) => setState((s) => ({ ...s, error })), tap);
    l.want(latest.current);
    return () => { l.close(); if (loader.current === l) loader.current = undefined; };
  }, [namespace, enabled]);
  const key = wanted.join('\u0000');
  useEffect(() => { loader.current?.want(wanted); }, [key, loader.current]);
  const l = loader.current;
  return { columns: l?.columns ?? new Map(), byKey: (k) => l?.byKey(k), version: state.version, error: state.error };
}
