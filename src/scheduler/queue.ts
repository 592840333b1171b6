/**
 * The scheduling queue (upstream `internal/queue/scheduling_queue.go`):
 *
 *  - activeQ: pods ready to be tried, highest spec.priority first, then the
 *    earliest added (PrioritySort);
 *  - backoffQ: pods that failed and wait out their back-off (1 s, doubling
 *    per attempt, at most 10 s) before returning to activeQ; checked every
 *    second;
 *  - unschedulable: pods no node fits. They leave only when a cluster event
 *    could help them: the plugins that rejected them (their
 *    unschedulablePlugins) are asked through their queueing hints whether the
 *    event may make the pod schedulable; a pod rejected for no plugin in
 *    particular moves on any event. A pod still backing off goes to backoffQ,
 *    else to activeQ. Pods left unschedulable for 5 minutes are moved anyway
 *    (checked every 30 s), as upstream does. A pod that no plugin in
 *    particular rejected (an error, no nodes at all) retries after its back-off.
 *  - gated pods (spec.schedulingGates) wait in unschedulable until the gates
 *    are removed.
 *
 * A pod whose scheduling attempt overlapped a move request goes to backoffQ
 * rather than unschedulable, so that the event is not lost
 * (moveRequestCycle).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Clock } from '../util/clock.js';
import type { ClusterEvent } from './framework.js';
import { metaKey } from '../client/informer.js';

export interface QueuedPodInfo {
  pod: Pod;
  readonly key: string;
  /** When the pod was last added to a queue (ms); orders activeQ and starts back-off. */
  timestamp: number;
  attempts: number;
  initialAttemptTimestamp?: number;
  /** Plugins that rejected the pod in its last attempt. */
  unschedulablePlugins: Set<string>;
  gated: boolean;
}

export type QueueingHint = (info: QueuedPodInfo, event: ClusterEvent) => boolean;

export interface SchedulingQueueOptions {
  clock: Clock;
  /** Whether an event may help a pod; defaults to "always". */
  hint?: QueueingHint;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  podMaxInUnschedulablePodsDurationMs?: number;
  backoffFlushIntervalMs?: number;
  unschedulableFlushIntervalMs?: number;
}

const podPriority = (pod: Pod): number => pod?.spec?.priority ?? 0;
const isGated = (pod: Pod) => (pod?.spec?.schedulingGates?.length ?? 0) > 0;

/** isPodUpdated: a change beyond status, resourceVersion, generation, managedFields and finalizers. */
export function isPodUpdated(oldPod: Pod, newPod: Pod): boolean {
  const strip = (p: Pod) => {
    const { resourceVersion: _rv, generation: _g, managedFields: _m, finalizers: _f, ...meta } = p?.metadata ?? {};
    return JSON.stringify({ meta, spec: p?.spec });
  };
  return strip(oldPod) !== strip(newPod);
}

/** A binary heap ordered by `less`. */
class Heap<T> {
  private readonly items: T[] = [];
  constructor(private readonly less: (a: T, b: T) => boolean) {}
  get size(): number { return this.items.length; }
  push(x: T): void {
    const a = this.items;
    a.push(x);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(a[i], a[p])) break;
      const t = a[i];
      a[i] = a[p];
      a[p] = t;
      i = p;
    }
  }
  pop(): T | undefined {
    const a = this.items;
    if (!a.length) return undefined;
    const top = a[0];
    const last = a.pop()!;
    if (a.length) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.less(a[l], a[m])) m = l;
        if (r < a.length && this.less(a[r], a[m])) m = r;
        if (m === i) break;
        const t = a[i];
        a[i] = a[m];
        a[m] = t;
        i = m;
      }
    }
    return top;
  }
}

/**
 * An activeQ entry with the sort keys it was pushed with: the pod's priority (spec.priority cannot
 * change once the pod exists) and the info's timestamp (changed only while the pod is out of
 * activeQ). A heap's order must not move under it; keeping the keys in the entry makes that hold
 * by construction, and the comparisons read no pod (bench/scheduler-queue.ts: add + pop cost about
 * 3 µs a pod either way, so this is for robustness more than speed).
 */
interface ActiveEntry { info: QueuedPodInfo; seq: number; priority: number; timestamp: number }

export class SchedulingQueue {
  private readonly clock: Clock;
  private readonly hint: QueueingHint;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxUnschedulableMs: number;
  /** activeQ: a heap with lazy deletion; `active` holds the live entry per key. */
  private readonly activeHeap = new Heap<ActiveEntry>((a, b) => (a.priority !== b.priority ? a.priority > b.priority
    : a.timestamp !== b.timestamp ? a.timestamp < b.timestamp : a.seq < b.seq));
  private readonly active = new Map<string, ActiveEntry>();
  private readonly backoff = new Map<string, QueuedPodInfo>();
  private readonly unschedulable = new Map<string, QueuedPodInfo>();
  private seq = 0;
  private schedulingCycle = 0;
  private moveRequestCycle = -1;
  private waiters: (() => void)[] = [];
  private timers: NodeJS.Timeout[] = [];
  private closed = false;

  constructor(private readonly opts: SchedulingQueueOptions) {
    this.clock = opts.clock;
    this.hint = opts.hint ?? (() => true);
    this.initialBackoffMs = opts.initialBackoffMs ?? 1000;
    this.maxBackoffMs = opts.maxBackoffMs ?? 10_000;
    this.maxUnschedulableMs = opts.podMaxInUnschedulablePodsDurationMs ?? 5 * 60_000;
  }

  private now(): number { return this.clock.now().getTime(); }

  /** Starts the periodic flushes (back-off every second, unschedulable leftovers every 30 s). */
  run(): void {
    const every = (ms: number, fn: () => void) => { const t = setInterval(fn, ms); t.unref(); this.timers.push(t); };
    every(this.opts.backoffFlushIntervalMs ?? 1000, () => this.flushBackoffQCompleted());
    every(this.opts.unschedulableFlushIntervalMs ?? 30_000, () => this.flushUnschedulablePodsLeftover());
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    for (const w of this.waiters.splice(0)) w();
  }

  /** A new pending pod. */
  add(pod: Pod): void {
    const key = metaKey(pod);
    if (this.has(key)) { this.update(this.get(key)!.pod, pod); return; }
    const info: QueuedPodInfo = { pod, key, timestamp: this.now(), attempts: 0, unschedulablePlugins: new Set(), gated: isGated(pod) };
    if (info.gated) this.unschedulable.set(key, info); else this.pushActive(info);
  }

  /** The pending pod changed: refresh it, and retry it when the change may help. */
  update(oldPod: Pod, newPod: Pod): void {
    const key = metaKey(newPod);
    const act = this.active.get(key);
    if (act) { act.info.pod = newPod; return; }
    const bo = this.backoff.get(key);
    if (bo) { bo.pod = newPod; return; }
    const un = this.unschedulable.get(key);
    if (!un) { this.add(newPod); return; }
    un.pod = newPod;
    if (un.gated) {
      un.gated = isGated(newPod);
      if (!un.gated) { this.unschedulable.delete(key); this.pushActive(un); }
      return;
    }
    if (!isPodUpdated(oldPod, newPod)) return;
    if (this.hint(un, { type: 'UnscheduledPodUpdate', oldPod, newPod })) this.requeue(un);
  }

  delete(pod: Pod): void {
    const key = metaKey(pod);
    this.active.delete(key);
    this.backoff.delete(key);
    this.unschedulable.delete(key);
  }

  has(key: string): boolean { return this.active.has(key) || this.backoff.has(key) || this.unschedulable.has(key); }
  get(key: string): QueuedPodInfo | undefined {
    return this.active.get(key)?.info ?? this.backoff.get(key) ?? this.unschedulable.get(key);
  }

  /** The next pod to schedule, or undefined; starts a scheduling cycle. */
  pop(): { info: QueuedPodInfo; cycle: number } | undefined {
    for (;;) {
      const e = this.activeHeap.pop();
      if (!e) return undefined;
      if (this.active.get(e.info.key) !== e) continue;
      this.active.delete(e.info.key);
      e.info.attempts++;
      e.info.initialAttemptTimestamp ??= this.now();
      return { info: e.info, cycle: ++this.schedulingCycle };
    }
  }

  /** Resolves when activeQ may have a pod (or the queue closed). */
  waitForPod(): Promise<void> {
    if (this.active.size || this.closed) return Promise.resolve();
    return new Promise((r) => this.waiters.push(r));
  }

  /**
   * After a rejection: unschedulable; or backoffQ when a move request happened
   * during its cycle, or when no plugin in particular rejected it (a passing
   * failure upstream retries after the back-off).
   */
  addUnschedulableIfNotPresent(info: QueuedPodInfo, podSchedulingCycle: number): void {
    if (this.has(info.key)) return;
    info.timestamp = this.now();
    if (this.moveRequestCycle >= podSchedulingCycle || info.unschedulablePlugins.size === 0) {
      this.backoff.set(info.key, info);
      return;
    }
    this.unschedulable.set(info.key, info);
  }

  /** After an error (or a failed binding): backoffQ. */
  addBackoff(info: QueuedPodInfo): void {
    if (this.has(info.key)) return;
    info.timestamp = this.now();
    info.unschedulablePlugins = new Set();
    this.backoff.set(info.key, info);
  }

  /** A cluster event: unschedulable pods it may help move to activeQ (or backoffQ while backing off). */
  moveAllToActiveOrBackoffQueue(event: ClusterEvent): number {
    let moved = 0;
    for (const info of [...this.unschedulable.values()]) {
      if (info.gated) continue;
      if (info.unschedulablePlugins.size > 0 && !this.hint(info, event)) continue;
      this.requeue(info);
      moved++;
    }
    this.moveRequestCycle = this.schedulingCycle;
    return moved;
  }

  /** Back-off: initial * 2^(attempts-1), at most max. */
  backoffDurationMs(info: QueuedPodInfo): number {
    let d = this.initialBackoffMs;
    for (let i = 1; i < info.attempts; i++) {
      d *= 2;
      if (d >= this.maxBackoffMs) return this.maxBackoffMs;
    }
    return Math.min(d, this.maxBackoffMs);
  }

  isBackingOff(info: QueuedPodInfo): boolean {
    return info.timestamp + this.backoffDurationMs(info) > this.now();
  }

  flushBackoffQCompleted(): void {
    for (const info of [...this.backoff.values()]) {
      if (this.isBackingOff(info)) continue;
      this.backoff.delete(info.key);
      this.pushActive(info);
    }
  }

  flushUnschedulablePodsLeftover(): void {
    const now = this.now();
    for (const info of [...this.unschedulable.values()]) {
      if (!info.gated && now - info.timestamp > this.maxUnschedulableMs) this.requeue(info);
    }
  }

  /** Pods in the unschedulable set (sizes.unschedulable without the object: read once per bound pod). */
  get unschedulableCount(): number { return this.unschedulable.size; }

  get sizes(): { active: number; backoff: number; unschedulable: number } {
    return { active: this.active.size, backoff: this.backoff.size, unschedulable: this.unschedulable.size };
  }

  /** Pending pods in the unschedulable set (for tests and diagnostics). */
  unschedulableKeys(): string[] { return [...this.unschedulable.keys()]; }
  backoffKeys(): string[] { return [...this.backoff.keys()]; }

  private requeue(info: QueuedPodInfo): void {
    this.unschedulable.delete(info.key);
    if (this.isBackingOff(info)) this.backoff.set(info.key, info);
    else this.pushActive(info);
  }

  private pushActive(info: QueuedPodInfo): void {
    const e: ActiveEntry = { info, seq: this.seq++, priority: podPriority(info.pod), timestamp: info.timestamp };
    this.active.set(info.key, e);
    this.activeHeap.push(e);
    for (const w of this.waiters.splice(0)) w();
  }
}
