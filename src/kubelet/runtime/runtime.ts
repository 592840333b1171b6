/**
 * The contract between the node agent and a container runtime (upstream's
 * kubecontainer.Runtime plus its PLEG, cut down to what the agent drives).
 *
 * The agent owns the API: it decides which pods run (admission, deletion) and
 * writes their status. A runtime only runs pods and reports what it sees:
 *  - `syncPod` makes the pod's sandbox and containers match its spec
 *    (create what is missing; idempotent; also called when the pod object
 *    changes, e.g. its annotations, or an ephemeral container is added:
 *    started once in the running pod, never restarted);
 *  - `killPod` stops every container and the sandbox within the grace period;
 *  - `removePod` forgets a stopped pod and frees what it held (its IP);
 *  - `status` reports the sandbox and containers as the runtime knows them;
 *  - `onPodEvent` is the pod lifecycle event generator: the runtime calls the
 *    listener with a pod's UID whenever that pod's runtime status changed.
 *  - `readLogs` (optional) serves one container instance's log, by its ID,
 *    as a byte stream; the kubelet server resolves which instance (current
 *    or previous) from the pod status first, as upstream's
 *    validateContainerLogStatus does. Runtimes that keep CRI-format log
 *    files serve them with logs/readCRILog.
 *  - `streamURL` (optional) prepares an exec or attach in a running
 *    container and answers where its streams are served: a URL of the
 *    runtime's streaming server (CRI Exec/Attach), which speaks SPDY and
 *    the channel.k8s.io WebSocket protocols; the kubelet server joins the
 *    API server's connection to it. `portForwardURL` does the same for
 *    CRI PortForward. A runtime without a streaming server offers
 *    `openStream` and `dialPort` instead and the kubelet server speaks the
 *    callers' protocols itself.
 * The agent turns runtime status into API status (phase, conditions,
 * containerStatuses) in `status/generate.ts`, as the kubelet does, so every
 * runtime (simulated, process, CRI) reports the same way.
 */

import type { Duplex, Readable, Writable } from 'node:stream';
import type { ContainerLogOptions } from '../logs/options.js';
import type { Pod, Probe } from 'kubernetes-types/core/v1.js';

/**
 * 'waiting': no instance runs and the runtime is holding the container back
 * (an image that cannot be pulled, a restart in back-off, a failed create);
 * `reason` and `message` say why, in upstream's words (ErrImagePull,
 * ImagePullBackOff, CrashLoopBackOff, CreateContainerError...).
 */
export type RuntimeContainerState = 'created' | 'running' | 'exited' | 'waiting' | 'unknown';

/** How the previous instance of a container ended (containerStatuses[].lastState.terminated). */
export interface RuntimeTermination {
  id: string;
  exitCode: number;
  reason: string;
  message?: string;
  startedAt?: Date;
  finishedAt?: Date;
  /** Why the kubelet stopped this instance, when it did (the Killing event's message). */
  killMessage?: string;
}

export interface RuntimeContainerStatus {
  name: string;
  /** `<runtime type>://<id>`, as containerStatuses[].containerID; '' when no instance was ever created. */
  id: string;
  /** The image as the runtime resolved it (docker.io/library/nginx:latest). */
  image: string;
  imageID: string;
  state: RuntimeContainerState;
  createdAt: Date;
  startedAt?: Date;
  finishedAt?: Date;
  exitCode?: number;
  /** Terminated reason (Completed, Error, OOMKilled) or waiting reason, and message. */
  reason?: string;
  message?: string;
  restartCount: number;
  /** The previous instance, when the container was restarted. */
  lastTermination?: RuntimeTermination;
  /**
   * Readiness as a readiness probe reports it. Undefined means the runtime has
   * no opinion and a running container without a readiness probe is ready
   * (upstream: no probe means ready once started).
   */
  ready?: boolean;
  /** Started as a startup probe reports it; undefined means started once running. */
  started?: boolean;
  /**
   * The pull this instance's start made, from a runtime whose pulls the pod
   * workers announce (the simulated one): Pulling, then Pulled "Successfully
   * pulled image ..."; absent: Pulled "already present on machine".
   */
  pulledImage?: PulledImage;
}

/** A pull before a container's start: how long it took and the image's size in bytes. */
export interface PulledImage {
  ms: number;
  size: number;
}

export interface RuntimeSandboxStatus {
  id: string;
  /** Ready: running with its network set up (PodReadyToStartContainers). */
  ready: boolean;
  /** The pod IP; for hostNetwork pods, the node's IP. */
  ip?: string;
  createdAt: Date;
}

export interface RuntimePodStatus {
  uid: string;
  namespace: string;
  name: string;
  sandbox?: RuntimeSandboxStatus;
  initContainers: RuntimeContainerStatus[];
  containers: RuntimeContainerStatus[];
  /**
   * The ephemeral containers started so far (spec.ephemeralContainers added
   * through pods/ephemeralcontainers). Each is started once, in the pod's
   * sandbox, and never restarted; absent or empty when there are none.
   */
  ephemeralContainers?: RuntimeContainerStatus[];
  /**
   * A runtime that decides the pod's outcome itself (the simulator's injected
   * failure and completion) sets this; otherwise the agent derives the phase
   * from the container states and the restart policy.
   */
  terminalPhase?: 'Succeeded' | 'Failed';
  /** Reason and message for the pod status when terminalPhase is set. */
  reason?: string;
  message?: string;
}

/** Which streams an exec or attach carries (PodExecOptions, PodAttachOptions). */
export interface StreamRequest {
  /** The command for an exec; absent for an attach. */
  cmd?: string[];
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/**
 * An exec or attach a runtime serves without a streaming server: the
 * caller's stdin goes to `stdin` (absent when the container takes none),
 * `stdout` and `stderr` come back (with a tty, everything is on stdout).
 */
export interface LocalStream {
  stdin?: Writable;
  stdout: Readable;
  stderr?: Readable;
  /** A terminal size message (channel 4); only with a tty. */
  resize?(cols: number, rows: number): void;
  /** The exec's exit code; for an attach, 0 when the container ends. Rejects when the command could not start. */
  done: Promise<number>;
  /** The caller went away: an exec's command is killed, an attach only detaches. */
  close(): void;
}

export interface PodRuntime {
  /** The scheme of container IDs, e.g. 'sim' ("sim://..."). */
  readonly type: string;
  /** What nodeInfo.containerRuntimeVersion shows, e.g. 'k8ts-sim://0.1.0'. */
  readonly version: string;
  syncPod(pod: Pod): void;
  killPod(uid: string, gracePeriodMs: number): Promise<void>;
  removePod(uid: string): void;
  status(uid: string): RuntimePodStatus | undefined;
  /** UIDs of every pod the runtime holds (running or stopped but not removed). */
  pods(): string[];
  onPodEvent(listener: (uid: string) => void): void;
  /**
   * The node's spec.podCIDRs, passed on when they are first seen or change
   * (upstream's UpdatePodCIDR → CRI UpdateRuntimeConfig): a runtime whose
   * network plugin takes pod addresses from the node's range needs it.
   */
  updatePodCIDR?(podCIDRs: string[]): Promise<void>;
  /**
   * The log of container `containerID` (`<type>://<id>`, as in
   * containerStatuses) of pod `uid`. Throws when the runtime does not know
   * that container.
   */
  readLogs?(uid: string, containerID: string, opts: ContainerLogOptions): Readable;
  /**
   * The probing seam (src/kubelet/prober). A runtime offering both methods
   * gets liveness, readiness and startup probes run by the agent; one
   * without them keeps reporting readiness itself.
   *  - `execSync` runs a command in container `containerID` (`<type>://<id>`)
   *    and reports its exit code and combined output; `timedOut` when it
   *    outlived timeoutMs.
   *  - `killContainer` stops that instance within the grace period; the
   *    runtime then restarts it as the restart policy says.
   */
  execSync?(containerID: string, cmd: string[], timeoutMs: number): Promise<{ exitCode: number; output: string; timedOut?: boolean }>;
  killContainer?(uid: string, containerID: string, gracePeriodMs: number): Promise<void>;
  /**
   * For a runtime without a streaming server (process): an exec (req.cmd)
   * or attach in container `containerID` of pod `uid` as local streams;
   * the kubelet server carries them over the caller's connection itself.
   */
  openStream?(uid: string, containerID: string, req: StreamRequest): LocalStream;
  /**
   * For a runtime without a streaming server: a connection to `port` in pod
   * `uid`'s network (a socket, or for the simulated runtime an in-process
   * responder); a port nobody listens on fails with ECONNREFUSED.
   */
  dialPort?(uid: string, port: number): Duplex;
  /** False when openStream serves exec only (the simulated runtime on a node that keeps no logs: no console to attach to); the kubelet server refuses attach then. */
  readonly attachable?: boolean;
  /**
   * A runtime that runs no process (the simulated one) answers probes
   * itself: the outcome of one probe of that type against instance
   * `containerID` (an exec probe may run in its simulated shell, hence async). With killContainer it gets the agent's prober too, so
   * thresholds, periods and restarts follow the kubelet's rules.
   */
  simulateProbe?(uid: string, containerID: string, type: 'liveness' | 'readiness' | 'startup', probe: Probe): Promise<{ result: 'success' | 'failure'; output: string }>;
  /** Where to connect for an exec (cmd given) or attach (no cmd) in container `containerID` of pod `uid`. */
  streamURL?(uid: string, containerID: string, req: StreamRequest): Promise<string>;
  /** Where to connect to forward `ports` (WebSocket; SPDY names ports per stream) into pod `uid`'s network namespace. */
  portForwardURL?(uid: string, ports: number[]): Promise<string>;
  /** Usage of the running containers (ContainerStatsProvider); absent when the runtime measures none. */
  containerStats?(): Promise<RuntimeContainerStats[]>;
  /** The node's own usage, from a runtime that simulates the machine too (the simulated runtime's usage model). */
  machineUsage?(): SimulatedMachineUsage;
  /**
   * True when the runtime records pod `uid`'s image events itself (the CRI runtime's image manager:
   * Pulling, Pulled, Failed, BackOff); otherwise the pod workers say "already present on machine".
   */
  recordsImageEvents?(uid: string): boolean;
  close(): Promise<void>;
}

/**
 * One running container's resource usage as the runtime measured it (CRI
 * ContainerStats, cut to what the summary API serves). Cumulative CPU only:
 * the kubelet's sampler (stats/sampler.ts) turns two readings into a rate.
 */
export interface RuntimeContainerStats {
  podUID: string;
  /** The container's name in the pod spec. */
  name: string;
  /** When it was measured. */
  timestamp: Date;
  /** CPU time used since the container started, summed over cores. */
  usageCoreNanoSeconds?: number;
  /** Memory in use minus what the kernel can reclaim at once (cgroup usage - inactive_file). */
  workingSetBytes?: number;
  usageBytes?: number;
  rssBytes?: number;
}

/** A simulated machine's cumulative CPU and memory (what /proc gives a real node's summary). */
export interface SimulatedMachineUsage {
  cpuNanoSeconds: number;
  memory: { totalBytes: number; usageBytes: number; workingSetBytes: number; availableBytes: number };
}

/**
 * The stats seam: a runtime that can measure its containers offers
 * `containerStats` (running containers only). One without it (the simulated
 * runtime without its usage model: `k8ts sim`'s nodes) has no usage to
 * report, and the summary API lists its pods with no container stats, so
 * metrics.k8s.io leaves them out.
 */
export interface ContainerStatsProvider {
  containerStats(): Promise<RuntimeContainerStats[]>;
}
