/**
 * Event recorder: writes core/v1 Events about objects, aggregating repeats of
 * the same (object, reason, message) into one Event with a count, as
 * client-go's recorder does, so `kubectl describe` and `get events` read as upstream.
 *
 * Events are written as client-go's broadcaster writes them: stamped when they
 * happen, queued (at most 1,000; beyond that dropped, watch.DropIfChannelFull),
 * and sent one at a time. A controller that creates 500 pods in one sync thus
 * never has 500 Event POSTs in flight, each holding a seat of the API server's
 * fair queue beside the creates that matter (at 60,000 pods, POST events' p99
 * at the server was in the 1-2.5 s bucket: bench/RESULTS.md `lead-events-2026-12-07`).
 */
import type { Clientset } from './clientset.js';
import { isNotFound } from './rest.js';
import type { Logger } from '../util/log.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

/** What an event is about: any object with its metadata, or a part of one (fieldPath, e.g. a pod's container). */
export interface EventSubject { kind?: string; apiVersion?: string; metadata?: ObjectMeta; fieldPath?: string }

export type EventType = 'Normal' | 'Warning';

interface Seen { name: string; namespace: string; count: number }
interface Bucket { tokens: number; last: number }

/** client-go's EventSourceObjectSpamFilter: 25 events per object, then one per 5 minutes. */
const spamBurst = 25;
const spamRefillPerMs = 1 / 300_000;

/** The spam filter's bucket of an object: its uid, else kind, namespace and name. */
const spamKey = (obj: EventSubject): string => obj.metadata?.uid ?? `${obj.kind}/${obj.metadata?.namespace}/${obj.metadata?.name}`;

let lastStamp = 0n;

/**
 * An Event's name: the object's name and a hex time stamp in nanoseconds, as
 * client-go's recorder makes it (`%v.%x` of UnixNano). The stamps of one
 * process strictly increase, so events listed in name order (what
 * `kubectl describe` keeps for events of the same second) read in the order
 * they happened: Pulled, Created, Started. The sub-millisecond part comes
 * from the monotonic clock so that two processes rarely pick the same name.
 */
export function eventName(objectName: string, nowMs = Date.now()): string {
  let stamp = BigInt(nowMs) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n);
  if (stamp <= lastStamp) stamp = lastStamp + 1n;
  lastStamp = stamp;
  return `${objectName}.${stamp.toString(16)}`;
}

/** client-go's maxQueuedEvents: events waiting to be written beyond this are dropped. */
export const maxQueuedEvents = 1000;

interface Pending { involved: InvolvedRef; namespace: string; type: EventType; reason: string; message: string; at: string }
interface InvolvedRef { kind?: string; namespace?: string; name: string; uid?: string; apiVersion?: string; resourceVersion?: string; fieldPath?: string }

export class EventRecorder {
  private readonly seen = new Map<string, Seen>();
  private readonly buckets = new Map<string, Bucket>();
  /** Written events' slots are emptied at once; the array is reset when the queue drains. */
  private readonly queue: (Pending | undefined)[] = [];
  private head = 0;
  private writing = false;
  /** Events dropped because maxQueuedEvents were waiting. */
  dropped = 0;

  constructor(private readonly clients: Clientset, private readonly component: string, private readonly logger?: Logger, private readonly host?: string) {}

  /** Events waiting to be written (the one being written not counted). */
  get queued(): number { return this.queue.length - this.head; }

  event(obj: EventSubject, type: EventType, reason: string, message: string): void {
    if (!this.allow(obj)) return;
    if (this.queued >= maxQueuedEvents) { this.dropped++; return; }
    // The object's identity and the time are taken now: the object may change before the event is written.
    const meta = obj.metadata ?? {};
    const involved: InvolvedRef = {
      kind: obj.kind, namespace: meta.namespace, name: meta.name ?? '', uid: meta.uid,
      apiVersion: obj.apiVersion, resourceVersion: meta.resourceVersion,
      // A part of the object, e.g. a pod's container: spec.containers{name} (upstream's ObjectReference.fieldPath).
      ...(obj.fieldPath ? { fieldPath: obj.fieldPath } : {}),
    };
    const at = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    this.queue.push({ involved, namespace: meta.namespace || 'default', type, reason, message, at });
    if (!this.writing) void this.drain();
  }

  /** Writes the queued events one at a time, as client-go's sink goroutine does. */
  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.head < this.queue.length) {
        const e = this.queue[this.head]!;
        this.queue[this.head++] = undefined;
        await this.record(e).catch((err) => this.logger?.debug('event not recorded', { reason: e.reason, err }));
      }
    } finally {
      this.queue.length = 0;
      this.head = 0;
      this.writing = false;
    }
  }

  /**
   * Whether an event about `obj` would be written now (the spam filter has a token for it),
   * without taking one: a caller can skip the work of building an event that would be dropped
   * (the DaemonSet controller decoding each created pod only to name it in SuccessfulCreate).
   */
  wouldRecord(obj: EventSubject): boolean {
    const b = this.buckets.get(spamKey(obj));
    return !b || Math.min(spamBurst, b.tokens + (Date.now() - b.last) * spamRefillPerMs) >= 1;
  }

  private allow(obj: EventSubject): boolean {
    const key = spamKey(obj);
    const now = Date.now();
    const b = this.buckets.get(key) ?? { tokens: spamBurst, last: now };
    b.tokens = Math.min(spamBurst, b.tokens + (now - b.last) * spamRefillPerMs);
    b.last = now;
    this.buckets.set(key, b);
    if (this.buckets.size > 8192) this.buckets.clear();
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  private async record({ involved, namespace, type, reason, message, at: now }: Pending): Promise<void> {
    // Joined, not a template: a template's string is a tree of concatenations (a node of ~32 bytes
    // per piece) that the seen map would keep as its key, up to 4,096 of them; join makes one flat string.
    const key = [involved.kind, namespace, involved.name, involved.uid, involved.fieldPath ?? '', type, reason, message].join('/');
    const prev = this.seen.get(key);
    if (prev) {
      prev.count++;
      try {
        await this.clients.events.patch(prev.namespace, prev.name, { count: prev.count, lastTimestamp: now });
        return;
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    const name = eventName(involved.name);
    // Through the client's undici pool once a burst has opened it (rest.ts requestLight; a component that
    // rarely records opens none), its answer left undecoded: nothing here reads the created Event. The
    // scheduler records a Scheduled event for every pod it binds, up to its 50 a second.
    await this.clients.events.create(namespace, {
      metadata: { name, namespace }, involvedObject: involved, reason, message, type, count: 1,
      firstTimestamp: now, lastTimestamp: now, source: { component: this.component, host: this.host }, reportingComponent: this.component,
      reportingInstance: this.host ?? '',
    }, { light: true, noResult: true });
    if (this.seen.size > 4096) this.seen.clear();
    this.seen.set(key, { name, namespace, count: prev ? prev.count : 1 });
  }
}
