/**
 * kube-apiserver's etcd compactor (--etcd-compaction-interval, 5 min): at each tick compact to
 * the revision seen at the previous tick, so at least one interval of history stays watchable.
 * Every server on the etcd runs its own; compacting what another server already compacted is
 * answered "required revision has been compacted", which is harmless and ignored.
 */
import type { StorageLogger } from '../backend.js';

export interface Compactable {
  currentRevision(): Promise<number>;
  compact(revision: number): Promise<void>;
}

export function startAutoCompaction(store: Compactable, intervalMs: number, logger: StorageLogger): () => void {
  if (intervalMs <= 0) return () => {};
  let previous = 0;
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const seen = await store.currentRevision();
      if (previous > 0) {
        await store.compact(previous);
        logger.info('compacted storage history', { revision: previous });
      }
      previous = seen;
    } catch (err) {
      logger.error('automatic compaction failed', { err });
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), intervalMs);
  // Compaction alone must not keep the process alive.
  timer.unref();
  return () => clearInterval(timer);
}
