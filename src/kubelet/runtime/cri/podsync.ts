/**
 * The per-pod sync loop the CRI and process runtimes share (upstream's pod
 * workers, as a runtime sees them):
 *
 *  1. One sync at a time per pod; a request during a sync runs one more
 *     after it.
 *  2. After a sync, the next is scheduled: 10-15 s when it failed or left a
 *     container held back (workerBackOffPeriod with its jitter), else
 *     60-90 s (syncFrequency).
 *  3. A restart waits out the crash back-off (CrashLoopBackOff, 10 s
 *     doubling to 5 min): `crashLoopWait`.
 */
import type { Logger } from '../../../util/log.js';
import type { Timers } from '../../timers.js';
import { goDuration, type Backoff } from './backoff.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { newPodEntry, type ContainerRecord, type PodEntry } from './podstate.js';

const workerBackOffPeriodMs = 10_000;
const syncFrequencyMs = 60_000;
const jitter = (ms: number) => ms + Math.random() * ms * 0.5;
/** What a sync depends on: a pod update that changes none of it (our own status write) needs no sync (as upstream's pod config). */
const syncKey = (pod: Pod) => JSON.stringify([pod.spec, pod.metadata?.labels, pod.metadata?.annotations, pod.metadata?.deletionTimestamp]);

export interface PodSyncDeps {
  timers: Timers;
  logger: Logger;
  /** Whether the runtime is closed (no more syncs). */
  closed(): boolean;
  /** Whether p is still the runtime's entry for its pod. */
  current(p: PodEntry): boolean;
  syncOnce(p: PodEntry): Promise<void>;
  /** How a failed sync's error is logged. */
  describe?(e: unknown): unknown;
}

export class PodSyncLoop {
  constructor(private readonly deps: PodSyncDeps) {}

  request(p: PodEntry): void {
    if (p.syncing) { p.syncAgain = true; return; }
    p.syncing = true;
    this.clear(p);
    void (async () => {
      let failed = false;
      try {
        do {
          p.syncAgain = false;
          if (this.deps.closed() || p.terminating || !p.pod) return;
          failed = await this.deps.syncOnce(p).then(() => false, (e) => {
            this.deps.logger.warn('pod sync failed', { pod: `${p.namespace}/${p.name}`, err: this.deps.describe ? this.deps.describe(e) : e });
            return true;
          });
        } while (p.syncAgain);
      } finally {
        p.syncing = false;
      }
      if (this.deps.closed() || p.terminating || !this.deps.current(p)) return;
      const delay = failed || p.waiting.size ? jitter(workerBackOffPeriodMs) : jitter(syncFrequencyMs);
      p.resyncTimer = this.deps.timers.setTimeout(() => { p.resyncTimer = undefined; this.request(p); }, delay);
    })();
  }

  /** The agent's syncPod: records the pod in `pods` and syncs it when something a sync depends on changed. */
  podChanged(pods: Map<string, PodEntry>, pod: Pod): void {
    if (this.deps.closed()) return;
    const m = pod.metadata!;
    let p = pods.get(m.uid!);
    if (!p) {
      p = newPodEntry(m.uid!, m.namespace!, m.name!);
      pods.set(p.uid, p);
    }
    p.pod = pod;
    const key = syncKey(pod);
    if (key === p.specKey) return;
    p.specKey = key;
    this.request(p);
  }

  clear(p: PodEntry): void {
    if (p.resyncTimer) this.deps.timers.clearTimeout(p.resyncTimer as ReturnType<Timers['setTimeout']>);
    p.resyncTimer = undefined;
  }
}

/**
 * Upstream doBackOff: the CrashLoopBackOff message when restarting `name`
 * must wait still; otherwise the back-off grows and undefined (restart now).
 * The first start never waits.
 */
export function crashLoopWait(backoff: Backoff, p: PodEntry, name: string, latest: ContainerRecord | undefined): string | undefined {
  if (!latest || latest.state !== 'CONTAINER_EXITED') return undefined;
  const key = `${p.uid}/${name}`;
  if (backoff.isInBackOffSince(key, latest.finishedAt?.getTime() ?? 0)) {
    return `back-off ${goDuration(backoff.get(key))} restarting failed container=${name} pod=${p.name}_${p.namespace}(${p.uid})`;
  }
  backoff.next(key);
  return undefined;
}
