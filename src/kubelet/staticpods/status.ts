/**
 * Status of static pods (upstream's status manager with
 * podManager.TranslatePodUID):
 *
 *  1. A static pod's status is computed and kept here, by the static pod's
 *     UID, whether or not an API server exists: that is the pod lifecycle of
 *     a standalone kubelet. Phase and container changes are logged.
 *  2. When the pod has a mirror whose config.mirror hash matches, the same
 *     status is written to the mirror (the API status manager, with the
 *     mirror's UID). A mirror that appears later, or comes back, gets it
 *     through `publish`.
 *  3. Any other pod's status goes straight to the API status manager.
 */
import type { Pod, PodStatus } from 'kubernetes-types/core/v1.js';
import type { Logger } from '../../util/log.js';
import type { ComputeStatus } from '../status/manager.js';

/** What the pod workers need of a status manager. */
export interface PodStatusWriter {
  request(key: string, uid: string, compute: ComputeStatus): void;
  forget(key: string): void;
}

export interface StaticPodStatusDeps {
  /** The API status manager; absent for a standalone kubelet. */
  api?: PodStatusWriter;
  /** The static pod with this UID, if it is one. */
  staticPod(uid: string): Pod | undefined;
  /** The UID of the mirror of this static pod, when one with the pod's hash exists. */
  mirrorUID(pod: Pod): string | undefined;
  logger: Logger;
}

interface Entry {
  status?: PodStatus;
  compute?: ComputeStatus;
  summary?: string;
}

/** Phase and each container's state and ID, for the log line. */
function summarize(status: PodStatus): { text: string; kv: Record<string, unknown> } {
  const containers = (status.containerStatuses ?? []).map((c) => ({
    name: c.name, id: c.containerID, state: c.state?.running ? 'running' : c.state?.terminated ? 'terminated' : 'waiting', ready: c.ready,
  }));
  const kv = { phase: status.phase, podIP: status.podIP, containers };
  return { text: JSON.stringify(kv), kv };
}

export class StaticPodStatus implements PodStatusWriter {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly deps: StaticPodStatusDeps) {}

  request(key: string, uid: string, compute: ComputeStatus): void {
    const pod = this.deps.staticPod(uid);
    if (!pod) { this.deps.api?.request(key, uid, compute); return; }
    const entry = this.entries.get(uid) ?? {};
    this.entries.set(uid, entry);
    entry.compute = compute;
    const status = compute({ ...pod, status: entry.status ?? pod.status });
    if (status) {
      entry.status = status;
      const { text, kv } = summarize(status);
      if (text !== entry.summary) {
        entry.summary = text;
        this.deps.logger.info('static pod status', { pod: key, uid, ...kv });
      }
    }
    this.publish(pod);
  }

  forget(key: string): void { this.deps.api?.forget(key); }

  /** Writes the static pod's status to its mirror, if the mirror exists. */
  publish(pod: Pod): void {
    const uid = pod.metadata!.uid!;
    const entry = this.entries.get(uid);
    const mirror = this.deps.mirrorUID(pod);
    if (!entry?.compute || !mirror || !this.deps.api) return;
    const compute = entry.compute;
    // A new mirror (no kubelet status yet) starts from the status kept here, so startTime
    // and the conditions' transition times survive the mirror being recreated.
    const seeded: ComputeStatus = (p) => compute(p.status?.startTime || !entry.status ? p : {
      ...p, status: { ...entry.status, ...(p.status?.qosClass ? { qosClass: p.status.qosClass } : {}) },
    });
    this.deps.api.request(`${pod.metadata!.namespace}/${pod.metadata!.name}`, mirror, seeded);
  }

  /** The status kept for a static pod (standalone: the only copy). */
  statusOf(uid: string): PodStatus | undefined { return this.entries.get(uid)?.status; }

  /** Drops what is kept for a static pod that is gone. */
  drop(uid: string): void { this.entries.delete(uid); }
}
