/**
 * UIDTrackingControllerExpectations (upstream controller_utils.go), for the
 * ReplicaSet controller: before writing, record how many creates are expected
 * and which pods are to be deleted; informer events count them down (a pod
 * seen deleting twice, once with a deletionTimestamp and once gone, counts
 * once); failed writes lower them. Until met a sync only writes status.
 * Records older than the timeout (upstream 5 minutes) count as met, so one
 * lost event cannot stall a controller. Callers set them before their first await.
 */
import type { Clock } from '../util/clock.js';

interface Expectation { add: number; deletes: Set<string>; timestamp: number }

export const expectationsTimeoutMs = 5 * 60 * 1000;

export class UIDTrackingExpectations {
  private readonly items = new Map<string, Expectation>();

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
