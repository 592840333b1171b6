/**
 * Writes pod status to the API (upstream's status manager, cut down):
 *
 *  1. `request(key, uid, compute)` marks a pod dirty; requests for the same
 *     pod coalesce, and one write per pod is in flight at a time.
 *  2. A write reads the newest copy of the pod (the informer's, or the one
 *     the last write returned if that is newer), computes the status from it
 *     and skips the write when nothing changed — compared with the API's
 *     status and with what this manager last sent for that input, so server
 *     normalization cannot make it write forever.
 *  3. It PUTs pods/<name>/status with the copy's resourceVersion; on a
 *     conflict it GETs the pod and tries again (3 attempts). A pod that is
 *     gone, or whose UID changed, is dropped.
 *  4. Writes across every node of a process share one concurrency limit.
 */
import type { Pod, PodStatus } from 'kubernetes-types/core/v1.js';
import type { Clientset } from '../../client/index.js';
import { ApiError, isConflict, isNotFound } from '../../client/index.js';
import type { Logger } from '../../util/log.js';
import { semanticEqual } from '../equal.js';
import type { Semaphore } from '../semaphore.js';

export type ComputeStatus = (pod: Pod) => PodStatus | undefined;

export interface StatusManagerDeps {
  clients: Clientset;
  /** The informer's copy of the pod, by namespace/name. */
  cached(key: string): Pod | undefined;
  limiter: Semaphore;
  logger: Logger;
  onWrite?(result: 'ok' | 'conflict' | 'error'): void;
  /** Writes through the client's undici pool (ResourceClient.updateStatus's `light`). */
  light?: boolean;
}

const rvNumber = (obj: Pod) => Number(obj.metadata?.resourceVersion ?? NaN);
const maxAttempts = 3;
const retryDelayMs = 1000;

export class PodStatusManager {
  private readonly pending = new Map<string, { uid: string; compute: ComputeStatus }>();
  private readonly inFlight = new Set<string>();
  private readonly lastWritten = new Map<string, Pod>();
  private readonly lastSent = new Map<string, any>();
  private closed = false;

  constructor(private readonly deps: StatusManagerDeps) {}

  request(key: string, uid: string, compute: ComputeStatus): void {
    if (this.closed) return;
    this.pending.set(key, { uid, compute });
    if (!this.inFlight.has(key)) void this.drain(key);
  }

  /** Drops what the manager remembers of a pod that is gone. */
  forget(key: string): void {
    this.pending.delete(key);
    this.lastWritten.delete(key);
    this.lastSent.delete(key);
  }

  close(): void {
    this.closed = true;
    this.pending.clear();
  }

  /** Writes still pending or running. */
  get busy(): number { return this.pending.size + this.inFlight.size; }

  private async drain(key: string): Promise<void> {
    this.inFlight.add(key);
    try {
      while (!this.closed) {
        const job = this.pending.get(key);
        if (!job) break;
        this.pending.delete(key);
        await this.deps.limiter.run(() => this.write(key, job.uid, job.compute));
      }
    } finally {
      this.inFlight.delete(key);
    }
  }

  private newest(key: string): Pod | undefined {
    const cached = this.deps.cached(key);
    const written = this.lastWritten.get(key);
    if (!written) return cached;
    if (!cached) return undefined;
    if (written.metadata!.uid !== cached.metadata!.uid) return cached;
    return rvNumber(written) > rvNumber(cached) ? written : cached;
  }

  private async write(key: string, uid: string, compute: ComputeStatus): Promise<void> {
    let pod = this.newest(key);
    for (let attempt = 1; attempt <= maxAttempts && !this.closed; attempt++) {
      if (!pod || pod.metadata!.uid !== uid) return;
      const status = compute(pod);
      if (status === undefined || semanticEqual(status, pod.status)) return;
      const sent = this.lastSent.get(key);
      if (sent && sent.uid === uid && sent.rv === pod.metadata!.resourceVersion && semanticEqual(sent.status, status)) return;
      try {
        // The answer is kept (lastWritten) to compute and write the next status from, and statusUpdate
        // leaves managedFields out: they are not decoded (about a third of a pod's answer).
        const res = await this.deps.clients.pods.updateStatus(statusUpdate(pod, status), { light: this.deps.light, withoutManagedFields: true });
        this.lastWritten.set(key, res);
        this.lastSent.set(key, { uid, rv: res.metadata.resourceVersion, status });
        this.deps.onWrite?.('ok');
        return;
      } catch (e) {
        if (isNotFound(e)) { this.forget(key); return; }
        if (!isConflict(e)) {
          if (this.closed) return;
          this.deps.onWrite?.('error');
          this.deps.logger.warn('failed to update pod status', { pod: key, err: e });
          // Server or network trouble: try again later; a rejected status (4xx) is not retried.
          const transient = !(e instanceof ApiError) || e.code >= 500 || e.code === 429;
          if (transient && !this.closed) setTimeout(() => this.request(key, uid, compute), retryDelayMs).unref();
          return;
        }
        this.deps.onWrite?.('conflict');
        try {
          pod = await this.deps.clients.pods.get(pod.metadata!.namespace, pod.metadata!.name!);
        } catch (ge) {
          if (isNotFound(ge)) { this.forget(key); return; }
          throw ge;
        }
      }
    }
  }
}

/**
 * The body of a pods/status PUT: the pod's metadata and the new status, without its spec and
 * managedFields. A status write takes neither from the request: upstream's podStatusStrategy puts
 * the stored spec back (PrepareForUpdate, before validation) and its field manager keeps the live
 * managedFields for every subresource write. Sent, they are most of a pod's JSON, which the kubelet
 * would encode and the API server decode and check for nothing; upstream's kubelet sends a patch
 * of the status alone (statusutil.PatchPodStatus).
 */
export function statusUpdate(pod: Pod, status: PodStatus): Pod {
  const { managedFields: _omitted, ...metadata } = pod.metadata ?? {};
  return { apiVersion: pod.apiVersion ?? 'v1', kind: pod.kind ?? 'Pod', metadata, status };
}
