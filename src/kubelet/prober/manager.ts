/**
 * The prober manager (upstream pkg/kubelet/prober/prober_manager.go): one
 * worker per probe of every container of the pods the agent runs, and the
 * results the status is generated from.
 *
 *  - `sync(pod)` adds workers for the probes in the pod's spec (regular
 *    containers and sidecars), `removePod` stops them.
 *  - `apply(pod, rs)` overlays the results on the runtime status: a container
 *    with a startup probe is started once it succeeded; one with a readiness
 *    probe is ready once that succeeded (for its current instance).
 *  - A liveness or startup failure (failureThreshold in a row) kills the
 *    instance with the Killing event "Container X failed liveness probe, will
 *    be restarted"; the runtime restarts it per the restart policy. Every
 *    failed probe records Unhealthy "Liveness probe failed: <output>".
 *  - A running instance the readiness worker has not seen yet (it was created
 *    between two ticks) is probed when its status is generated (upstream's
 *    manual trigger), not a period later.
 *  - `onChange` tells the agent to regenerate the pod's status.
 *  - A runtime that runs no process (simulateProbe) answers each probe
 *    itself; the workers, thresholds and kills are the same.
 */
import type { Container, Pod, Probe } from 'kubernetes-types/core/v1.js';
import type { EventRecorder } from '../../client/index.js';
import type { Logger } from '../../util/log.js';
import type { PodRuntime, RuntimeContainerStatus, RuntimePodStatus } from '../runtime/runtime.js';
import type { Timers } from '../timers.js';
import { ProbeWorker, probeTiming, type ProbeOutcome, type ProbeType } from './worker.js';
import { runProbe } from './probe.js';

export interface ProbeManagerDeps {
  runtime: PodRuntime;
  timers: Timers;
  logger: Logger;
  recorder?: EventRecorder;
  onChange(uid: string): void;
  /** Runs one probe; runProbe unless a test replaces it. */
  run?: typeof runProbe;
}

const probeField: Record<ProbeType, 'livenessProbe' | 'readinessProbe' | 'startupProbe'> = {
  liveness: 'livenessProbe', readiness: 'readinessProbe', startup: 'startupProbe',
};
const capitalized: Record<ProbeType, string> = { liveness: 'Liveness', readiness: 'Readiness', startup: 'Startup' };

interface PodProbes {
  pod: Pod;
  workers: Map<string, ProbeWorker>;
  /** Instances being killed after a failed probe: killed once only. */
  killed: Set<string>;
}

/** Containers that can be probed: regular ones and sidecars (restartable init containers). */
function probedContainers(pod: Pod): { c: Container; init: boolean }[] {
  return [
    ...(pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => ({ c, init: true })),
    ...(pod.spec?.containers ?? []).map((c) => ({ c, init: false })),
  ];
}

/** The event's object: the pod, narrowed to the container (upstream's container reference). */
const containerRef = (pod: Pod, c: Container, init: boolean) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: pod.metadata, fieldPath: `spec.${init ? 'initContainers' : 'containers'}{${c.name}}`,
});

export class ProbeManager {
  private readonly pods = new Map<string, PodProbes>();

  constructor(private readonly deps: ProbeManagerDeps) {}

  /** Starts workers for the pod's probes (idempotent; the spec's probes cannot change). */
  sync(pod: Pod): void {
    const uid = pod.metadata!.uid!;
    let pp = this.pods.get(uid);
    if (!pp) {
      pp = { pod, workers: new Map(), killed: new Set() };
      this.pods.set(uid, pp);
    }
    pp.pod = pod;
    for (const { c, init } of probedContainers(pod)) {
      for (const type of ['startup', 'readiness', 'liveness'] as ProbeType[]) {
        const probe = c[probeField[type]];
        const key = `${c.name}/${type}`;
        if (!probe || pp.workers.has(key)) continue;
        const w = this.newWorker(pp, uid, c, init, type, probe);
        pp.workers.set(key, w);
        w.start();
      }
    }
  }

  removePod(uid: string): void {
    const pp = this.pods.get(uid);
    if (!pp) return;
    this.pods.delete(uid);
    for (const w of pp.workers.values()) w.stop();
  }

  close(): void { for (const uid of [...this.pods.keys()]) this.removePod(uid); }

  /** The runtime status with probe results on its containers. */
  apply(uid: string, rs: RuntimePodStatus | undefined): RuntimePodStatus | undefined {
    const pp = this.pods.get(uid);
    if (!rs || !pp) return rs;
    const overlay = (list: RuntimeContainerStatus[]) => list.map((rc) => {
      const out = { ...rc };
      const started = this.result(pp, rc, 'startup');
      if (started !== undefined) out.started = started;
      const ready = this.result(pp, rc, 'readiness');
      if (ready !== undefined) out.ready = ready;
      // Upstream UpdatePodStatus: a started, running instance the readiness worker has not seen yet
      // (no result, not even the initial Failure) gets its probe now.
      if (ready === false && rc.state === 'running' && started !== false) {
        const w = pp.workers.get(`${rc.name}/readiness`)!;
        if (w.current().containerID !== rc.id) w.trigger();
      }
      return out;
    });
    return { ...rs, initContainers: overlay(rs.initContainers), containers: overlay(rs.containers) };
  }

  /** Whether the probe of that type succeeded for the instance; undefined when the container has no such probe. */
  private result(pp: PodProbes, rc: RuntimeContainerStatus, type: ProbeType): boolean | undefined {
    const w = pp.workers.get(`${rc.name}/${type}`);
    if (!w) return undefined;
    const cur = w.current();
    return cur.containerID === rc.id && cur.result === 'success';
  }

  private newWorker(pp: PodProbes, uid: string, c: Container, init: boolean, type: ProbeType, probe: Probe): ProbeWorker {
    const { runtime, timers } = this.deps;
    const timing = probeTiming(probe);
    const current = () => {
      const rs = runtime.status(uid);
      return (init ? rs?.initContainers : rs?.containers)?.find((x) => x.name === c.name);
    };
    const worker: ProbeWorker = new ProbeWorker({
      type, timing, timers,
      container: () => {
        const rc = current();
        if (!rc || !rc.id) return undefined;
        // Started: the startup probe (this worker's own result, for the startup worker) succeeded, or there is none.
        return { id: rc.id, running: rc.state === 'running', startedAt: rc.startedAt, started: this.result(pp, rc, 'startup') ?? true };
      },
      run: async (id) => runtime.simulateProbe
        ? runtime.simulateProbe(uid, id, type, probe)
        : (this.deps.run ?? runProbe)(probe, runtime.status(uid)?.sandbox?.ip ?? pp.pod.status?.podIP, c, id, runtime, timing.timeoutSeconds * 1000),
      onProbeFailure: (o) => this.unhealthy(pp, c, init, type, o),
      onResult: (id, result) => {
        // Only a running instance is killed (a stopped one also reads Failure).
        if ((type === 'liveness' || type === 'startup') && result === 'failure' && current()?.id === id && current()?.state === 'running') {
          void this.kill(pp, uid, c, init, id, type, probe);
        }
        if (this.pods.get(uid) === pp) this.deps.onChange(uid);
      },
    });
    return worker;
  }

  /** Upstream prober.recordContainerEvent: Unhealthy on every failed or errored probe. */
  private unhealthy(pp: PodProbes, c: Container, init: boolean, type: ProbeType, o: ProbeOutcome): void {
    const msg = o.result === 'error'
      ? `${capitalized[type]} probe errored and resulted in unknown state: ${o.output}`
      : `${capitalized[type]} probe failed: ${o.output}`;
    this.deps.recorder?.event(containerRef(pp.pod, c, init), 'Warning', 'Unhealthy', msg);
  }

  /** Kills the failing instance (upstream computePodActions + killContainer's message). */
  private async kill(pp: PodProbes, uid: string, c: Container, init: boolean, containerID: string, type: ProbeType, probe: Probe): Promise<void> {
    if (pp.killed.has(containerID) || !this.deps.runtime.killContainer) return;
    pp.killed.add(containerID);
    const restarts = (pp.pod.spec?.restartPolicy ?? 'Always') !== 'Never' || c.restartPolicy === 'Always';
    const message = `Container ${c.name} failed ${type} probe${restarts ? ', will be restarted' : ''}`;
    this.deps.recorder?.event(containerRef(pp.pod, c, init), 'Normal', 'Killing', message);
    this.deps.logger.info('killing container after failed probe', { pod: `${pp.pod.metadata?.namespace}/${pp.pod.metadata?.name}`, container: c.name, probe: type });
    // The probe's own terminationGracePeriodSeconds wins over the pod's (upstream, liveness and startup).
    const grace = probe.terminationGracePeriodSeconds ?? pp.pod.spec?.terminationGracePeriodSeconds ?? 30;
    try {
      await this.deps.runtime.killContainer(uid, containerID, grace * 1000);
    } catch (e) {
      pp.killed.delete(containerID);
      this.deps.logger.warn('failed to kill container after failed probe', { container: c.name, err: e });
    }
  }
}
