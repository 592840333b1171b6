/**
 * How the scheduler hands its events (Scheduled, FailedScheduling) to the
 * EventRecorder, with upstream's back-pressure (client-go's event
 * broadcaster and kube-scheduler's client connection):
 *  1. events wait in a queue of at most 1000; beyond that they are dropped
 *     (watch.DropIfChannelFull), so a burst of thousands of bindings cannot
 *     bury the API server in Events;
 *  2. they are written at most `qps` per second with bursts of `burst`
 *     (kube-scheduler's default client connection: 50 and 100);
 *  3. one at a time when the recorder returns a promise (the sequential sink).
 * Scheduling itself never waits for an event.
 */
import type { EventType } from '../client/events.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { withMembers } from '../util/with-members.js';

/** The object an event is about (its involvedObject): a pod or a node, with kind and apiVersion set. */
export interface InvolvedObject { apiVersion?: string; kind?: string; metadata?: ObjectMeta }

/**
 * Informer objects may lack kind and apiVersion; events need them for involvedObject. withMembers,
 * not `{ ...pod, kind, apiVersion }`: two members after a spread gave each copy a hidden class of its own
 * (util/with-members.ts).
 */
export const asPod = (pod: Pod): Pod => (pod.kind ? pod : withMembers(pod, { kind: 'Pod', apiVersion: 'v1' }));

/** What the sink needs of a recorder; an EventRecorder is one. */
export interface EventTarget {
  event(obj: InvolvedObject, type: EventType, reason: string, message: string): unknown;
}

export interface EventSinkOptions {
  qps?: number;
  burst?: number;
  maxQueued?: number;
}

interface Pending { obj: InvolvedObject; type: EventType; reason: string; message: string }

export class EventSink {
  /** Sent events' slots are emptied at once (their pods let go); the array is compacted now and then. */
  private readonly queue: (Pending | undefined)[] = [];
  private head = 0;
  private readonly qps: number;
  private readonly burst: number;
  private readonly maxQueued: number;
  private tokens: number;
  private last = Date.now();
  private timer?: NodeJS.Timeout;
  private writing = false;
  private closed = false;
  /** Events dropped because the queue was full. */
  dropped = 0;

  constructor(private readonly recorder: EventTarget, opts: EventSinkOptions = {}) {
    this.qps = opts.qps ?? 50;
    this.burst = opts.burst ?? 100;
    this.maxQueued = opts.maxQueued ?? 1000;
    this.tokens = this.burst;
  }

  get queued(): number { return this.queue.length - this.head; }

  event(obj: InvolvedObject, type: EventType, reason: string, message: string): void {
    this.eventLazily(() => [obj, type, reason, message]);
  }

  /** event() of what `make` returns, called only if the event is kept (not when the sink is closed or full). */
  eventLazily(make: () => [InvolvedObject, EventType, string, string]): void {
    if (this.closed) return;
    if (this.queued >= this.maxQueued) { this.dropped++; return; } // 1
    const [obj, type, reason, message] = make();
    this.queue.push({ obj, type, reason, message });
    this.drain();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.queue.length = 0;
    this.head = 0;
  }

  private refill(): void {
    if (this.qps <= 0) { this.tokens = Infinity; return; }
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
  }

  private drain(): void {
    while (!this.closed && !this.writing && this.queued > 0) {
      this.refill();
      if (this.tokens < 1) { // 2
        this.timer ??= setTimeout(() => { this.timer = undefined; this.drain(); }, Math.ceil(1000 / this.qps));
        return;
      }
      this.tokens--;
      const e = this.queue[this.head]!;
      this.queue[this.head++] = undefined;
      if (this.head > 1024 && this.head * 2 > this.queue.length) { this.queue.splice(0, this.head); this.head = 0; }
      const done = this.recorder.event(e.obj, e.type, e.reason, e.message);
      if (done && typeof (done as Promise<unknown>).then === 'function') { // 3
        this.writing = true;
        void (done as Promise<unknown>).catch(() => undefined).finally(() => { this.writing = false; this.drain(); });
      }
    }
  }
}
