/**
 * Controller expectations (upstream controller_utils.go ControllerExpectations):
 * before writing, a controller records how many creates and deletes it expects
 * to see; informer events count them down and failed writes lower them. Until
 * they are met (both counts <= 0) a sync only updates status, so a slow cache
 * never makes it create a second pod. Expectations older than the timeout
 * (upstream 5 minutes) count as met, so one lost event cannot stall a
 * controller. Callers set them synchronously, before their first await.
 */
import type { Clock } from '../util/clock.js';

interface Expectation { add: number; del: number; timestamp: number }

export const expectationsTimeoutMs = 5 * 60 * 1000;

export class ControllerExpectations {
  private readonly items = new Map<string, Expectation>();

  constructor(private readonly clock: Clock, private readonly timeoutMs = expectationsTimeoutMs) {}

  /** True when nothing is expected, all of it was observed, or the record expired. */
  satisfied(key: string): boolean {
    const e = this.items.get(key);
    if (!e) return true;
    if (e.add <= 0 && e.del <= 0) return true;
    return this.clock.now().getTime() - e.timestamp > this.timeoutMs;
  }

  set(key: string, add: number, del: number): void {
    this.items.set(key, { add, del, timestamp: this.clock.now().getTime() });
  }

  /** Lowers the counts (a create or delete observed, failed, or skipped). */
  lower(key: string, add: number, del: number): void {
    const e = this.items.get(key);
    if (!e) return;
    e.add -= add;
    e.del -= del;
  }

  creationObserved(key: string): void { this.lower(key, 1, 0); }
  deletionObserved(key: string): void { this.lower(key, 0, 1); }
  delete(key: string): void { this.items.delete(key); }

  /** For tests and logs. */
  get(key: string): { add: number; del: number } | undefined {
    const e = this.items.get(key);
    return e && { add: e.add, del: e.del };
  }
}

/**
 * UIDTrackingControllerExpectations (upstream controller_utils.go), for the
 * ReplicaSet controller: before writing, record how many creates are expected
 * and which pods are to be deleted; informer events count them down (a pod
 * seen deleting twice, once with a deletionTimestamp and once gone, counts
 * once); failed writes lower them. Until met a sync only writes status.
 * Records older than the timeout (upstream 5 minutes) count as met, so one
 * lost event cannot stall a controller. Callers set them before their first await.
 */
interface UIDExpectation { add: number; deletes: Set<string>; timestamp: number }

export class UIDTrackingExpectations {
  private readonly items = new Map<string, UIDExpectation>();

  constructor(private readonly clock: Clock, private readonly timeoutMs = expectationsTimeoutMs) {}

  /** True when nothing is expected, all of it was observed, or the record expired. */
  satisfied(key: string): boolean {
    const e = this.items.get(key);
    if (!e) return true;
    if (e.add <= 0 && e.deletes.size === 0) return true;
    return this.clock.now().getTime() - e.timestamp > this.timeoutMs;
  }

  expectCreations(key: string, n: number): void {
    this.items.set(key, { add: n, deletes: new Set(), timestamp: this.clock.now().getTime() });
  }

  /** Expect the deletion of these pods (namespace/name keys). */
  expectDeletions(key: string, podKeys: readonly string[]): void {
    this.items.set(key, { add: 0, deletes: new Set(podKeys), timestamp: this.clock.now().getTime() });
  }

  creationObserved(key: string, n = 1): void {
    const e = this.items.get(key);
    if (e) e.add -= n;
  }

  deletionObserved(key: string, podKey: string): void {
    this.items.get(key)?.deletes.delete(podKey);
  }

  delete(key: string): void { this.items.delete(key); }

  /** For tests and logs. */
  get(key: string): { add: number; del: number } | undefined {
    const e = this.items.get(key);
    return e && { add: e.add, del: e.deletes.size };
  }
}
