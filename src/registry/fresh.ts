/**
 * Reads "at least as fresh as resourceVersion N", as upstream's watch cache serves them
 * (waitUntilFreshAndBlock): when the store has not reached N yet, wait a little for it,
 * then give up with 504 `Too large resource version: N, current: M`.
 *
 * The wait rides on the backend's watch: a watcher on every key from the current revision
 * wakes us at the first write that reaches N, so nothing polls. A revision can exist before
 * the events of its write are delivered; that only makes us answer a moment later.
 */
import type { Backend, Watcher } from '../storage/backend.js';
import { tooLargeResourceVersion } from '../api/list-options.js';
import { setLongTimeout } from '../util/long-timeout.js';

/** Upstream's blockTimeout in the watch cache. */
export const defaultFreshnessWaitMs = 3000;

/** Resolves when the store's revision is at least `revision`; rejects with the 504 after `waitMs`. */
export async function waitUntilFresh(backend: Backend, revision: bigint, waitMs: number): Promise<void> {
  const current = await backend.currentRevision();
  if (revision <= BigInt(current)) return;
  await new Promise<void>((resolve, reject) => {
    let settled = false;
    // Both are set before any callback can run: the timer and the watch report asynchronously.
    const settle = (err?: Error) => {
      if (settled) return;
      settled = true;
      timer.cancel();
      watcher.close();
      if (err) reject(err); else resolve();
    };
    const timer = setLongTimeout(() => {
      backend.currentRevision().then(
        (now) => settle(revision <= BigInt(now) ? undefined : tooLargeResourceVersion(revision, now)),
        (e) => settle(e));
    }, waitMs);
    const watcher: Watcher = backend.watch('', {
      fromRevision: current,
      // Only the revisions are read.
      prevKv: false,
      onEvents: (events) => {
        const last = events[events.length - 1];
        if (last && BigInt(last.kv.modRevision) >= revision) settle();
      },
      onError: (err) => settle(err),
    });
  });
}
