/**
 * How many of a controller's syncs may be creating pods at once, and who is next.
 *
 * Why: a sync that creates pods holds its worker for all its slow-start batches (up to
 * burstReplicas = 500 creates), and the work queue is first in, first out. With every worker
 * creating, an owner whose pods were all created and have since become Ready waits behind
 * every other owner's creates before its next sync counts them: at 5,000 nodes and 30,000
 * pods of 150 Deployments, the Deployments' readyReplicas read 0 for minutes while thousands
 * of their pods were Ready (bench/RESULTS.md, `mem7`). Upstream has the same queue and the
 * same batches; its creates are fast enough that nobody waits long. Here at most
 * `workers - 1` syncs create at a time, so one worker is always left for syncs that only
 * count pods and write status; a sync that would create while every slot is taken writes its
 * status without creating and waits in line (first come, first served); each slot given back
 * hands the first in line to the queue again.
 */
export class CreationSlots {
  private busy = 0;
  /** Owners' keys waiting for a slot, in the order they came (a Set keeps insertion order). */
  private readonly waiting = new Set<string>();

  /** `limit`: how many syncs may create at once (at least 1). `wake`: puts a waiting key back in the queue. */
  constructor(readonly limit: number, private readonly wake: (key: string) => void) {
    if (!(limit >= 1)) this.limit = 1;
  }

  /**
   * A slot for `key`'s creates, or false (then `key` waits in line). A key that was in line
   * and gets one leaves the line; others in line before it keep their places.
   */
  tryAcquire(key: string): boolean {
    if (this.busy >= this.limit) {
      this.waiting.add(key);
      return false;
    }
    this.busy++;
    this.waiting.delete(key);
    return true;
  }

  /** Gives back a slot; the first key in line goes back to the queue to take it. */
  release(): void {
    this.busy--;
    const next = this.waiting.values().next();
    if (next.done) return;
    this.waiting.delete(next.value);
    this.wake(next.value);
  }

  /** An owner that is gone waits for nothing. */
  forget(key: string): void { this.waiting.delete(key); }

  get inUse(): number { return this.busy; }
  get queued(): readonly string[] { return [...this.waiting]; }
}
