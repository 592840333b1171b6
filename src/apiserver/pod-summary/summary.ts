/**
 * The dashboard's pod summary: every pod's card state and owner group,
 * counted per node ('' for pods no node has yet), kept current from the
 * pods' watch cache (a watch from resourceVersion 0, as the API server's
 * listers are fed), so a summary costs no storage read and no list of every
 * pod. It also indexes the pods by node, so the page can fetch the pods of
 * the columns it shows without a scan of all pods.
 *
 * Contract:
 *  - Started on first use (no cost while nobody opens the dashboard); a
 *    watch that ends is opened again after RelistBackoff's delay, the replay
 *    filling a fresh index that replaces the old one whole; subscribers are
 *    then told `reset` (their next answer is a whole snapshot).
 *  - Objects are the store's decoded objects, shared: never mutated here.
 *  - `revision` is the resourceVersion everything counted is current to:
 *    a pods watch from it misses nothing and repeats nothing.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Store, Watch } from '../../registry/store.js';
import type { WatchEventOut } from '../../registry/types.js';
import type { Logger } from '../../util/log.js';
import { RelistBackoff } from '../../util/relist-backoff.js';
import { ownerOf, podState, podStates, type OwnerKind } from '../../api/pod-card.js';
import { PodTally, tallyKey, type PodTotals, type TallyKey } from '../../api/pod-tally.js';

export interface GroupCount { kind: OwnerKind; namespace: string; name: string; counts: number[] }

interface Entry { pod: Pod; node: string; group: string; state: number; tally: TallyKey }

/** One node's column: its owner groups' counts and its pods' keys (namespace/name). */
class Column {
  readonly groups = new Map<string, GroupCount>();
  readonly keys = new Set<string>();
  /**
   * The groups' JSON (all namespaces), made at the first snapshot after a change: a snapshot of
   * 5,000 columns then joins 5,000 strings instead of serializing every group again.
   */
  json?: string;
}

/** The counts and the by-node index of one replay and the events after it. */
class Index {
  readonly pods = new Map<string, Entry>();
  readonly columns = new Map<string, Column>();
  /** Cluster-wide counts by owner kind and phase, per namespace (the header strip's), kept with the columns. */
  readonly tallies = new Map<string, PodTally>();

  /** Applies one event; returns the entries it changed (before and after), for subscribers. */
  apply(ev: WatchEventOut): Entry[] {
    const pod = ev.object as Pod;
    const key = `${pod?.metadata?.namespace ?? ''}/${pod?.metadata?.name ?? ''}`;
    if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED' && ev.type !== 'DELETED') return [];
    const before = this.pods.get(key);
    if (before) this.remove(key, before);
    if (ev.type === 'DELETED') return before ? [before] : [];
    const o = ownerOf(pod);
    const ns = pod.metadata?.namespace ?? '';
    const entry: Entry = { pod, node: pod.spec?.nodeName ?? '', group: `${o.kind}/${ns}/${o.name}`, state: podStates.indexOf(podState(pod)), tally: tallyKey(pod, o.kind) };
    this.pods.set(key, entry);
    let col = this.columns.get(entry.node);
    if (!col) this.columns.set(entry.node, col = new Column());
    col.keys.add(key);
    col.json = undefined;
    let t = this.tallies.get(ns);
    if (!t) this.tallies.set(ns, t = new PodTally());
    t.add(entry.tally);
    let g = col.groups.get(entry.group);
    if (!g) col.groups.set(entry.group, g = { kind: o.kind, namespace: ns, name: o.name, counts: podStates.map(() => 0) });
    g.counts[entry.state]++;
    return before ? [before, entry] : [entry];
  }

  private remove(key: string, e: Entry): void {
    this.pods.delete(key);
    const col = this.columns.get(e.node)!;
    col.keys.delete(key);
    col.json = undefined;
    const ns = e.pod.metadata?.namespace ?? '';
    const t = this.tallies.get(ns)!;
    t.remove(e.tally);
    if (t.pods === 0) this.tallies.delete(ns);
    const g = col.groups.get(e.group)!;
    if (--g.counts[e.state] === 0 && g.counts.every((c) => c === 0)) col.groups.delete(e.group);
    if (col.keys.size === 0) this.columns.delete(e.node);
  }
}

export type SummaryChange = { nodes: Set<string> } | 'reset';

interface Subscriber { namespace?: string; onChange(c: SummaryChange): void }

export class PodSummary {
  private index = new Index();
  private watch?: Watch;
  private started?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private lastRevision = 0;
  private changes = 0;
  private readonly backoff = new RelistBackoff();
  private readonly subscribers = new Set<Subscriber>();

  constructor(private readonly pods: () => Store | undefined, private readonly logger?: Logger) {}

  /** Resolves once the pods have been counted (the first call starts the watch). */
  ready(): Promise<void> {
    return this.started ??= this.open().catch((err) => { this.started = undefined; throw err; });
  }

  /** Changes whenever any count or column may have (an event applied, an index replaced): what a cached answer is keyed by. */
  get generation(): number { return this.changes; }

  get revision(): number { return Math.max(this.lastRevision, this.watch?.startRevision ?? 0, this.watch?.progress?.() ?? 0); }

  /** Every node's groups (only `namespace`'s pods when given); nodes without such pods are left out. */
  nodes(namespace?: string, only?: Iterable<string>): Record<string, GroupCount[]> {
    const out: Record<string, GroupCount[]> = {};
    const names = only ?? this.index.columns.keys();
    for (const node of names) {
      const col = this.index.columns.get(node);
      const groups = col ? [...col.groups.values()].filter((g) => namespace === undefined || g.namespace === namespace) : [];
      if (groups.length || only) out[node] = groups;
    }
    return out;
  }

  /** The pods of one column (node, '' for pending), in key order, at most `limit`; and how many there are. */
  podsOn(node: string, namespace: string | undefined, limit: number): { items: Pod[]; total: number } {
    const keys = [...(this.index.columns.get(node)?.keys ?? [])].filter((k) => namespace === undefined || k.startsWith(`${namespace}/`)).sort();
    return { items: keys.slice(0, limit).map((k) => this.index.pods.get(k)!.pod), total: keys.length };
  }

  /**
   * nodes(namespace, only) as JSON text. For all namespaces each column's text is kept until the
   * column changes, so a snapshot at 5,000 nodes costs a join, not a serialization of every group.
   */
  nodesJSON(namespace?: string, only?: Iterable<string>): string {
    if (namespace !== undefined) return JSON.stringify(this.nodes(namespace, only));
    const parts: string[] = [];
    for (const node of only ?? this.index.columns.keys()) {
      const col = this.index.columns.get(node);
      const json = col ? col.json ??= JSON.stringify([...col.groups.values()]) : '[]';
      parts.push(`${JSON.stringify(node)}:${json}`);
    }
    return `{${parts.join(',')}}`;
  }

  /** Counts by owner kind and phase, of every pod or of `namespace`'s: kept current by the watch, so no pod is scanned. */
  totals(namespace?: string): PodTotals {
    if (namespace !== undefined) return (this.index.tallies.get(namespace) ?? new PodTally()).totals();
    const all = new PodTally();
    for (const t of this.index.tallies.values()) all.addAll(t);
    return all.totals();
  }

  /** Tells `onChange` which nodes' counts (for `namespace`, when given) changed, after each event. */
  subscribe(namespace: string | undefined, onChange: (c: SummaryChange) => void): () => void {
    const s: Subscriber = { namespace, onChange };
    this.subscribers.add(s);
    return () => { this.subscribers.delete(s); };
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.watch?.close();
    this.subscribers.clear();
  }

  private async open(): Promise<void> {
    const store = this.pods();
    if (this.closed || !store) return;
    const fresh = new Index();
    let live = false;
    const w = await store.watch(undefined, { resourceVersion: '0' }, (ev) => {
      const changed = fresh.apply(ev);
      this.changes++;
      const rv = Number(ev.object?.metadata?.resourceVersion);
      if (rv > this.lastRevision) this.lastRevision = rv;
      if (live) this.notify(changed);
    }, (err) => { if (live) { live = false; this.reopenLater(err); } });
    if (this.closed) { w.close(); return; }
    const reopened = this.watch !== undefined;
    this.watch = w;
    this.index = fresh;
    this.changes++;
    live = true;
    this.backoff.watching();
    if (reopened) for (const s of this.subscribers) s.onChange('reset');
  }

  private notify(changed: Entry[]): void {
    for (const s of this.subscribers) {
      const nodes = new Set<string>();
      for (const e of changed) if (s.namespace === undefined || e.pod.metadata?.namespace === s.namespace) nodes.add(e.node);
      if (nodes.size) s.onChange({ nodes });
    }
  }

  private reopenLater(err?: Error): void {
    if (this.closed) return;
    const delayMs = this.backoff.next();
    this.logger?.warn('pod summary: watch ended, counting again', { err: err?.message, delayMs });
    this.timer = setTimeout(() => { this.open().catch((e) => this.reopenLater(e)); }, delayMs);
    this.timer.unref();
  }
}
