/**
 * The whole-cluster timeline's rules, as pure functions: what a pod's or a
 * node's watch event means (created, scheduled, ready, deleted; joined,
 * NotReady, tainted, removed), an Event (core/v1 or events.k8s.io/v1) as a
 * timeline entry, the slimmed objects the replay keeps, and a bounded ring.
 */
import type { Event as CoreEvent, Node, NodeCondition, Pod, PodCondition, Taint } from 'kubernetes-types/core/v1';
import type { Event as EventsV1Event } from 'kubernetes-types/events/v1';
import { taintText } from './model.js';

/**
 * One line of the timeline. `source` says who saw it: an Event a component
 * reported ('event'), or a change the page itself saw in its pod and node
 * watches ('watch').
 */
export interface TimelineEntry {
  seq: number; at: string; source: 'event' | 'watch';
  kind: string; namespace: string; name: string;
  reason: string; message: string; type: 'Normal' | 'Warning';
  count?: number; component?: string;
}

export type EntryDraft = Omit<TimelineEntry, 'seq' | 'at' | 'source'>;

const podCondition = (p: Pod | undefined, type: string): PodCondition | undefined => p?.status?.conditions?.find((c) => c.type === type);
const nodeCondition = (n: Node | undefined, type: string): NodeCondition | undefined => n?.status?.conditions?.find((c) => c.type === type);
const podIsReady = (p: Pod | undefined) => podCondition(p, 'Ready')?.status === 'True';

/**
 * What changed between two states of one pod (`before` undefined: created;
 * `after` undefined: deleted), in the order it happens to a pod: created,
 * scheduled, ready or not, terminating, finished, deleted.
 */
export function podChanges(before: Pod | undefined, after: Pod | undefined): EntryDraft[] {
  const p = (after ?? before)!;
  const at = { kind: 'Pod', namespace: p.metadata?.namespace ?? '', name: p.metadata?.name ?? '', type: 'Normal' as const };
  const out: EntryDraft[] = [];
  if (!before) out.push({ ...at, reason: 'Created', message: `pod ${at.name} created` });
  if (!after) return [...out, { ...at, reason: 'Deleted', message: `pod ${at.name} deleted${before?.spec?.nodeName ? ` from ${before.spec.nodeName}` : ''}` }];
  if (!before?.spec?.nodeName && after.spec?.nodeName) out.push({ ...at, reason: 'Scheduled', message: `bound to ${after.spec.nodeName}` });
  if (before && podIsReady(before) !== podIsReady(after)) {
    out.push(podIsReady(after) ? { ...at, reason: 'Ready', message: 'Ready condition True' } : { ...at, reason: 'NotReady', type: 'Warning', message: 'Ready condition False' });
  } else if (!before && podIsReady(after)) out.push({ ...at, reason: 'Ready', message: 'Ready condition True' });
  if (!before?.metadata?.deletionTimestamp && after.metadata?.deletionTimestamp) out.push({ ...at, reason: 'Terminating', message: 'deletion requested (graceful)' });
  const phase = after.status?.phase;
  if (phase !== before?.status?.phase && (phase === 'Succeeded' || phase === 'Failed')) {
    out.push({ ...at, reason: phase, type: phase === 'Failed' ? 'Warning' : 'Normal', message: `phase ${phase}${after.status?.reason ? `: ${after.status.reason}` : ''}` });
  }
  return out;
}

const readyText = (c: NodeCondition | undefined) => (c?.status === 'True' ? 'Ready' : c?.status === 'False' ? 'NotReady' : 'Unknown');

/** What changed on one node: joined, Ready/NotReady/Unknown, each taint added or removed, cordoned/uncordoned, removed. */
export function nodeChanges(before: Node | undefined, after: Node | undefined): EntryDraft[] {
  const n = (after ?? before)!;
  const at = { kind: 'Node', namespace: '', name: n.metadata?.name ?? '', type: 'Normal' as const };
  if (!after) return [{ ...at, reason: 'Removed', message: `node ${at.name} deleted` }];
  const out: EntryDraft[] = [];
  if (!before) out.push({ ...at, reason: 'Joined', message: `node ${at.name} registered (${readyText(nodeCondition(after, 'Ready'))})` });
  const was = readyText(nodeCondition(before, 'Ready'));
  const now = readyText(nodeCondition(after, 'Ready'));
  if (before && was !== now) {
    const c = nodeCondition(after, 'Ready');
    out.push({ ...at, reason: now, type: now === 'Ready' ? 'Normal' : 'Warning', message: `Ready condition ${c?.status ?? 'absent'}${c?.reason ? ` (${c.reason})` : ''}` });
  }
  const keys = (ts: Taint[] | undefined) => new Set((ts ?? []).map(taintText));
  const old = keys(before?.spec?.taints);
  const cur = keys(after.spec?.taints);
  for (const t of cur) if (!old.has(t)) out.push({ ...at, reason: 'Tainted', type: t.endsWith(':NoExecute') ? 'Warning' : 'Normal', message: `taint ${t} added` });
  for (const t of old) if (!cur.has(t)) out.push({ ...at, reason: 'Untainted', message: `taint ${t} removed` });
  if (before && !!before.spec?.unschedulable !== !!after.spec?.unschedulable) {
    out.push({ ...at, reason: after.spec?.unschedulable ? 'Cordoned' : 'Uncordoned', message: after.spec?.unschedulable ? 'SchedulingDisabled' : 'schedulable again' });
  }
  return out;
}

/** Either API's Event, as the fields the timeline shows (events.k8s.io renames involvedObject to regarding, message to note). */
export function eventEntry(e: CoreEvent | EventsV1Event): EntryDraft & { at: string } {
  const core = e as CoreEvent;
  const v1 = e as EventsV1Event;
  const obj = core.involvedObject ?? v1.regarding ?? {};
  return {
    kind: obj.kind ?? '', namespace: obj.namespace ?? '', name: obj.name ?? '',
    reason: e.reason ?? '', message: core.message ?? v1.note ?? '', type: e.type === 'Warning' ? 'Warning' : 'Normal',
    count: core.count ?? v1.deprecatedCount ?? v1.series?.count, component: core.source?.component || core.reportingComponent || v1.reportingController || '',
    at: eventTimeOf(e),
  };
}

/** When it happened: the last occurrence (a repeated event's lastTimestamp), else eventTime, else creation. */
export function eventTimeOf(e: CoreEvent | EventsV1Event): string {
  const core = e as CoreEvent;
  const v1 = e as EventsV1Event;
  return core.lastTimestamp ?? v1.deprecatedLastTimestamp ?? e.eventTime ?? core.firstTimestamp ?? e.metadata?.creationTimestamp ?? '';
}

/** The fields of a pod the replayed map draws (model.ts's ownerOf, podState, ordinalOf): a fraction of the object, so the recording stays small. */
export function slimPod(p: Pod): Pod {
  const m = p.metadata ?? {};
  const mirror = m.annotations?.['kubernetes.io/config.mirror'];
  const hash = m.labels?.['pod-template-hash'];
  return {
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, ownerReferences: m.ownerReferences, deletionTimestamp: m.deletionTimestamp,
      ...(hash ? { labels: { 'pod-template-hash': hash } } : {}), ...(mirror ? { annotations: { 'kubernetes.io/config.mirror': mirror } } : {}) },
    spec: { nodeName: p.spec?.nodeName, containers: [] },
    status: { phase: p.status?.phase, conditions: p.status?.conditions?.filter((c) => c.type === 'Ready') },
  };
}

/** The fields of a node the replayed map draws: name, roles, Ready, taints, cordon. */
export function slimNode(n: Node): Node {
  const labels = Object.fromEntries(Object.entries(n.metadata?.labels ?? {}).filter(([k]) => k.startsWith('node-role.kubernetes.io/')));
  return {
    metadata: { name: n.metadata?.name, uid: n.metadata?.uid, labels },
    spec: { taints: n.spec?.taints, unschedulable: n.spec?.unschedulable },
    status: { conditions: n.status?.conditions?.filter((c) => c.type === 'Ready') },
  };
}

export interface TimelineFilter { namespace: string; kind: string; name: string; source: '' | 'event' | 'watch' }

/** Namespace and kind match exactly ('' for any); name is a substring. */
export const entryMatches = (e: TimelineEntry, f: TimelineFilter) =>
  (!f.namespace || e.namespace === f.namespace) && (!f.kind || e.kind === f.kind) && (!f.name || e.name.includes(f.name)) && (!f.source || e.source === f.source);

/**
 * A ring of at most `capacity` items: pushing onto a full ring drops the
 * oldest and returns it, so what the page records stays bounded however
 * long it stays open.
 */
export class Ring<T> {
  private readonly buf: T[] = [];
  private start = 0;
  constructor(readonly capacity: number) {}
  get length() { return this.buf.length; }
  push(item: T): T | undefined {
    if (this.buf.length < this.capacity) { this.buf.push(item); return undefined; }
    const dropped = this.buf[this.start];
    this.buf[this.start] = item;
    this.start = (this.start + 1) % this.capacity;
    return dropped;
  }
  /** The i-th oldest item kept. */
  at(i: number): T { return this.buf[(this.start + i) % this.buf.length]; }
  toArray(): T[] { return [...this.buf.slice(this.start), ...this.buf.slice(0, this.start)]; }
}
