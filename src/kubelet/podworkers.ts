/**
 * What one node does with the pods bound to it (upstream's pod workers and
 * the parts of syncPod that matter here):
 *
 *  1. A new pod is admitted once (admission.ts); a rejected pod is written
 *     Failed with the reason and never runs.
 *  2. An admitted, active pod is synced into the runtime on every change;
 *     runtime events and pod changes regenerate its API status
 *     (status/generate.ts), written by the status manager.
 *  3. A pod with a deletionTimestamp is stopped within
 *     min(deletionGracePeriodSeconds, deleteDelay) and then deleted with
 *     gracePeriodSeconds 0 and a UID precondition — the kubelet's half of
 *     graceful deletion. (Upstream also writes a final terminal status first;
 *     the agent writes it only for a pod a finalizer holds.)
 *  4. A pod the API says is terminal (Succeeded, Failed) is stopped (its
 *     containers and logs stay until the pod is deleted); a pod gone from the
 *     API is stopped and removed.
 *  5. Probes (prober/manager.ts), when the runtime supports them, run for
 *     every admitted pod until it stops; their results overlay the runtime
 *     status the API status is generated from.
 *  6. While frozen (a partitioned or crashed kubelet) nothing is acted on;
 *     events are kept, latest per pod, and replayed on thaw.
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { Clientset, EventRecorder } from '../client/index.js';
import { isConflict, isNotFound } from '../client/index.js';
import type { Logger } from '../util/log.js';
import { podIsTerminal } from '../api/pods.js';
import type { PodRuntime, RuntimeContainerStatus, RuntimePodStatus } from './runtime/runtime.js';
import { successfullyPulled } from './runtime/pull-events.js';
import type { PodHandler } from './podsource.js';
import type { PodStatusWriter } from './staticpods/status.js';
import { generatePodStatus, rejectedPodStatus } from './status/generate.js';
import { canAdmitPod } from './admission.js';
import type { SysctlAllowlist } from './sysctl.js';
import type { Timers } from './timers.js';
import type { KubeletMetrics } from './metrics.js';
import { ProbeManager } from './prober/manager.js';
import { HousekeepingWheel } from './housekeeping.js';

/** Waiting reasons of a container whose image could not be pulled (the image manager's). */
const pullFailures: ReadonlySet<string> = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName']);
/** Waiting reasons of a container that could not be created or started (kuberuntime's startContainer). */
const startFailures: ReadonlySet<string> = new Set(['CreateContainerConfigError', 'CreateContainerError', 'RunContainerError']);

export interface PodWorkersDeps {
  nodeName: string;
  runtime: PodRuntime;
  status: PodStatusWriter;
  /** Absent for a standalone kubelet (static pods only: nothing to delete from an API). */
  clients?: Clientset;
  /** The node as last seen (for admission). */
  node(): Node | undefined;
  /** The sysctls pods may set here (admission); default: the safe ones only. */
  sysctls?: SysctlAllowlist;
  hostIP: string;
  timers: Timers;
  logger: Logger;
  recorder?: EventRecorder;
  /** Upper bound on how long stopping a pod takes (the simulated SIGTERM → exit). */
  deleteDelayMs: number;
  metrics?: KubeletMetrics;
  /** Where housekeeping (startHousekeeping) runs every 2 s; default: a timer of this node's own. */
  housekeeping?: HousekeepingWheel;
}

/** Upstream's housekeepingPeriod. */
export const housekeepingPeriodMs = 2000;

interface PodRecord {
  uid: string;
  key: string;
  pod: Pod;
  admitted?: boolean;
  rejection?: { reason: string; message: string };
  terminating?: boolean;
  firstSeen: number;
  started?: boolean;
  /** What was announced: container IDs (Pulled/Created/Started), and image and start failures (pull/..., start/... keys). */
  announced: Set<string>;
}

const podRef = (pod: Pod): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: pod.metadata });

export class PodWorkers implements PodHandler {
  private readonly byUID = new Map<string, PodRecord>();
  private frozen = false;
  private readonly backlog = new Map<string, { op: 'upsert' | 'remove'; pod: Pod }>();
  private closed = false;
  /** Present when the runtime can run probes (execSync or simulateProbe, and killContainer). */
  readonly prober?: ProbeManager;

  constructor(private readonly deps: PodWorkersDeps) {
    deps.runtime.onPodEvent((uid) => this.onRuntimeEvent(uid));
    if ((deps.runtime.execSync || deps.runtime.simulateProbe) && deps.runtime.killContainer) {
      this.prober = new ProbeManager({
        runtime: deps.runtime, timers: deps.timers, logger: deps.logger, recorder: deps.recorder,
        onChange: (uid) => {
          const rec = this.byUID.get(uid);
          if (rec && !this.closed && !this.frozen && rec.admitted && !rec.terminating) this.requestStatus(rec);
        },
      });
    }
  }

  /** The runtime status of a pod with the probe results applied. */
  runtimeStatus(uid: string): RuntimePodStatus | undefined {
    const rs = this.deps.runtime.status(uid);
    return this.prober ? this.prober.apply(uid, rs) : rs;
  }

  upsert(pod: Pod): void {
    if (this.closed) return;
    if (this.frozen) { this.backlog.set(pod.metadata!.uid!, { op: 'upsert', pod }); return; }
    this.handleUpsert(pod);
  }

  remove(pod: Pod): void {
    if (this.closed) return;
    if (this.frozen) { this.backlog.set(pod.metadata!.uid!, { op: 'remove', pod }); return; }
    this.handleRemove(pod);
  }

  freeze(): void { this.frozen = true; }

  thaw(): void {
    if (!this.frozen) return;
    this.frozen = false;
    const replay = [...this.backlog.values()];
    this.backlog.clear();
    for (const { op, pod } of replay) if (op === 'upsert') this.handleUpsert(pod); else this.handleRemove(pod);
    for (const rec of this.byUID.values()) if (rec.admitted && !rec.terminating) this.requestStatus(rec);
  }

  /** Pods admitted and still active: what admission counts as used. */
  activePods(): Pod[] {
    const out: Pod[] = [];
    for (const r of this.byUID.values()) if (r.admitted && !r.terminating && !podIsTerminal(r.pod)) out.push(r.pod);
    return out;
  }

  get size(): number { return this.byUID.size; }

  /**
   * Upstream HandlePodCleanups, for the runtimes that adopt what an earlier
   * kubelet left running: every 2 s once `sourcesReady` (the manifest
   * directory scanned, the API pods listed), a pod the runtime holds that no
   * source wants (a static pod edited or removed while the agent was down,
   * an API pod deleted meanwhile) is stopped with upstream's minimum grace
   * period (2 s: there is no spec to take one from) and removed.
   */
  startHousekeeping(sourcesReady: () => boolean): void {
    const tick = () => {
      if (this.closed || !sourcesReady() || this.frozen) return;
      for (const uid of this.deps.runtime.pods()) {
        if (this.byUID.has(uid) || this.cleaning.has(uid)) continue;
        this.cleaning.add(uid);
        const st = this.deps.runtime.status(uid);
        this.deps.logger.info('stopping orphaned pod: no source wants it', { pod: st ? `${st.namespace}/${st.name}` : undefined, uid });
        void this.kill(uid, 2000).then(() => { if (!this.byUID.has(uid)) this.deps.runtime.removePod(uid); }).finally(() => this.cleaning.delete(uid));
      }
    };
    tick();
    if (this.closed) return;
    // The process's shared wheel (simulator.ts: one timer for all its nodes), else one of this node's own.
    const wheel = this.deps.housekeeping ?? new HousekeepingWheel({ periodMs: housekeepingPeriodMs, slots: 1, timers: this.deps.timers, logger: this.deps.logger });
    this.stopHousekeeping?.();
    this.stopHousekeeping = wheel.add(tick);
  }

  private readonly cleaning = new Set<string>();
  private stopHousekeeping?: () => void;

  close(): void {
    this.closed = true;
    this.prober?.close();
    this.stopHousekeeping?.();
    this.stopHousekeeping = undefined;
  }

  private handleUpsert(pod: Pod): void {
    const meta = pod.metadata!;
    const uid = meta.uid!;
    let rec = this.byUID.get(uid);
    if (!rec) {
      rec = { uid, key: `${meta.namespace}/${meta.name}`, pod, firstSeen: this.deps.timers.now().getTime(), announced: new Set() };
      this.byUID.set(uid, rec);
    }
    rec.pod = pod;
    if (meta.deletionTimestamp) { void this.terminate(rec); return; }
    if (podIsTerminal(pod)) { void this.stopFinished(rec); return; }
    if (rec.admitted === undefined) this.admit(rec);
    if (!rec.admitted) return;
    this.deps.runtime.syncPod(pod);
    this.prober?.sync(pod);
    this.requestStatus(rec);
  }

  private admit(rec: PodRecord): void {
    const result = canAdmitPod(this.deps.node(), rec.pod, this.activePods(), this.deps.sysctls);
    if (result.admit) { rec.admitted = true; return; }
    rec.admitted = false;
    rec.rejection = { reason: result.reason, message: result.message };
    this.deps.logger.info('pod rejected', { pod: rec.key, reason: result.reason, message: result.message });
    this.deps.recorder?.event(podRef(rec.pod), 'Warning', result.reason, result.message);
    this.deps.status.request(rec.key, rec.uid, (p) => rejectedPodStatus(p, result.reason, result.message, this.deps.timers.now()));
  }

  private requestStatus(rec: PodRecord): void {
    const { timers, hostIP } = this.deps;
    this.deps.status.request(rec.key, rec.uid, (p) => {
      if (rec.terminating || p.metadata!.deletionTimestamp || podIsTerminal(p)) return undefined;
      return generatePodStatus(p, this.runtimeStatus(rec.uid), { hostIP, now: timers.now() });
    });
  }

  private onRuntimeEvent(uid: string): void {
    const rec = this.byUID.get(uid);
    if (!rec || this.closed) return;
    const rs = this.deps.runtime.status(uid);
    if (rs) { this.announce(rec, rs); this.observeStart(rec, rs); }
    if (!this.frozen && rec.admitted && !rec.terminating) this.requestStatus(rec);
  }

  /** Upstream's container events: Pulled, Created, Started, once per container instance. */
  private announce(rec: PodRecord, rs: RuntimePodStatus): void {
    const recorder = this.deps.recorder;
    for (const c of [...rs.initContainers, ...rs.containers, ...(rs.ephemeralContainers ?? [])]) {
      const killed = c.lastTermination;
      if (killed?.killMessage && !rec.announced.has(`kill/${killed.id}`)) {
        rec.announced.add(`kill/${killed.id}`);
        recorder?.event(podRef(rec.pod), 'Normal', 'Killing', killed.killMessage);
      }
      if (c.state === 'waiting' && pullFailures.has(c.reason ?? '')) { this.announcePull(rec, c); continue; }
      if (c.state === 'waiting' && startFailures.has(c.reason ?? '')) { this.announceStartFailure(rec, c); continue; }
      if (c.state === 'waiting' && c.reason === 'CrashLoopBackOff') { this.announceCrashBackOff(rec, c); continue; }
      if (rec.announced.has(c.id) || (c.state !== 'running' && c.state !== 'exited')) continue;
      rec.announced.add(c.id);
      if (!recorder) continue;
      const spec = [...(rec.pod.spec?.initContainers ?? []), ...(rec.pod.spec?.containers ?? []), ...(rec.pod.spec?.ephemeralContainers ?? [])].find((s) => s.name === c.name);
      const ref = podRef(rec.pod);
      if (!this.deps.runtime.recordsImageEvents?.(rec.uid)) this.announceImage(ref, spec?.image ?? c.image, c);
      recorder.event(ref, 'Normal', 'Created', `Created container ${c.name}`);
      recorder.event(ref, 'Normal', 'Started', `Started container ${c.name}`);
    }
  }

  /** The image manager's events for a started instance, for a runtime that does not record them: its pull, or the image found on the node. */
  private announceImage(ref: Pod, image: string, c: RuntimeContainerStatus): void {
    const recorder = this.deps.recorder!;
    if (!c.pulledImage) { recorder.event(ref, 'Normal', 'Pulled', `Container image "${image}" already present on machine`); return; }
    recorder.event(ref, 'Normal', 'Pulling', `Pulling image "${image}"`);
    recorder.event(ref, 'Normal', 'Pulled', successfullyPulled(image, c.pulledImage.ms, c.pulledImage.size));
  }

  /**
   * The image manager's events for a container waiting on its image, once per
   * failed pull or back-off (the runtime stamps each with createdAt), for a
   * runtime that does not record them itself (the simulated one), in
   * upstream's words: Pulling, Failed "Failed to pull image ...", Failed
   * "Error: ErrImagePull"; then BackOff "Back-off pulling image ...", Failed
   * "Error: ImagePullBackOff".
   */
  private announcePull(rec: PodRecord, c: RuntimeContainerStatus): void {
    const key = `pull/${c.name}/${c.reason}/${c.createdAt.getTime()}`;
    if (rec.announced.has(key)) return;
    rec.announced.add(key);
    const recorder = this.deps.recorder;
    if (!recorder || this.deps.runtime.recordsImageEvents?.(rec.uid)) return;
    const ref = podRef(rec.pod);
    const image = c.image;
    if (c.reason === 'InvalidImageName') {
      recorder.event(ref, 'Warning', 'InspectFailed', c.message ?? '');
    } else if (c.reason === 'ErrImagePull') {
      recorder.event(ref, 'Normal', 'Pulling', `Pulling image "${image}"`);
      recorder.event(ref, 'Warning', 'Failed', `Failed to pull image "${image}": ${c.message ?? ''}`);
    } else {
      recorder.event(ref, 'Normal', 'BackOff', `Back-off pulling image "${image}"`);
    }
    recorder.event(ref, 'Warning', 'Failed', `Error: ${c.reason}`);
  }

  /**
   * kuberuntime's startContainer records a failed create or start as Warning
   * Failed "Error: <why>" (e.g. `Error: configmap "x" not found`, `Error: exec:
   * "httpd": executable file not found in $PATH`), so kubectl describe says why
   * the container waits; once per reason and message.
   */
  private announceStartFailure(rec: PodRecord, c: RuntimeContainerStatus): void {
    const key = `start/${c.name}/${c.reason}/${c.message ?? ''}`;
    if (rec.announced.has(key)) return;
    rec.announced.add(key);
    this.deps.recorder?.event(podRef(rec.pod), 'Warning', 'Failed', `Error: ${c.message || c.reason}`);
  }

  /**
   * kuberuntime's doBackOff records Warning BackOff "Back-off restarting
   * failed container <c> in pod <name>_<ns>(<uid>)" while a crashed
   * container waits out its back-off (the memory page's OOM-killed
   * memory-demo-2); once per wait here, upstream at each sync within it.
   */
  private announceCrashBackOff(rec: PodRecord, c: RuntimeContainerStatus): void {
    const key = `backoff/${c.name}/${c.restartCount}`;
    if (rec.announced.has(key)) return;
    rec.announced.add(key);
    const m = rec.pod.metadata;
    this.deps.recorder?.event(podRef(rec.pod), 'Warning', 'BackOff', `Back-off restarting failed container ${c.name} in pod ${m?.name}_${m?.namespace}(${m?.uid})`);
  }

  private observeStart(rec: PodRecord, rs: RuntimePodStatus): void {
    if (rec.started || !rs.containers.length || !rs.containers.every((c) => c.state === 'running')) return;
    rec.started = true;
    this.deps.metrics?.runningPods.inc();
    this.deps.metrics?.podStartDuration.observe((this.deps.timers.now().getTime() - rec.firstSeen) / 1000);
  }

  private async terminate(rec: PodRecord): Promise<void> {
    if (rec.terminating) return;
    rec.terminating = true;
    this.prober?.removePod(rec.uid);
    const { runtime, recorder } = this.deps;
    const pod = rec.pod;
    const graceSeconds = pod.metadata!.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
    const graceMs = Math.max(0, Math.min(graceSeconds * 1000, this.deps.deleteDelayMs));
    const rs = runtime.status(rec.uid);
    for (const c of rs?.containers ?? []) {
      if (c.state === 'running') recorder?.event(podRef(pod), 'Normal', 'Killing', `Stopping container ${c.name}`);
    }
    await this.kill(rec.uid, graceMs);
    if (pod.metadata!.finalizers?.length) this.writeTerminalStatus(rec);
    this.released(rec);
    await this.deleteFromAPI(rec);
  }

  /**
   * Upstream's syncTerminatingPod ends with a terminal status (getPhase with
   * podIsTerminal: Succeeded when every container exited 0, else Failed).
   * Written only for a pod a finalizer keeps after the kubelet's delete: the
   * Job controller waits for that phase before it counts a deleted pod under
   * a podFailurePolicy (the drain of the Pod failure policy page), while a
   * pod without finalizers is gone at the delete, so nothing reads it.
   */
  private writeTerminalStatus(rec: PodRecord): void {
    const { timers, hostIP } = this.deps;
    const rs = this.runtimeStatus(rec.uid);
    this.deps.status.request(rec.key, rec.uid, (p) => {
      if (podIsTerminal(p)) return undefined;
      const status = generatePodStatus(p, rs, { hostIP, now: timers.now() });
      const allSucceeded = status.containerStatuses.every((c) => c.state?.terminated?.exitCode === 0);
      return { ...status, phase: allSucceeded ? 'Succeeded' : 'Failed' };
    });
  }

  /** DELETE with grace 0 once the containers are stopped; retried on server trouble. */
  private async deleteFromAPI(rec: PodRecord): Promise<void> {
    const { namespace, name } = rec.pod.metadata!;
    const clients = this.deps.clients;
    if (!clients) return;
    for (let attempt = 0; !this.closed; attempt++) {
      try {
        await clients.pods.delete(namespace, name!, { gracePeriodSeconds: 0, preconditions: { uid: rec.uid } });
        this.deps.metrics?.podDeletions.inc({ result: 'ok' });
        return;
      } catch (e) {
        if (isNotFound(e) || isConflict(e) || (e as { code?: number } | undefined)?.code === 409) { this.deps.metrics?.podDeletions.inc({ result: 'gone' }); return; }
        this.deps.metrics?.podDeletions.inc({ result: 'error' });
        this.deps.logger.warn('failed to delete pod', { pod: rec.key, err: e });
        await new Promise((r) => setTimeout(r, Math.min(10_000, 500 * 2 ** attempt)).unref());
      }
    }
  }

  /**
   * A terminal pod's containers and sandbox are stopped (its address goes back),
   * but kept until the pod is deleted, as upstream's kubelet keeps dead
   * containers for an existing pod: `kubectl logs` of a finished Job's pod
   * still reads what it wrote.
   */
  private async stopFinished(rec: PodRecord): Promise<void> {
    this.prober?.removePod(rec.uid);
    if (!this.deps.runtime.status(rec.uid)) return;
    await this.kill(rec.uid, 0);
    if (rec.started) { rec.started = false; this.deps.metrics?.runningPods.dec(); }
    this.writeStoppedStatus(rec);
  }

  /**
   * Upstream's syncTerminatedPod writes the stopped containers' statuses: a
   * sidecar (restartable init container) still running when a Job's pod
   * Succeeded shows terminated, and READY 0/2, once it is stopped. Written
   * only while the API still shows a container running, so a finished pod
   * without sidecars costs no extra write.
   */
  private writeStoppedStatus(rec: PodRecord): void {
    const { timers, hostIP } = this.deps;
    this.deps.status.request(rec.key, rec.uid, (p) => {
      if (p.metadata!.deletionTimestamp || !podIsTerminal(p)) return undefined;
      const shown = [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])];
      if (!shown.some((s) => s.state?.running)) return undefined;
      return generatePodStatus(p, this.runtimeStatus(rec.uid), { hostIP, now: timers.now() });
    });
  }

  private handleRemove(pod: Pod): void {
    const meta = pod.metadata!;
    const uid = meta.uid!;
    const rec = this.byUID.get(uid);
    this.byUID.delete(uid);
    this.deps.status.forget(`${meta.namespace}/${meta.name}`);
    this.prober?.removePod(uid);
    if (!rec) return;
    this.cleaning.add(uid);
    void this.kill(uid, 0).then(() => this.released(rec)).finally(() => this.cleaning.delete(uid));
  }

  /**
   * Stops the pod's containers; a runtime error (e.g. containerd's "ttrpc: closed"
   * when a shim died) is logged, not thrown: these run unawaited, and the
   * removal that follows (RemovePodSandbox) stops whatever is left by force.
   */
  private async kill(uid: string, graceMs: number): Promise<void> {
    try {
      await this.deps.runtime.killPod(uid, graceMs);
    } catch (e) {
      this.deps.logger.warn('failed to stop pod', { uid, err: e });
    }
  }

  /** Frees the pod's sandbox (its IP) once it is stopped. */
  private released(rec: PodRecord): void {
    if (rec.started) { rec.started = false; this.deps.metrics?.runningPods.dec(); }
    this.deps.runtime.removePod(rec.uid);
  }
}
