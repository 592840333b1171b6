/**
 * A rate-limited work queue with upstream client-go semantics: a key is queued
 * once however often it is added; a key being processed is not handed out
 * again until done(), but is re-queued if it was added meanwhile; failures
 * back off exponentially per key (5 ms doubling to 1000 s) until forget().
 */
export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private shuttingDown = false;

  constructor(private readonly baseDelayMs = 5, private readonly maxDelayMs = 1_000_000) {}

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    const w = this.waiters.shift();
    if (w) { this.dirty.delete(key); this.processing.add(key); w(key); return; }
    this.queue.push(key);
  }

  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) { this.add(key); return; }
    const existing = this.timers.get(key);
    if (existing) clearTimeout(existing);
    const t = setTimeout(() => { this.timers.delete(key); this.add(key); }, delayMs);
    t.unref();
    this.timers.set(key, t);
  }

  addRateLimited(key: string): void {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    this.addAfter(key, Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** n));
  }

  forget(key: string): void { this.failures.delete(key); }

  /** Resolves with the next key, or undefined once shut down. */
  get(): Promise<string | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    const key = this.queue.shift();
    if (key !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) { this.dirty.delete(key); this.add(key); }
  }

  get length(): number { return this.queue.length; }

  shutDown(): void {
    this.shuttingDown = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const w of this.waiters.splice(0)) w(undefined);
  }
}

/** Runs `workers` loops that take keys and call `sync`; errors re-queue with back-off. */
export function runWorkers(queue: WorkQueue, workers: number, sync: (key: string) => Promise<void | { requeueAfterMs?: number }>,
  onError: (key: string, err: unknown) => void): Promise<void[]> {
  const loop = async () => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        const r = await sync(key);
        queue.forget(key);
        if (r && r.requeueAfterMs !== undefined) queue.addAfter(key, r.requeueAfterMs);
      } catch (e) {
        onError(key, e);
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  };
  return Promise.all(Array.from({ length: workers }, loop));
}
