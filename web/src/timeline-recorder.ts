/**
 * The page's recording, from the moment it loads: the map's pod and node
 * lists and watches (tapped) and its own list + watch of Events (in the
 * scope RBAC allows), kept as
 * - the timeline: Events as the server stores them, and what the page saw
 *   change in its pod and node watches, one stream in arrival order;
 * - the replay: the pod and node watch events themselves (objects slimmed
 *   to what the map draws), on top of a base state, so the map at any point
 *   since the page loaded can be rebuilt.
 * Both are rings: when full, the oldest timeline entry is dropped, and the
 * oldest watch event is folded into the base state, so memory stays bounded.
 */
import type { Event as CoreEvent, Node, Pod } from 'kubernetes-types/core/v1';
import type { Event as EventsV1Event } from 'kubernetes-types/events/v1';
import { api, canI, listWatch, type ApiFailure, type Meta, type WatchEvent, type Watching } from './api.js';
import type { CollectionTap } from './use-collection.js';
import { eventEntry, nodeChanges, podChanges, Ring, slimNode, slimPod, type EntryDraft, type TimelineEntry } from './timeline-model.js';

/** Timeline entries kept (the newest), and Events listed when the Timeline is shown (those not seen live, in time order). */
export const entryCapacity = 5_000;
/** Pod and node watch events kept for replay. */
export const changeCapacity = 20_000;
const historyCapacity = 1_000;

export interface Change { seq: number; at: number; kind: 'Pod' | 'Node'; key: string; object?: Pod | Node }

/** listPods: when the map watches pods without listing them all (the summary), the recording lists them once itself for its starting state. */
export interface RecorderScope {
  listPods?: string;
  /** The starting list waits (a large cluster): pod events before it are not recorded (they would read as creations). */
  deferPods?: boolean;
}

const keyOf = (o: { metadata?: Meta }) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

export class Recorder {
  /** Events that existed when the page loaded, oldest first. */
  history: TimelineEntry[] = [];
  readonly entries = new Ring<TimelineEntry>(entryCapacity);
  readonly changes = new Ring<Change>(changeCapacity);
  /** The state before the oldest change kept: the lists at load, plus every change dropped from the ring since. */
  readonly basePods = new Map<string, Pod>();
  readonly baseNodes = new Map<string, Node>();
  /** The state now (the newest change applied). */
  private readonly pods = new Map<string, Pod>();
  private readonly nodes = new Map<string, Node>();
  /** Dropped changes so far: the slider's lowest point is the first seq kept. */
  dropped = { entries: 0, changes: 0 };
  errors: string[] = [];
  /** When the recording began (the page's lists). */
  readonly since = Date.now();
  private changeSeq = 0;
  private entrySeq = 0;
  private listeners = new Set<() => void>();
  private pending = false;
  private listed = { pods: false, nodes: false };

  get firstChangeSeq(): number { return this.changes.length ? this.changes.at(0).seq : this.changeSeq; }
  get nextSeq(): number { return this.changeSeq; }
  /** When the page received change `seq` (a kept one: firstChangeSeq <= seq < nextSeq). */
  changeTime(seq: number): number { return this.changes.at(seq - this.firstChangeSeq).at; }

  /** Fed by the map's own pod and node watches (use-collection's tap): one watch per resource, however many views use it. */
  readonly podTap: CollectionTap<Pod> = {
    list: (l) => this.relist('Pod', l.map(slimPod)),
    event: (e) => {
      // While our own list is on its way, events wait; after it, one the list already contains (resourceVersion at or below it) is skipped.
      if (this.podsWaiting) { this.podsWaiting.push(e); return; }
      if (this.podsDeferred && !this.listed.pods) return;
      if (Number(e.object.metadata?.resourceVersion) <= this.podListRv) return;
      this.watched('Pod', e.type, slimPod(e.object));
    },
  };
  private podListRv = 0;
  private podsDeferred = false;
  private podsWaiting: WatchEvent<Pod>[] | undefined;
  readonly nodeTap: CollectionTap<Node> = { list: (l) => this.relist('Node', l.map(slimNode)), event: (e) => this.watched('Node', e.type, slimNode(e.object)) };

  /** Pods and nodes come through the taps; Events are watched while the Timeline is shown (showEvents). */
  start(scope: RecorderScope): void {
    if (scope.deferPods) this.podsDeferred = true;
    if (scope.listPods && !this.listed.pods && !this.podsWaiting) {
      this.podsWaiting = [];
      api<{ items: Pod[]; metadata: { resourceVersion?: string } }>(scope.listPods).then((l) => {
        this.podListRv = Number(l.metadata.resourceVersion) || 0;
        this.relist('Pod', l.items.map(slimPod));
      }, this.failed).finally(() => {
        const waiting = this.podsWaiting ?? [];
        this.podsWaiting = undefined;
        for (const e of waiting) this.podTap.event(e);
      });
    }
  }

  /** `f` runs (at most once an animation frame) after the recording changed. */
  subscribe(f: () => void): () => void { this.listeners.add(f); return () => this.listeners.delete(f); }

  /** The map as it was after every change before `seq` (firstChangeSeq: the base; nextSeq: now, the live maps themselves, not copied). */
  stateAt(seq: number): { pods: ReadonlyMap<string, Pod>; nodes: ReadonlyMap<string, Node> } {
    if (seq >= this.changeSeq) return { pods: this.pods, nodes: this.nodes };
    const pods = new Map(this.basePods);
    const nodes = new Map(this.baseNodes);
    for (let i = 0; i < this.changes.length; i++) {
      const c = this.changes.at(i);
      if (c.seq >= seq) break;
      apply(c.kind === 'Pod' ? pods : nodes, c);
    }
    return { pods, nodes };
  }

  /**
   * Watches Events (in `namespace` when the page is limited to one) until
   * the returned function is called, and only then: the Timeline view owns
   * this watch, so nothing else (the map's start, which waits for the pod
   * summary's first answer) may stop it while the view is shown. Only while
   * the Timeline is shown: a browser keeps six HTTP/1.1 connections to an
   * origin and every watch holds one, so a watch the other views do not need
   * would starve them. Events are kept by the API server (an hour by
   * default), so the list on each showing brings those that happened
   * meanwhile: they join the earlier ones, in time order, above the live lines.
   */
  showEvents(namespace: string | undefined): () => void {
    let stopped = false;
    let watching: Watching | undefined;
    void this.watchEvents(namespace).then((w) => { if (stopped) w?.close(); else watching = w; });
    return () => { stopped = true; watching?.close(); };
  }

  private readonly eventCounts = new Map<string, number>();

  /**
   * Events as the server serves them: core/v1 when RBAC allows listing them,
   * else events.k8s.io/v1 (the same objects, renamed fields).
   */
  private async watchEvents(namespace: string | undefined): Promise<Watching | undefined> {
    const ns = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
    const core = await canI('list', 'events', namespace);
    const v1 = !core && await canI('list', 'events', namespace, { group: 'events.k8s.io' });
    if (!core && !v1) { this.failed({ message: `events are forbidden: you may not list events${namespace ? ` in the namespace "${namespace}"` : ''}` } as ApiFailure); return undefined; }
    const path = core ? `/api/v1${ns}/events` : `/apis/events.k8s.io/v1${ns}/events`;
    const counts = this.eventCounts;
    return listWatch<CoreEvent | EventsV1Event>(path, (list) => {
      const unseen = list.filter((e) => !counts.has(keyOf(e))).map(eventEntry);
      if (unseen.length) {
        const all = [...this.history, ...unseen.map((e): TimelineEntry => ({ ...e, seq: -1, source: 'event' }))];
        this.history = all.sort((a, b) => a.at.localeCompare(b.at)).slice(-historyCapacity);
      }
      for (const e of list) counts.set(keyOf(e), eventEntry(e).count ?? 1);
      this.publish();
    }, (w) => {
      if (w.type === 'DELETED') return; // expired (the events TTL), not a new occurrence
      const entry = eventEntry(w.object);
      const k = keyOf(w.object);
      // A repeat bumps the count of the same Event: a new line only when the count grew.
      if (w.type === 'MODIFIED' && (entry.count ?? 1) <= (counts.get(k) ?? 0)) return;
      counts.set(k, entry.count ?? 1);
      this.add('event', entry, entry.at);
    }, this.failed);
  }

  private readonly failed = (e: ApiFailure) => { this.errors = [...this.errors.slice(-4), e.message]; this.publish(); };

  /** A list (the first, or after a watch broke): the first sets the base; a later one is diffed into changes. */
  private relist(kind: 'Pod' | 'Node', items: (Pod | Node)[]): void {
    const live: Map<string, Pod | Node> = kind === 'Pod' ? this.pods : this.nodes;
    const first = kind === 'Pod' ? !this.listed.pods : !this.listed.nodes;
    if (first) {
      if (kind === 'Pod') this.listed.pods = true; else this.listed.nodes = true;
      const base: Map<string, Pod | Node> = kind === 'Pod' ? this.basePods : this.baseNodes;
      for (const o of items) { live.set(keyOf(o), o); base.set(keyOf(o), o); }
      this.publish();
      return;
    }
    const now = new Map(items.map((o) => [keyOf(o), o]));
    for (const [k, o] of live) if (!now.has(k)) this.watched(kind, 'DELETED', o);
    for (const [k, o] of now) if (JSON.stringify(live.get(k)) !== JSON.stringify(o)) this.watched(kind, live.has(k) ? 'MODIFIED' : 'ADDED', o);
  }

  private watched(kind: 'Pod' | 'Node', type: string, object: Pod | Node): void {
    const live: Map<string, Pod | Node> = kind === 'Pod' ? this.pods : this.nodes;
    const key = keyOf(object);
    const before = live.get(key);
    const after = type === 'DELETED' ? undefined : object;
    // A heartbeat or a field the map does not draw: nothing to replay (the slimmed objects are equal).
    if (before && after && JSON.stringify(before) === JSON.stringify(after)) return;
    const drafts = kind === 'Pod' ? podChanges(before as Pod | undefined, after as Pod | undefined) : nodeChanges(before as Node | undefined, after as Node | undefined);
    const now = Date.now();
    const change: Change = { seq: this.changeSeq++, at: now, kind, key, object: after };
    apply(live, change);
    const old = this.changes.push(change);
    if (old) { apply(old.kind === 'Pod' ? this.basePods : this.baseNodes, old); this.dropped.changes++; }
    for (const d of drafts) this.add('watch', d, new Date(now).toISOString());
  }

  private add(source: 'event' | 'watch', draft: EntryDraft, at: string): void {
    if (this.entries.push({ ...draft, at, source, seq: this.entrySeq++ })) this.dropped.entries++;
    this.publish();
  }

  private publish(): void {
    if (this.pending) return;
    this.pending = true;
    const run = () => { this.pending = false; for (const f of this.listeners) f(); };
    if (document.visibilityState === 'hidden') setTimeout(run, 50); else requestAnimationFrame(run);
  }
}

function apply(map: Map<string, Pod | Node>, c: Change): void {
  if (c.object) map.set(c.key, c.object); else map.delete(c.key);
}
