/**
 * The simulated runtime: no process runs; each pod follows a script.
 *
 *  1. syncPod on a new pod waits startDelay (or k8ts.io/sim-start-delay), then
 *     creates the sandbox with an IP from the node's pod CIDR (the node IP for
 *     hostNetwork pods), runs init containers to completion (exit 0) — a
 *     restartable init container (sidecar) keeps running — and starts every
 *     container.
 *  1a. An image the simulated registry does not have (registry.ts: the docs'
 *     "image that does not exist" examples, a tag such as `doesnotexist`)
 *     keeps its container waiting as the kubelet's image manager does:
 *     ErrImagePull, ImagePullBackOff from the next sync, another pull when
 *     the back-off (10 s doubling to 5 min) ends or the image changes; a
 *     waiting init container holds back the rest.
 *  1b. An ephemeral container (added through pods/ephemeralcontainers) starts
 *     at the next sync once the sandbox is up, even while init containers
 *     run, and runs until the pod stops; it is never restarted and never
 *     ready, and its image is pulled as in 1a without holding the pod back.
 *  2. readyDelay after starting (or k8ts.io/sim-ready-delay) containers report
 *     ready, unless k8ts.io/sim-ready is "false".
 *  3. k8ts.io/sim-complete-after ends the pod Succeeded after that long
 *     running; k8ts.io/sim-fail-after crashes its containers (exit 1): under
 *     restartPolicy Never the pod ends Failed, under Always and OnFailure
 *     they restart with the kubelet's crash back-off (CrashLoopBackOff while
 *     waiting, restartCount + 1, lastState terminated) and run the script
 *     again. Pods with restartPolicy Never or OnFailure end by themselves
 *     after 1 s (exit 0, or k8ts.io/sim-exit-code).
 *  3a. k8ts.io/sim-fail-after "web=5s" crashes only the named container,
 *     counted from its own start; the others run on, and it restarts (or,
 *     under Never, stays terminated) by its restart policy.
 *  3b. spec.activeDeadlineSeconds after status.startTime (or when the pod
 *     reached the runtime) ends the pod Failed, DeadlineExceeded, as the
 *     kubelet's activeDeadlineHandler does.
 *  3c. Probes are run by the agent's prober (src/kubelet/prober) like any
 *     runtime's: simulateProbe answers each one (k8ts.io/sim-liveness-fail,
 *     -readiness-fail, -startup-fail; an exec probe the simulated shell can
 *     run is run, exec-probe.ts), killContainer ends an instance whose
 *     liveness or startup probe failed failureThreshold times in a row.
 *  4. killPod stops running containers after the grace period (exit 0 where
 *     the image handles SIGTERM, else 137) and
 *     the sandbox; removePod frees the IP.
 * Every change is announced through onPodEvent (coalesced per microtask).
 * With podLogsDir, each container gets a CRI-format log file there (as the
 * kubelet lays them out) with its simulated lifecycle: "Created container
 * x", "Started container x", "Stopping container x", "Container x exited
 * with code N (Reason)"; readLogs serves it like any runtime's log.
 * On such nodes each container instance also has a console (attach.ts):
 * `kubectl attach` gets what its command writes, and a container with stdin
 * whose command is an interactive shell runs one until it exits.
 * See annotations.ts for the annotation reference.
 */
import { newRuntimeID } from './random-id.js';
import { appendFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Duplex, Readable } from 'node:stream';
import type { Container, ContainerStatus, Pod, PodSpec, Probe } from 'kubernetes-types/core/v1.js';
import type { LocalStream, PodRuntime, RuntimeContainerStats, RuntimeContainerStatus, RuntimePodStatus, RuntimeSandboxStatus, StreamRequest, SimulatedMachineUsage } from '../runtime.js';
import { realTimers, type TimerHandle, type Timers } from '../../timers.js';
import { IPPool } from './ipam.js';
import { normalizeImage, simulatedImageID } from './images.js';
import { NodeImages } from './image-pulls.js';
import { annotationCompleteAfter, annotationExitCode, annotationFailAfter, containerCrashes, probeAnnotated, probeFails, runsToCompletion, simScript } from './annotations.js';
import { simulatedPullError } from './registry.js';
import { probeFailureOutput } from './probes.js';
import { containerLogPath, formatCRILogLines, parseCRILogLine, podLogsDirectory, readCRILog, type ContainerLogOptions } from '../../logs/index.js';
import { terminationMessage } from './termination-message.js';
import { PodEventEmitter } from '../pod-events.js';
import { Backoff, goDuration } from '../cri/backoff.js';
import type { PodObjectGetter } from '../../volumes/objects.js';
import { containerView, prepareProgram, runsProgram, simulatedAllocatable } from './program.js';
import { needsStartChecks, startHolds, startRetryMs } from './start-checks.js';
import { runPostStartHook } from './lifecycle-hooks.js';
import { collectExec, preStopGraceSeconds, runPreStopHook } from './pre-stop.js';
import { runProgram } from './shell.js';
import { mainExitOnSignal } from './kill.js';
import { openSimulatedExec, type SimulatedExecDeps } from './exec.js';
import { ContainerConsole, shellSession } from './attach.js';
import { runExecProbe, runsExecProbe } from './exec-probe.js';
import { emptyLayer, type WritableLayer } from './layer.js';
import { listenerFiles, withContainerFiles, type ContainerFilesDeps } from './container-files.js';
import { processVolumeStore, type SimulatedVolumeStore } from './volumes.js';
import { processPodNetwork, type SimulatedPodNetwork } from './cluster-network.js';
import { connectListener, imageListener, refusedConnection, type ListenerFiles } from './listeners.js';
import { containerListener } from './app-servers.js';
import { containerConnect } from './container-connect.js';
import { hasNoShell, runsUntilStopped } from './image-entrypoints.js';
import { execNotFoundError } from './exec-errors.js';
import { probeServer, type ServerProbeTarget } from './server-probe.js';
import { StartEnvironments } from './start-env.js';
import type { EnvSources } from '../../envsources.js';
import { imageContents } from './image-contents.js';
import { interruptedExitCode, watchInterrupt } from './interrupt.js';
import { SimulatedRuntimeUsage, type RunningContainer, type SimulatedUsageOptions } from './usage.js';
import { backoffRequeueMs, firstRestartSyncMs, oomKillAfterMs, oomKillExitCode, oomKilledReason } from './oom-kill.js';
import { stressWorkload } from './stress.js';
import { containersWithChangedImage, definitionChangedMessage, invalidImageNameMessage } from './image-change.js';
import { PidNamespace } from './pid-namespace.js';
import { pidNamespaceName } from './processes.js';

export const simulatedRuntimeType = 'sim';
export const simulatedRuntimeVersion = 'k8ts-sim://0.1.0';

export interface SimulatedRuntimeOptions {
  /** The node's pod CIDR, e.g. 10.244.3.0/24. */
  podCIDR: string;
  /** The node's InternalIP: hostIP, and podIP of hostNetwork pods. */
  hostIP: string;
  /** Pod on the node → containers running (default 0). */
  startDelayMs?: number;
  /** Containers running → ready (default 0). */
  readyDelayMs?: number;
  timers?: Timers;
  /** Write each container's simulated lifecycle as a CRI log under this directory (none when absent). */
  podLogsDir?: string;
  /**
   * The ConfigMaps, Secrets and Services a container's environment and
   * volumes name, for the commands the simulator runs (program.ts); without
   * it they see only the pod's own env values.
   */
  objects?: PodObjectGetter;
  /** The node's name (the downward API's spec.nodeName before binding shows it). */
  nodeName?: string;
  /** Where emptyDir, PV and hostPath volumes keep their files (volumes.ts); default: one store for the whole process. */
  volumes?: SimulatedVolumeStore;
  /** The pods other pods' curl and wget reach by IP or through a Service (cluster-network.ts); default: one network for the whole process. */
  network?: SimulatedPodNetwork;
  /** Model the containers' CPU and memory (usage.ts) for the kubelet's summary, on a node of this capacity; none when absent. */
  usage?: SimulatedUsageOptions;
  /** The cluster DNS addresses the node's kubelet gives pods (--cluster-dns): their /etc/resolv.conf; none when absent. */
  clusterDNS?: string[];
  /** The API server as the kubelet reaches it (its kubeconfig's server, https://HOST:PORT): where a pod's https to the `kubernetes` Service goes. */
  apiServer?: string;
  /** Records the events the runtime itself reports (FailedPreStopHook). */
  recorder?: { event(obj: unknown, type: 'Normal' | 'Warning', reason: string, message: string): void };
}

/** The PID namespace container `spec` of `p` is in, made on first use (the pod's goes with it). */
function pidNamespaceOf(p: SimPod, spec: Container): PidNamespace {
  p.pidNamespaces ??= new Map();
  const name = pidNamespaceName(p.pod, spec);
  let ns = p.pidNamespaces.get(name);
  if (!ns) p.pidNamespaces.set(name, ns = new PidNamespace());
  return ns;
}

interface SimPod {
  uid: string;
  namespace: string;
  name: string;
  pod: Pod;
  sandbox?: RuntimeSandboxStatus;
  /** The sandbox address went back to the pool (the sandbox stopped). */
  ipReleased?: boolean;
  /** Takes the pod off the process's pod network (its sandbox's end). */
  detachNetwork?: () => void;
  initContainers: RuntimeContainerStatus[];
  containers: RuntimeContainerStatus[];
  /** Ephemeral containers started (or waiting for their image): each runs once and is never restarted. */
  ephemeralContainers: RuntimeContainerStatus[];
  startedAt?: Date;
  readyAt?: Date;
  terminalPhase?: 'Succeeded' | 'Failed';
  reason?: string;
  message?: string;
  /** When the kubelet first saw the pod (status.startTime): activeDeadlineSeconds counts from here. */
  activeSince: Date;
  timers: Map<TimerName, TimerHandle>;
  stopping?: Promise<void>;
  stopped: boolean;
  /** The end script the current 'end' timer was set for, to notice annotation changes. */
  endKey?: string;
  /** The activeDeadlineSeconds the 'deadline' timer was set for. */
  deadlineKey?: number;
  /** Per container, the instance and crash script its 'crash:<name>' timer was set for. */
  crashKeys: Map<string, string>;
  /** Containers waiting for an image the simulated registry does not have: the image, when it was last pulled, whether ImagePullBackOff shows. */
  pulling: Map<string, { image: string; attemptAt: number; backOffShown: boolean }>;
  /** Every container crashed together (the pod-wide script): its clock restarts once they all run again. */
  podRestart?: boolean;
  /** Container name → the instance whose command the simulator runs (its log is the command's output, no lifecycle lines). */
  programs: Map<string, string>;
  /** Container instance ID → its stdio for attach (attach.ts), on nodes that keep logs; ended with the instance. */
  consoles?: Map<string, ContainerConsole>;
  /** Exec sessions to tell when the pod's containers change (one that stopped ends its sessions). */
  execWatchers?: Set<() => void>;
  /** Container instance ID → what was written into it (`kubectl cp`, `>`); a restart's new instance starts empty. */
  layers?: Map<string, WritableLayer>;
  /** The pod's writable volumes resolved so far (volumes.ts), so a request to its nginx does not read the claim again. */
  volumeKeys?: Map<string, string>;
  /** The pod's PID namespaces (pid-namespace.ts) by processes.ts pidNamespaceName: '' for the shared one, else a container's name. */
  pidNamespaces?: Map<string, PidNamespace>;
  /** Container instance ID → requests its image's server counted (kubernetes-bootcamp's `Total Requests`). */
  requests?: Map<string, number>;
  /** Each container instance's environment sources as read at its start (start-env.ts). */
  startEnv?: StartEnvironments;
  /** Containers waiting in CreateContainerConfigError: name → the kubelet's message (start-checks.ts). */
  configHeld?: Map<string, string>;
  /**
   * Instance IDs of first containers whose command runs and that the kubelet
   * has not seen yet (hideUntilRelist): left out of status() until the
   * command ends, sleeps or a relist period passed.
   */
  unobserved?: Set<string>;
  /** Container name → the environment sources its last start check read, taken by the instance that starts next (start-checks.ts). */
  checkedSources?: Map<string, EnvSources>;
  /** Container instance ID → what its image's server keeps in memory (a redis's keys): gone with the instance. */
  serverMemory?: Map<string, Map<string, unknown>>;
}

/** The in-memory state of an instance's server; instances gone are dropped. */
function serverMemory(p: SimPod, id: string): Map<string, unknown> {
  const all = (p.serverMemory ??= new Map());
  for (const old of all.keys()) if (old !== id && !p.containers.some((x) => x.id === old)) all.delete(old);
  let m = all.get(id);
  if (!m) { m = new Map(); all.set(id, m); }
  return m;
}

type TimerName = 'start' | 'ready' | 'end' | 'restart' | 'deadline' | 'pull' | 'config' | `crash:${string}` | `sleep:${string}` | `oom:${string}` | `relist:${string}`;

/**
 * Upstream's PLEG relists the runtime's containers every second
 * (plegRelistPeriod), and the status the kubelet posts right after starting
 * a container was computed before it started. So a container whose command
 * ends within that second (`kubectl run -it --rm bb --image=busybox -- echo
 * hi`) is usually first posted already terminated, never Running, and kubectl
 * prints its log instead of attaching.
 */
const relistPeriodMs = 1000;

/**
 * How long a failed pull shows ErrImagePull before the next sync shows
 * ImagePullBackOff (the kubelet re-syncs a pod whose sync failed; on a
 * simulated node that sync comes a second later).
 */
export const backOffShownAfterMs = 1000;

/** Puts a container status in place of the one of the same name, or adds it; returns it. */
function putByName(list: RuntimeContainerStatus[], s: RuntimeContainerStatus): RuntimeContainerStatus {
  const i = list.findIndex((x) => x.name === s.name);
  if (i < 0) list.push(s); else list[i] = s;
  return s;
}

/** Upstream's pod status message for a pod past spec.activeDeadlineSeconds (pkg/kubelet/active_deadline.go). */
export const deadlineExceededMessage = 'Pod was active on the node longer than the specified deadline';

const newID = newRuntimeID;

export class SimulatedRuntime implements PodRuntime {
  readonly type = simulatedRuntimeType;
  readonly version = simulatedRuntimeVersion;
  private readonly pool: IPPool;
  private get network(): SimulatedPodNetwork { return this.opts.network ?? processPodNetwork; }
  private readonly timers: Timers;
  private readonly byUID = new Map<string, SimPod>();
  private readonly events = new PodEventEmitter();
  /** The kubelet's crash-loop back-off: 10 s doubling to 5 min, forgotten after 10 min of running. */
  private readonly crashBackoff: Backoff;
  /** The kubelet's image pull back-off per pod and image: 10 s doubling to 5 min. */
  private readonly pullBackoff: Backoff;
  /** The images this node has pulled (image-pulls.ts): the Pulling and Pulled events of a start. */
  private readonly images = new NodeImages();
  private closed = false;
  private readonly usage?: SimulatedRuntimeUsage;
  /** With the usage model only: the summary's container stats and the node's own (usage.ts). */
  readonly containerStats?: () => Promise<RuntimeContainerStats[]>;
  readonly machineUsage?: () => SimulatedMachineUsage;

  constructor(private readonly opts: SimulatedRuntimeOptions) {
    this.pool = new IPPool(opts.podCIDR);
    this.timers = opts.timers ?? realTimers;
    this.crashBackoff = new Backoff(() => this.timers.now().getTime());
    this.pullBackoff = new Backoff(() => this.timers.now().getTime());
    if (opts.usage) {
      const usage = this.usage = new SimulatedRuntimeUsage(opts.usage, this.timers);
      this.containerStats = async () => usage.stats(this.runningContainers());
      this.machineUsage = () => usage.nodeUsage();
    }
  }

  /** Every container instance running now (the usage model counts them). */
  private runningContainers(): RunningContainer[] {
    const out: RunningContainer[] = [];
    for (const p of this.byUID.values()) {
      if (p.stopped) continue;
      for (const c of [...p.initContainers, ...p.containers, ...p.ephemeralContainers]) {
        const spec = c.state === 'running' ? this.containerSpec(p, c.name) : undefined;
        if (spec) out.push({ podUID: p.uid, id: c.id, spec, startedAt: c.startedAt ?? c.createdAt });
      }
    }
    return out;
  }

  syncPod(pod: Pod): void {
    if (this.closed) return;
    const uid = pod.metadata!.uid!;
    let p = this.byUID.get(uid);
    if (!p) {
      const since = Date.parse(pod.status?.startTime ?? '');
      const activeSince = Number.isNaN(since) ? this.timers.now() : new Date(since);
      p = { uid, namespace: pod.metadata!.namespace!, name: pod.metadata!.name!, pod, activeSince, initContainers: [], containers: [], ephemeralContainers: [], timers: new Map(), stopped: false, crashKeys: new Map(), pulling: new Map(), programs: new Map() };
      this.byUID.set(uid, p);
      this.scheduleDeadline(p);
      if (this.adopt(p, pod)) return;
      const delay = simScript(pod).startDelayMs ?? this.opts.startDelayMs ?? 0;
      this.after(p, 'start', delay, () => this.checkedStart(p!));
      return;
    }
    p.pod = pod;
    if (p.stopped || p.stopping || p.terminalPhase) return;
    this.scheduleDeadline(p);
    if (!p.startedAt) return;
    // A new image for a container waiting on its pull (kubectl set image) is pulled at once.
    const images = new Map([...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map((c) => [c.name, String(c.image ?? '')]));
    if ([...p.pulling].some(([name, w]) => images.has(name) && images.get(name) !== w.image)) { this.startContainers(p); return; }
    // A running container whose image changed (kubectl set image on a pod) is killed and started again (image-change.ts).
    const changed = containersWithChangedImage(pod.spec?.containers ?? [], p.containers, p.pulling);
    if (changed.length) { this.replaceChanged(p, changed); return; }
    // An ephemeral container added through pods/ephemeralcontainers starts now.
    if ((pod.spec?.ephemeralContainers ?? []).some((c) => !p!.pulling.has(c.name) && !p!.ephemeralContainers.some((x) => x.name === c.name))) { this.startContainers(p); return; }
    this.updateReadiness(p);
    this.scheduleEnd(p);
    this.scheduleCrashes(p);
  }

  /**
   * One simulated probe: it fails while the pod's k8ts.io/sim-<type>-fail
   * window covers how long this instance has run; a readiness probe also
   * fails while the pod's script holds readiness (ready delay, sim-ready).
   * An exec probe whose command the simulated shell runs, of a container
   * whose own command the simulator runs, in a pod without that
   * annotation, is run instead (exec-probe.ts): its exit code and output
   * are the outcome, against the instance's files as they are now.
   */
  async simulateProbe(uid: string, containerID: string, type: 'liveness' | 'readiness' | 'startup', probe: Probe): Promise<{ result: 'success' | 'failure'; output: string }> {
    const p = this.byUID.get(uid);
    const c = p && [...p.initContainers, ...p.containers].find((x) => x.id === containerID);
    if (!p || !c || c.state !== 'running') return { result: 'failure', output: `container ${containerID} is not running` };
    const held = type === 'readiness' && !(p.readyAt && simScript(p.pod).readinessAllowed);
    if (held) return { result: 'failure', output: probeFailureOutput(probe, p.sandbox?.ip) };
    const command = probe.exec?.command ?? [];
    // Only for a container whose own command the simulator runs: of any other, nothing knows what it would have written.
    if (probe.exec && this.runsProgram(p, c) && !probeAnnotated(p.pod, type) && runsExecProbe(command)) {
      const spec = this.containerSpec(p, c.name) ?? { name: c.name };
      const deps = { objects: this.opts.objects, nodeName: this.opts.nodeName ?? p.pod.spec?.nodeName ?? '', hostIP: this.opts.hostIP, podIP: p.sandbox?.ip };
      const ran = await runExecProbe(command, {
        view: async () => withContainerFiles((await containerView(p.pod, spec, { ...deps, sources: await p.startEnv?.of(containerID) })).context, this.filesDeps(p, spec, containerID)),
        timers: this.timers,
        // Upstream's default timeoutSeconds is 1 (probeTiming's).
        timeoutMs: (probe.timeoutSeconds && probe.timeoutSeconds > 0 ? probe.timeoutSeconds : 1) * 1000,
        running: () => c.id === containerID && c.state === 'running' && !p.stopped,
      });
      if (ran) return ran;
    }
    const spec = this.containerSpec(p, c.name);
    // An httpGet or tcpSocket probe reaches the server the simulator knows in the pod, as the kubelet's reaches the pod IP (server-probe.ts).
    // A pod steered by any k8ts.io/sim-<type>-fail annotation keeps the simulated outcome for all its probes.
    const steered = (['liveness', 'readiness', 'startup'] as const).some((t) => probeAnnotated(p.pod, t));
    const served = spec && !steered ? await probeServer(probe, this.serverProbeTarget(p, spec, probe)) : undefined;
    if (served) return served;
    const ranMs = this.timers.now().getTime() - (c.startedAt ?? c.createdAt).getTime();
    if (probeFails(p.pod, type, c.name, ranMs)) return { result: 'failure', output: probeFailureOutput(probe, p.sandbox?.ip) };
    return { result: 'success', output: '' };
  }

  /** What server-probe.ts needs of the pod: which ports its running containers serve, and whether it knows them all (each read when asked). */
  private serverProbeTarget(p: SimPod, container: Container, probe: Probe): ServerProbeTarget {
    const running = p.containers.filter((c) => c.state === 'running');
    const env = (spec: Container) => new Map((spec.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value!]));
    return {
      container, podIP: p.sandbox?.ip, dial: (port: number) => this.dialPort(p.uid, port),
      serves: (port: number) => running.some((c) => { const spec = this.containerSpec(p, c.name); return !!spec && !!containerListener(spec)?.ports(env(spec)).includes(port); }),
      // Sidecars (restartable init containers) share the pod's network too; dialPort does not reach them, so one the simulator cannot see into might listen.
      knowsEveryContainer: () => !(p.pod.spec?.initContainers ?? []).some((i) => i.restartPolicy === 'Always')
        && (p.pod.spec?.containers ?? []).every((spec) => !!containerListener(spec) || running.some((c) => c.name === spec.name && this.runsProgram(p, c))),
      // Upstream's default timeoutSeconds is 1 (probeTiming's).
      timeoutMs: (probe.timeoutSeconds && probe.timeoutSeconds > 0 ? probe.timeoutSeconds : 1) * 1000,
    };
  }

  /**
   * The prober kills an instance whose liveness or startup probe failed: it
   * exits at once (137, as on SIGKILL: a simulated process has no SIGTERM
   * handler) and restarts unless restartPolicy is Never — whatever its exit
   * code, as upstream's computePodActions restarts it.
   */
  killContainer(uid: string, containerID: string): Promise<void> {
    const p = this.byUID.get(uid);
    const c = p && [...p.initContainers, ...p.containers].find((x) => x.id === containerID);
    if (!p || !c || c.state !== 'running' || p.stopping || p.stopped || p.terminalPhase) return Promise.resolve();
    this.exitContainer(p, c, 137, true);
    return Promise.resolve();
  }

  killPod(uid: string, gracePeriodMs: number): Promise<void> {
    const p = this.byUID.get(uid);
    if (!p || p.stopped) return Promise.resolve();
    if (p.stopping) return p.stopping;
    for (const h of p.timers.values()) this.timers.clearTimeout(h);
    p.timers.clear();
    const arm = (resolve: () => void) => {
      const stop = () => { this.stop(p); resolve(); };
      if (gracePeriodMs <= 0 || !p.containers.some((c) => c.state === 'running')) stop();
      else p.timers.set('end', this.timers.setTimeout(stop, gracePeriodMs));
    };
    // The preStop handlers run first, within the pod's own grace period (pre-stop.ts); a forced removal (0) skips them.
    const hooks = gracePeriodMs > 0 && this.opts.podLogsDir && p.containers.some((c) => c.state === 'running' && this.containerSpec(p, c.name)?.lifecycle?.preStop);
    p.stopping = hooks ? this.runPreStopHooks(p).then(() => new Promise<void>(arm)) : new Promise<void>(arm);
    return p.stopping;
  }

  /** Each running container's preStop handler, at once (upstream kills the containers in parallel); a failure is FailedPreStopHook. */
  private async runPreStopHooks(p: SimPod): Promise<void> {
    const grace = preStopGraceSeconds(p.pod);
    await Promise.all(p.containers.filter((c) => c.state === 'running').map(async (c) => {
      const spec = this.containerSpec(p, c.name);
      if (!spec?.lifecycle?.preStop) return;
      const failure = await runPreStopHook({
        pod: p.pod, container: spec, podIP: p.sandbox?.ip, timers: this.timers, dial: (port) => this.dialPort(p.uid, port),
        exec: (argv) => collectExec(openSimulatedExec(argv, { cmd: argv, stdin: false, stdout: true, stderr: true, tty: false }, this.execDeps(p, c, spec))),
      }, grace);
      if (failure) this.opts.recorder?.event({ apiVersion: 'v1', kind: 'Pod', metadata: p.pod.metadata, fieldPath: `spec.containers{${c.name}}` }, 'Warning', 'FailedPreStopHook', failure);
    }));
  }

  removePod(uid: string): void {
    const p = this.byUID.get(uid);
    if (!p) return;
    for (const h of p.timers.values()) this.timers.clearTimeout(h);
    this.releaseIP(p);
    this.byUID.delete(uid);
    this.opts.objects?.forgetPodTokens?.(uid);
    (this.opts.volumes ?? processVolumeStore).dropPod(uid);
    for (const w of [...(p.execWatchers ?? [])]) w();
    for (const stdio of p.consoles?.values() ?? []) stdio.end();
    this.crashBackoff.forget(`${uid}/`);
    this.pullBackoff.forget(`${uid}/`);
    // Upstream's container GC removes a removed pod's logs with it.
    if (this.opts.podLogsDir) rmSync(podLogsDirectory(this.opts.podLogsDir, p), { recursive: true, force: true });
  }

  readLogs(uid: string, containerID: string, opts: ContainerLogOptions): Readable {
    const p = this.byUID.get(uid);
    const find = () => p && [...p.initContainers, ...p.containers, ...p.ephemeralContainers].find((c) => c.id === containerID);
    const c = find();
    // The previous instance of a restarted container (kubectl logs --previous) logged to the previous restart's file.
    const prev = !c && p ? p.containers.find((x) => x.lastTermination?.id === containerID) : undefined;
    if (!p || (!c && !prev)) throw new Error(`container ${containerID} of pod ${uid} is not known to the runtime`);
    if (!this.opts.podLogsDir) throw new Error('the simulated runtime keeps no logs (no pod logs directory)');
    if (prev) return readCRILog(containerLogPath(this.opts.podLogsDir, p, prev.name, prev.restartCount - 1), opts, { isRunning: () => false });
    return readCRILog(containerLogPath(this.opts.podLogsDir, p, c!.name, c!.restartCount), opts, { isRunning: () => find()?.state === 'running' });
  }

  /**
   * `kubectl exec` (exec.ts): the command runs in the simulated shell against
   * the container's environment and files. `kubectl attach` (no command)
   * connects to the instance's stdio (attach.ts): its interactive shell, or
   * what its command writes from then on.
   */
  openStream(uid: string, containerID: string, req: StreamRequest): LocalStream {
    const p = this.byUID.get(uid);
    const c = p && [...p.initContainers, ...p.containers, ...p.ephemeralContainers].find((x) => x.id === containerID);
    if (!p || !c || c.state !== 'running') throw new Error(`container ${containerID} is not running`);
    if (!req.cmd?.length) {
      const stdio = p.consoles?.get(containerID);
      if (!stdio) throw new Error(`attach is not supported: container ${c.name} is simulated and runs no process`);
      return stdio.attach(req);
    }
    const spec = this.containerSpec(p, c.name) ?? { name: c.name };
    // An image with nothing but its entrypoint (pause) has no program to exec.
    if (hasNoShell(spec.image) && !req.cmd[0]!.startsWith('/pause')) throw execNotFoundError(req.cmd[0]!);
    return openSimulatedExec(req.cmd, req, this.execDeps(p, c, spec, true));
  }

  /** The instance's files as its own process reads them at start: with its ConfigMap, Secret and downward API volumes, which listenerFiles leaves out. */
  private async startFiles(p: SimPod, c: RuntimeContainerStatus, spec: Container): Promise<ListenerFiles> {
    const v = await this.execDeps(p, c, spec).view();
    const text = (path: string) => v.readFile(path);
    return { readBytes: (path) => v.readBytes?.(path) ?? (text(path) === undefined ? undefined : Buffer.from(text(path)!)), listDir: (path) => v.listDir(path), mountPaths: (spec.volumeMounts ?? []).map((m) => m.mountPath) };
  }

  /**
   * What a session in the simulated shell of this container instance reads and waits on (exec.ts).
   * `tokens`: a person's shell (kubectl exec, an interactive main shell) also reads the pod's
   * service-account tokens, requested then (through the node's token cache); hooks and servers'
   * start files do not, so a pod start costs no TokenRequest.
   */
  private execDeps(p: SimPod, c: RuntimeContainerStatus, spec: Container, tokens = false): SimulatedExecDeps {
    const containerID = c.id;
    const deps = {
      objects: this.opts.objects, nodeName: this.opts.nodeName ?? p.pod.spec?.nodeName ?? '', hostIP: this.opts.hostIP, podIP: p.sandbox?.ip, serviceAccount: true, tokens,
      pidNamespace: pidNamespaceOf(p, spec),
    };
    return {
      view: async () => withContainerFiles((await containerView(p.pod, spec, { ...deps, sources: await p.startEnv?.of(containerID) })).context, this.filesDeps(p, spec, containerID)),
      timers: this.timers,
      running: () => c.id === containerID && c.state === 'running' && !p.stopped && this.byUID.get(p.uid) === p,
      watch: (changed) => {
        p.execWatchers ??= new Set();
        p.execWatchers.add(changed);
        return () => { p.execWatchers?.delete(changed); };
      },
      nodeName: deps.nodeName,
      signalMain: (signal) => this.signalMain(p, c, containerID, spec, signal),
      signalContainer: (name, signal) => {
        const other = p.containers.find((x) => x.name === name);
        const otherSpec = other && this.containerSpec(p, name);
        if (other && otherSpec) this.signalMain(p, other, other.id, otherSpec, signal);
      },
    };
  }

  /** `kill 1` in an exec (kill.ts): the instance exits when its image's server handles the signal, and restarts as its policy says. */
  private signalMain(p: SimPod, c: RuntimeContainerStatus, containerID: string, spec: Container, signal: number): void {
    const code = mainExitOnSignal(spec, signal);
    if (code === undefined || c.id !== containerID || c.state !== 'running' || p.stopping || p.stopped || p.terminalPhase) return;
    // The kubelet posts the exited instance (`0/1 Completed` in `get --watch`) before its next relist (1 s) shows the restarted one.
    this.exitContainer(p, c, code, false, 1000);
  }

  /**
   * Attach is served on nodes that keep logs (those of `k8ts up`, which
   * serve the kubelet API); a container instance without a console (one
   * adopted after a restart of the agent) refuses it when it is opened.
   */
  get attachable(): boolean { return !!this.opts.podLogsDir; }

  /**
   * A connection to `port` in the pod (port-forward, and pods/proxy through
   * the kubelet): the in-process responder of the running container whose
   * image listens there (listeners.ts), else refused as a closed port.
   * `remoteAddress` is the client its server sees: another pod's IP over the
   * pod network, else loopback (port-forward connects inside the pod).
   */
  dialPort(uid: string, port: number, remoteAddress = '127.0.0.1'): Duplex {
    const p = this.byUID.get(uid);
    if (!p || !p.sandbox?.ready || p.stopped) return refusedConnection(port);
    for (const c of p.containers) {
      if (c.state !== 'running') continue;
      const spec = this.containerSpec(p, c.name);
      const env = new Map((spec?.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value!]));
      const listener = spec && containerListener(spec);
      if (!listener?.ports(env).includes(port)) continue;
      const hostname = p.pod.spec?.hostname ?? p.name;
      const files = () => listenerFiles(this.filesDeps(p, spec!, c.id));
      // What the image's server writes per request goes to this instance's log, when its entrypoint (or the command that names it) is what runs.
      const id = c.id;
      const stdout = spec && (entrypointRuns(spec) || listener.namedByCommand) && this.opts.podLogsDir ? {
        startedAt: c.startedAt ?? c.createdAt, now: () => this.timers.now(),
        nextRequest: () => { const n = (p.requests?.get(id) ?? 0) + 1; (p.requests ??= new Map()).set(id, n); return n; },
        write: (text: string) => { if (c.id === id && c.state === 'running') { this.log(p, c, text); p.consoles?.get(id)?.write('stdout', text); } },
      } : undefined;
      const running = { podUID: p.uid, id, spec: spec!, startedAt: c.startedAt ?? c.createdAt };
      const compute = this.usage && (() => this.usage!.serve(running));
      const instance = { startedAt: c.startedAt ?? c.createdAt, now: () => this.timers.now(), connect: (host: string, to: number) => containerConnect(this.filesDeps(p, spec!, id), host, to), memory: serverMemory(p, id) };
      return connectListener(listener, { hostname, env, remoteAddress, files, stdout, compute, ...instance }) ?? refusedConnection(port);
    }
    return refusedConnection(port);
  }

  /**
   * What the container instance's files and network are made of
   * (container-files.ts). Only running instances keep a writable layer:
   * those of instances gone before are dropped.
   */
  private filesDeps(p: SimPod, spec: Container, containerID: string): ContainerFilesDeps {
    p.layers ??= new Map();
    for (const id of p.layers.keys()) if (id !== containerID && ![...p.containers, ...p.initContainers, ...p.ephemeralContainers].some((x) => x.id === id)) p.layers.delete(id);
    if (!p.layers.has(containerID)) p.layers.set(containerID, emptyLayer());
    return {
      pod: p.pod, spec, podIP: p.sandbox?.ip, layer: p.layers.get(containerID)!, store: this.opts.volumes ?? processVolumeStore, volumeKeys: (p.volumeKeys ??= new Map()),
      objects: this.opts.objects, nodeName: this.opts.nodeName ?? p.pod.spec?.nodeName ?? '', dial: (port) => this.dialPort(p.uid, port), network: this.network,
      startedAt: [...p.containers, ...p.initContainers, ...p.ephemeralContainers].find((x) => x.id === containerID)?.startedAt,
      clusterDNS: this.opts.clusterDNS, apiServer: this.opts.apiServer,
    };
  }

  private containerSpec(p: SimPod, name: string): Container | undefined {
    const spec = p.pod.spec;
    return [...(spec?.initContainers ?? []), ...(spec?.containers ?? []), ...((spec?.ephemeralContainers ?? []) as Container[])].find((x) => x.name === name);
  }

  status(uid: string): RuntimePodStatus | undefined {
    const p = this.byUID.get(uid);
    if (!p) return undefined;
    return {
      uid, namespace: p.namespace, name: p.name,
      sandbox: p.sandbox && { ...p.sandbox },
      initContainers: p.initContainers.map((c) => ({ ...c })),
      // A running instance the kubelet has not seen yet is not in its status (hideUntilRelist); one killed meanwhile is.
      containers: p.containers.filter((c) => !(c.state === 'running' && p.unobserved?.has(c.id))).map((c) => ({ ...c })),
      ephemeralContainers: p.ephemeralContainers.map((c) => ({ ...c })),
      terminalPhase: p.terminalPhase, reason: p.reason, message: p.message,
    };
  }

  pods(): string[] { return [...this.byUID.keys()]; }

  onPodEvent(listener: (uid: string) => void): void { this.events.on(listener); }

  async close(): Promise<void> {
    this.closed = true;
    this.usage?.close();
    for (const p of this.byUID.values()) {
      for (const h of p.timers.values()) this.timers.clearTimeout(h);
      p.detachNetwork?.();
      for (const stdio of p.consoles?.values() ?? []) stdio.end();
    }
    this.byUID.clear();
  }

  /** Pods holding an IP from the node's range. */
  get addressesInUse(): number { return this.pool.inUse; }

  private after(p: SimPod, which: TimerName, ms: number, fn: () => void): void {
    // A closed runtime schedules nothing: a start check still in flight at close (its reads fail once the
    // node stops) would otherwise retry every 2 s for ever, and keep the stopped process alive.
    if (this.closed) return;
    const old = p.timers.get(which);
    if (old) this.timers.clearTimeout(old);
    if (ms <= 0) { p.timers.delete(which); fn(); return; }
    p.timers.set(which, this.timers.setTimeout(() => { p.timers.delete(which); fn(); }, ms));
  }

  /**
   * Starts the pod once the ConfigMaps and Secrets it names are there
   * (start-checks.ts): a volume that cannot be set up holds the whole pod in
   * ContainerCreating (a FailedMount event each try), a container whose
   * environment cannot be built waits in CreateContainerConfigError. Pods
   * that name none (most) start at once, as before.
   */
  private checkedStart(p: SimPod): void {
    const objects = this.opts.objects;
    if (!objects || !needsStartChecks(p.pod)) { this.start(p); return; }
    void startHolds(p.pod, objects, simulatedAllocatable).then((holds) => {
      if (p.stopped || p.stopping || this.closed) return;
      if (holds.mount) {
        this.opts.recorder?.event({ apiVersion: 'v1', kind: 'Pod', metadata: p.pod.metadata }, 'Warning', 'FailedMount', holds.mount);
        this.after(p, 'start', startRetryMs, () => this.checkedStart(p));
        return;
      }
      p.configHeld = holds.config;
      // Only the instances that start now take what the check read (a later start reads again).
      p.checkedSources = holds.sources;
      this.start(p);
      p.checkedSources = undefined;
    }, () => this.after(p, 'start', startRetryMs, () => this.checkedStart(p)));
  }

  /** Checks the containers held in CreateContainerConfigError again, and starts those whose objects are there now. */
  private recheckConfig(p: SimPod): void {
    const objects = this.opts.objects;
    if (!objects || p.stopped || p.stopping || p.terminalPhase) return;
    void startHolds(p.pod, objects, simulatedAllocatable).then((holds) => {
      if (p.stopped || p.stopping || this.closed) return;
      p.configHeld = holds.config;
      p.checkedSources = holds.sources;
      this.startContainers(p);
      p.checkedSources = undefined;
    }, () => this.after(p, 'config', startRetryMs, () => this.recheckConfig(p)));
  }

  /** True when c may be created; otherwise it waits in CreateContainerConfigError (start-checks.ts). */
  private configured(p: SimPod, c: Container, list: RuntimeContainerStatus[], now: Date): boolean {
    const message = p.configHeld?.get(c.name);
    if (message === undefined) return true;
    const old = list.find((x) => x.name === c.name);
    putByName(list, {
      name: c.name, id: '', image: String(c.image ?? ''), imageID: '', state: 'waiting', reason: 'CreateContainerConfigError', message,
      createdAt: now, restartCount: old?.restartCount ?? 0, lastTermination: old?.lastTermination, ready: false,
    });
    return false;
  }

  private start(p: SimPod): void {
    if (p.stopped || p.stopping) return;
    const now = this.timers.now();
    const spec: Partial<PodSpec> = p.pod.spec ?? {};
    const ip = spec.hostNetwork ? this.opts.hostIP : this.pool.allocate();
    p.sandbox = { id: newID(), ready: true, ip, createdAt: now };
    if (!spec.hostNetwork && ip) p.detachNetwork = this.network.attach(ip, (port, from) => this.dialPort(p.uid, port, from), () => p.pod);
    p.startedAt = now;
    const readyDelay = simScript(p.pod).readyDelayMs ?? this.opts.readyDelayMs ?? 0;
    this.after(p, 'ready', readyDelay, () => { p.readyAt = this.timers.now(); this.updateReadiness(p); });
    this.startContainers(p);
  }

  /**
   * Starts what does not run yet, in the kubelet's order: the init containers
   * one after the other (a regular one runs to completion, exit 0; a sidecar
   * keeps running), then every container. An image the simulated registry
   * does not have (registry.ts) keeps its container waiting, ErrImagePull and
   * then ImagePullBackOff, and an init container also holds back everything
   * after it; the pull is tried again when the back-off ends or the pod's
   * image changes.
   */
  private startContainers(p: SimPod): void {
    if (p.stopped || p.stopping || p.terminalPhase) return;
    const now = this.timers.now();
    const spec: Partial<PodSpec> = p.pod.spec ?? {};
    const created: RuntimeContainerStatus[] = [];
    const wasPulling = this.workloadPulling(p);
    let blocked = false;
    for (const c of spec.initContainers ?? []) {
      if (!this.needsStart(p, p.initContainers, c.name)) {
        // An init container whose command runs holds back the rest until it completes (exit 0).
        const s = p.initContainers.find((x) => x.name === c.name);
        if (this.initRunsProgram(c) && !(s?.state === 'exited' && s.exitCode === 0)) { blocked = true; break; }
        continue;
      }
      if (!this.pulled(p, c, p.initContainers, now) || !this.configured(p, c, p.initContainers, now)) { blocked = true; break; }
      const runs = this.initRunsProgram(c);
      const s = c.restartPolicy === 'Always' || runs ? this.container(c, now, 'running') : { ...this.container(c, now, 'exited'), exitCode: 0, reason: 'Completed', finishedAt: now, ready: false };
      created.push(putByName(p.initContainers, s));
      if (runs) { blocked = true; break; }
    }
    for (const c of blocked ? [] : spec.containers ?? []) {
      if (this.needsStart(p, p.containers, c.name) && this.pulled(p, c, p.containers, now) && this.configured(p, c, p.containers, now)) created.push(putByName(p.containers, this.nextInstance(c, p.containers, now)));
    }
    // Ephemeral containers start even while init containers run (upstream's computePodActions), once each.
    for (const ec of spec.ephemeralContainers ?? []) {
      const c = ec as Container;
      if (this.needsStart(p, p.ephemeralContainers, c.name) && this.pulled(p, c, p.ephemeralContainers, now)) created.push(putByName(p.ephemeralContainers, this.container(c, now, 'running')));
    }
    for (const c of created) {
      this.started(p, c);
      if (c.state === 'exited') this.logExit(p, c);
    }
    if (wasPulling && !this.workloadPulling(p)) {
      // Every image is there at last: the pod's script (completion, failure) counts from now.
      p.startedAt = now;
      p.endKey = undefined;
    }
    this.schedulePulls(p);
    if (p.configHeld?.size && !p.timers.has('config')) this.after(p, 'config', startRetryMs, () => this.recheckConfig(p));
    this.updateReadiness(p);
    this.scheduleEnd(p);
    this.scheduleCrashes(p);
    this.emit(p.uid);
  }

  /** Whether an init or regular container waits for its image or its ConfigMaps and Secrets (an ephemeral one holds back no script). */
  private workloadPulling(p: SimPod): boolean {
    const ephemeral = new Set((p.pod.spec?.ephemeralContainers ?? []).map((c) => c.name));
    return [...p.pulling.keys()].some((name) => !ephemeral.has(name))
      || [...p.initContainers, ...p.containers].some((c) => c.state === 'waiting' && c.reason === 'CreateContainerConfigError');
  }

  /** A container never created, waiting for its image, or for the ConfigMaps and Secrets its environment names. */
  private needsStart(p: SimPod, list: RuntimeContainerStatus[], name: string): boolean {
    const s = list.find((x) => x.name === name);
    return p.pulling.has(name) || !s || (s.state === 'waiting' && s.reason === 'CreateContainerConfigError');
  }

  /**
   * The kubelet's image manager on a simulated registry: true when c's image
   * is there; otherwise c waits, ErrImagePull right after a failed pull (the
   * back-off doubles, 10 s to 5 min) and ImagePullBackOff from the next sync
   * until the back-off ends.
   */
  private pulled(p: SimPod, c: Container, list: RuntimeContainerStatus[], now: Date): boolean {
    const image = String(c.image ?? '');
    const invalid = invalidImageNameMessage(image);
    const error = invalid ?? simulatedPullError(image);
    if (!error) { p.pulling.delete(c.name); return true; }
    const key = `${p.uid}/${image}`;
    const prev = p.pulling.get(c.name);
    // A waiting container keeps its last instance's restart count and termination (lastState).
    const old = list.find((x) => x.name === c.name);
    const waiting = (reason: string, message: string): RuntimeContainerStatus => ({
      name: c.name, id: '', image, imageID: '', state: 'waiting', reason, message, createdAt: now, restartCount: old?.restartCount ?? 0, lastTermination: old?.lastTermination, ready: false,
    });
    // A reference that does not parse is never pulled: InvalidImageName until the image changes (no back-off timer).
    if (invalid) {
      if (prev?.image !== image) putByName(list, waiting('InvalidImageName', invalid));
      p.pulling.set(c.name, { image, attemptAt: Infinity, backOffShown: true });
      return false;
    }
    const same = prev?.image === image;
    if (this.pullBackoff.isInBackOffSinceUpdate(key)) {
      if (same && prev.backOffShown) return false;
      putByName(list, waiting('ImagePullBackOff', `Back-off pulling image "${image}"`));
      p.pulling.set(c.name, { image, attemptAt: same ? prev.attemptAt : now.getTime(), backOffShown: true });
      return false;
    }
    this.pullBackoff.next(key);
    putByName(list, waiting('ErrImagePull', error));
    p.pulling.set(c.name, { image, attemptAt: now.getTime(), backOffShown: false });
    return false;
  }

  /** Arms the 'pull' timer for the next change of a waiting image: ImagePullBackOff shown, or the next pull. */
  private schedulePulls(p: SimPod): void {
    let due = Infinity;
    for (const w of p.pulling.values()) {
      due = Math.min(due, w.attemptAt + (w.backOffShown ? this.pullBackoff.get(`${p.uid}/${w.image}`) : backOffShownAfterMs));
    }
    const old = p.timers.get('pull');
    if (old) { this.timers.clearTimeout(old); p.timers.delete('pull'); }
    if (due !== Infinity) this.after(p, 'pull', Math.max(1, due - this.timers.now().getTime()), () => this.startContainers(p));
  }

  /**
   * A pod already running in the API with simulated containers (the agent
   * restarted) is taken over as it is: same IP, container IDs and start times.
   */
  private adopt(p: SimPod, pod: Pod): boolean {
    const st = pod.status ?? {};
    const statuses: ContainerStatus[] = st.containerStatuses ?? [];
    if (st.phase !== 'Running' || !statuses.length) return false;
    if (!statuses.every((s) => s.state?.running && String(s.containerID ?? '').startsWith(`${this.type}://`))) return false;
    const now = this.timers.now();
    const ip: string | undefined = st.podIP;
    if (ip && ip !== this.opts.hostIP && !this.pool.reserve(ip)) return false;
    // Only statuses whose state is running are adopted (checked above, and below for init containers).
    const adoptOne = (s: ContainerStatus): RuntimeContainerStatus => ({
      name: s.name, id: s.containerID!, image: s.image, imageID: s.imageID, state: 'running',
      createdAt: new Date(s.state!.running!.startedAt ?? now), startedAt: new Date(s.state!.running!.startedAt ?? now),
      restartCount: s.restartCount ?? 0, ready: !!s.ready,
    });
    p.sandbox = { id: newID(), ready: true, ip, createdAt: now };
    if (ip && ip !== this.opts.hostIP) p.detachNetwork = this.network.attach(ip, (port, from) => this.dialPort(p.uid, port, from), () => p.pod);
    p.startedAt = new Date(Math.min(...statuses.map((s) => Date.parse(s.state!.running!.startedAt!) || now.getTime())));
    const adoptExited = (s: ContainerStatus): RuntimeContainerStatus => ({
      name: s.name, id: s.containerID ?? `${this.type}://${newID()}`, image: s.image, imageID: s.imageID, state: 'exited' as const,
      createdAt: now, startedAt: now, finishedAt: now, exitCode: s.state?.terminated?.exitCode ?? 0, reason: s.state?.terminated?.reason ?? 'Completed',
      restartCount: s.restartCount ?? 0, ready: false,
    });
    p.initContainers = (st.initContainerStatuses ?? []).map((s) => (s.state?.running ? adoptOne(s) : adoptExited(s)));
    p.containers = statuses.map(adoptOne);
    // Ephemeral containers that ran are kept as they are: never started again. One still waiting starts at the next sync.
    p.ephemeralContainers = (st.ephemeralContainerStatuses ?? []).filter((s) => s.state?.running || s.state?.terminated)
      .map((s) => (s.state?.running ? adoptOne(s) : adoptExited(s)));
    if (statuses.every((s) => s.ready)) p.readyAt = now;
    else {
      const readyDelay = simScript(pod).readyDelayMs ?? this.opts.readyDelayMs ?? 0;
      const left = p.startedAt.getTime() + readyDelay - now.getTime();
      this.after(p, 'ready', left, () => { p.readyAt = this.timers.now(); this.updateReadiness(p); });
    }
    this.updateReadiness(p);
    this.scheduleEnd(p);
    this.scheduleCrashes(p);
    this.emit(p.uid);
    return true;
  }

  /**
   * The kubelet's spec-change restart (image-change.ts): each changed
   * container's instance stops (exit 0, as on SIGTERM) and a new one starts
   * at once from the new spec, or waits for its image as any.
   */
  private replaceChanged(p: SimPod, names: string[]): void {
    const now = this.timers.now();
    for (const c of p.containers.filter((x) => names.includes(x.name))) {
      const killMessage = definitionChangedMessage(c.name);
      if (c.state === 'running') {
        const own = this.logStop(p, c);
        Object.assign(c, { state: 'exited', exitCode: 0, reason: 'Completed', finishedAt: now, ready: false });
        if (!own) this.logExit(p, c);
        c.lastTermination = { id: c.id, exitCode: 0, reason: 'Completed', startedAt: c.startedAt, finishedAt: now, killMessage };
      } else if (c.lastTermination) c.lastTermination.killMessage = killMessage;
      const spec = p.pod.spec!.containers.find((x) => x.name === c.name)!;
      if (this.pulled(p, spec, p.containers, now)) this.started(p, putByName(p.containers, this.nextInstance(spec, p.containers, now)));
    }
    this.schedulePulls(p);
    this.updateReadiness(p);
    this.scheduleCrashes(p);
    this.emit(p.uid);
  }

  /** A new instance of c; after one that was stopped (its lastTermination), one restart more, that one as lastState. */
  private nextInstance(c: Container, list: RuntimeContainerStatus[], now: Date): RuntimeContainerStatus {
    const next = this.container(c, now, 'running');
    const prev = list.find((x) => x.name === c.name);
    if (prev?.lastTermination) Object.assign(next, { restartCount: prev.restartCount + 1, lastTermination: prev.lastTermination });
    return next;
  }

  private container(c: Container, now: Date, state: 'running' | 'exited'): RuntimeContainerStatus {
    const pulledImage = this.pullFor(c);
    return {
      name: c.name, id: `${this.type}://${newID()}`, image: normalizeImage(String(c.image ?? '')), imageID: simulatedImageID(String(c.image ?? '')),
      state, createdAt: now, startedAt: now, restartCount: 0, ready: false, ...(pulledImage ? { pulledImage } : {}),
    };
  }

  /** The pull a start of c makes (image-pulls.ts), on nodes that keep logs (`k8ts up`'s) only. */
  private pullFor(c: Container | undefined) {
    return this.opts.podLogsDir && c ? this.images.pullFor(c) : undefined;
  }

  /**
   * Readiness as the pod's script says (ready delay, k8ts.io/sim-ready);
   * probes are the agent's prober's (simulateProbe), whose results overlay
   * this for containers that have a startup or readiness probe.
   */
  private updateReadiness(p: SimPod): void {
    if (p.stopped || p.stopping || p.terminalPhase) return;
    const ready = !!p.readyAt && simScript(p.pod).readinessAllowed;
    let changed = false;
    for (const c of [...p.initContainers, ...p.containers]) {
      if (c.state !== 'running' || c.ready === ready) continue;
      c.ready = ready;
      changed = true;
    }
    if (changed) this.emit(p.uid);
  }

  /**
   * (Re)arms each named container's crash timer (k8ts.io/sim-fail-after
   * "web=5s"), counted from that instance's start.
   */
  private scheduleCrashes(p: SimPod): void {
    const crashes = containerCrashes(p.pod);
    for (const c of [...p.initContainers, ...p.containers]) {
      const crash = c.state === 'running' ? crashes.get(c.name) : undefined;
      const key = crash ? `${c.id}/${crash.afterMs}/${crash.exitCode}` : undefined;
      if (key === p.crashKeys.get(c.name)) continue;
      const timer: TimerName = `crash:${c.name}`;
      const old = p.timers.get(timer);
      if (old) { this.timers.clearTimeout(old); p.timers.delete(timer); }
      if (!crash || !key) { p.crashKeys.delete(c.name); continue; }
      p.crashKeys.set(c.name, key);
      const left = (c.startedAt ?? c.createdAt).getTime() + crash.afterMs - this.timers.now().getTime();
      this.after(p, timer, left, () => { if (c.state === 'running') this.exitContainer(p, c, crash.exitCode, false); });
    }
  }

  /**
   * A regular init container whose command the simulated shell runs (the
   * Init Containers page's `wget -O /work-dir/index.html http://info.cern.ch`):
   * it runs that command and exits with its code, as the kubelet's init
   * containers do; one whose command is not run completes at once (exit 0).
   */
  private initRunsProgram(c: Container): boolean {
    return !!this.opts.podLogsDir && c.restartPolicy !== 'Always' && runsProgram(c);
  }

  /**
   * Whether a stopped container starts again (upstream ShouldContainerBeRestarted;
   * sidecars always do; a failed init container unless the pod's policy is Never).
   */
  private restarts(p: SimPod, c: RuntimeContainerStatus, killed: boolean): boolean {
    const spec: Partial<PodSpec> = p.pod.spec ?? {};
    if (p.initContainers.includes(c)) {
      const init = (spec.initContainers ?? []).find((x) => x.name === c.name);
      if (init?.restartPolicy === 'Always') return true;
      return (spec.restartPolicy ?? 'Always') !== 'Never' && (killed || c.exitCode !== 0);
    }
    const policy = spec.restartPolicy ?? 'Always';
    return policy === 'Always' || (policy === 'OnFailure' && (killed || c.exitCode !== 0));
  }

  /**
   * One container exits (an injected crash, or killed after a failed probe);
   * the others run on. It restarts with the crash back-off when its restart
   * policy says so; otherwise it stays terminated and the agent derives the
   * pod's phase from its containers.
   */
  private exitContainer(p: SimPod, c: RuntimeContainerStatus, exitCode: number, killed: boolean, restartAfterMs = 0, why?: string): void {
    const now = this.timers.now();
    // A command that ended by itself with 0 (programEnds) completed; a crash or a kill is an error (or the kill's own reason, OOMKilled).
    const reason = why ?? (exitCode === 0 && !killed ? 'Completed' : 'Error');
    // The kubelet reads the instance's termination message as it exits (termination-message.ts).
    const message = terminationMessage(this.containerSpec(p, c.name), p.layers?.get(c.id), exitCode, () => this.logText(p, c));
    Object.assign(c, { state: 'exited', exitCode, reason, finishedAt: now, ready: false, message });
    if (!message) delete c.message;
    this.logExit(p, c);
    if (!this.restarts(p, c, killed)) { this.emit(p.uid); return; }
    c.lastTermination = { id: c.id, exitCode, reason, startedAt: c.startedAt, finishedAt: now, ...(message ? { message } : {}) };
    if (!restartAfterMs) { this.restartCrashed(p); return; }
    this.emit(p.uid);
    this.after(p, 'restart', restartAfterMs, () => this.restartCrashed(p));
  }

  /** (Re)arms the end timer when the pod's fail/complete annotation says so, counted from the start. */
  private scheduleEnd(p: SimPod): void {
    const end = this.programEnds(p) ? undefined : simScript(p.pod).end;
    const key = end ? `${end.phase}/${end.afterMs}/${end.exitCode}` : undefined;
    if (key === p.endKey) return;
    p.endKey = key;
    const old = p.timers.get('end');
    if (old) { this.timers.clearTimeout(old); p.timers.delete('end'); }
    // A container still waiting for its image holds the script back (startContainers re-arms it).
    if (!end || !p.startedAt || this.workloadPulling(p)) return;
    const left = p.startedAt.getTime() + end.afterMs - this.timers.now().getTime();
    this.after(p, 'end', left, () => this.finish(p, end.phase, end.exitCode));
  }

  private finish(p: SimPod, phase: 'Succeeded' | 'Failed', exitCode: number): void {
    if (p.stopped || p.stopping || p.terminalPhase) return;
    // An injected failure obeys the restart policy as a crash would; only Never ends the pod.
    if (phase === 'Failed' && (p.pod.spec?.restartPolicy ?? 'Always') !== 'Never') { this.crash(p, exitCode); return; }
    this.end(p, phase, exitCode);
  }

  /** Every running container exits with the code and the pod is terminal (its reason and message, if given). */
  private end(p: SimPod, phase: 'Succeeded' | 'Failed', exitCode: number, reason?: string, message?: string): void {
    const now = this.timers.now();
    for (const h of p.timers.values()) this.timers.clearTimeout(h);
    p.timers.clear();
    for (const c of [...p.initContainers, ...p.containers, ...p.ephemeralContainers]) {
      if (c.state !== 'running' && c.state !== 'waiting') continue;
      Object.assign(c, { state: 'exited', exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', finishedAt: now, ready: false });
      delete c.message;
      this.logExit(p, c);
    }
    if (p.sandbox) p.sandbox.ready = false;
    Object.assign(p, { terminalPhase: phase, reason, message });
    this.emit(p.uid);
  }

  /** restartPolicy Always or OnFailure: each running container exits with the code, then restarts after the crash back-off. */
  private crash(p: SimPod, exitCode: number): void {
    const now = this.timers.now();
    p.podRestart = true;
    for (const c of p.containers) {
      if (c.state !== 'running') continue;
      Object.assign(c, { state: 'exited', exitCode, reason: 'Error', finishedAt: now, ready: false });
      this.logExit(p, c);
      c.lastTermination = { id: c.id, exitCode, reason: 'Error', startedAt: c.startedAt, finishedAt: now };
    }
    this.restartCrashed(p);
  }

  /**
   * Upstream doBackOff: a container restarts at once unless it is in back-off
   * since it last finished; then it waits (CrashLoopBackOff) and tries again.
   */
  private restartCrashed(p: SimPod): void {
    if (p.stopped || p.stopping || p.terminalPhase) return;
    const now = this.timers.now();
    let waitMs = 0;
    for (const c of [...p.initContainers, ...p.containers]) {
      if (c.state === 'running' || p.pulling.has(c.name)) continue;
      // Waiting in back-off, or exited with a restart due (lastTermination is this instance).
      if (c.state !== 'waiting' && !(c.state === 'exited' && c.lastTermination?.id === c.id)) continue;
      const key = `${p.uid}/${c.name}`;
      const finished = c.lastTermination?.finishedAt?.getTime() ?? now.getTime();
      if (this.crashBackoff.isInBackOffSince(key, finished)) {
        const message = `back-off ${goDuration(this.crashBackoff.get(key))} restarting failed container=${c.name} pod=${p.name}_${p.namespace}(${p.uid})`;
        Object.assign(c, { state: 'waiting', reason: 'CrashLoopBackOff', message, ready: false });
        delete c.exitCode; delete c.finishedAt;
        // The earliest restart due re-arms the timer; the others are looked at again then.
        const left = finished + this.crashBackoff.get(key) - now.getTime();
        waitMs = waitMs > 0 ? Math.min(waitMs, left) : left;
        continue;
      }
      this.crashBackoff.next(key);
      Object.assign(c, { state: 'running', id: `${this.type}://${newID()}`, createdAt: now, startedAt: now, restartCount: c.restartCount + 1, ready: false });
      delete c.finishedAt; delete c.exitCode; delete c.reason; delete c.message; delete c.pulledImage;
      const pulledImage = this.pullFor(this.containerSpec(p, c.name));
      if (pulledImage) c.pulledImage = pulledImage;
      this.started(p, c);
    }
    if (waitMs > 0) this.after(p, 'restart', waitMs, () => this.restartCrashed(p));
    else if (p.podRestart) {
      p.podRestart = false;
      p.startedAt = now;
      p.endKey = undefined;
      this.scheduleEnd(p);
    }
    this.scheduleCrashes(p);
    this.updateReadiness(p);
    this.emit(p.uid);
  }

  /** (Re)arms the activeDeadlineSeconds timer, counted from status.startTime (upstream activeDeadlineHandler). */
  private scheduleDeadline(p: SimPod): void {
    const seconds = p.pod.spec?.activeDeadlineSeconds;
    const key = typeof seconds === 'number' && seconds > 0 ? seconds : undefined;
    if (key === p.deadlineKey) return;
    p.deadlineKey = key;
    const old = p.timers.get('deadline');
    if (old) { this.timers.clearTimeout(old); p.timers.delete('deadline'); }
    if (key === undefined) return;
    const left = p.activeSince.getTime() + key * 1000 - this.timers.now().getTime();
    this.after(p, 'deadline', left, () => this.end(p, 'Failed', 137, 'DeadlineExceeded', deadlineExceededMessage));
  }

  private stop(p: SimPod): void {
    if (p.stopped) return;
    const now = this.timers.now();
    p.stopped = true;
    p.timers.clear();
    // Containers never started are simply not there; running ones exit as on SIGTERM. A regular
    // container exits 0 where its image's entrypoint handles it (redis, nginx, pause), else 137, the
    // SIGKILL after the grace period that a PID 1 without a TERM handler (a shell, sleep) waits for: a
    // Job counts such a deleted pod Failed, as upstream. Sidecars and ephemeral containers exit 0 (a
    // finished Job pod's stopped sidecar leaves it Completed, as the Sidecar Containers page shows).
    for (const c of [...p.initContainers, ...p.containers, ...p.ephemeralContainers]) {
      if (c.state !== 'running') continue;
      const own = this.logStop(p, c);
      const spec = p.containers.includes(c) ? this.containerSpec(p, c.name) : undefined;
      const exitCode = !p.containers.includes(c) ? 0 : spec ? mainExitOnSignal(spec, 15) ?? 137 : 137;
      Object.assign(c, { state: 'exited', exitCode, reason: exitCode ? 'Error' : 'Completed', finishedAt: now, ready: false });
      if (!own) this.logExit(p, c);
    }
    if (p.sandbox) p.sandbox.ready = false;
    // A stopped sandbox gives its address back (CNI DEL at StopPodSandbox); the pod keeps showing it.
    this.releaseIP(p);
    this.emit(p.uid);
  }

  private releaseIP(p: SimPod): void {
    p.detachNetwork?.();
    p.detachNetwork = undefined;
    if (p.ipReleased || !p.sandbox?.ip || p.sandbox.ip === this.opts.hostIP) return;
    p.ipReleased = true;
    this.pool.release(p.sandbox.ip);
  }

  /** Appends to the container's CRI log; a log that cannot be written never stops the pod. */
  private log(p: SimPod, c: RuntimeContainerStatus, text: string): void {
    if (!this.opts.podLogsDir) return;
    const path = containerLogPath(this.opts.podLogsDir, p, c.name, c.restartCount);
    try {
      mkdirSync(dirname(path), { recursive: true });
      appendFileSync(path, formatCRILogLines(this.timers.now(), 'stdout', text));
    } catch { /* the runtime status stays the truth */ }
  }

  /** A stopped instance's first log lines: the image's own (nginx's shutdown) when its entrypoint runs, and then true; else the simulated lifecycle's. */
  /** A container whose log is its command's (the shell's, or a stress program's: SIGKILL and SIGTERM end stress without a word). */
  private writesOwnLog(p: SimPod, c: RuntimeContainerStatus): boolean {
    if (this.runsProgram(p, c)) return true;
    const spec = this.containerSpec(p, c.name);
    return !!spec && !!stressWorkload(spec);
  }

  private logStop(p: SimPod, c: RuntimeContainerStatus): boolean {
    if (this.writesOwnLog(p, c)) return false;
    const spec = this.containerSpec(p, c.name);
    // The instance's own image (a changed spec names the next one's).
    const own = spec && entrypointRuns(spec) ? imageContents(c.image)?.stopLog?.(this.timers.now()) : undefined;
    this.log(p, c, own ?? `Stopping container ${c.name}\n`);
    return own !== undefined;
  }

  private logExit(p: SimPod, c: RuntimeContainerStatus): void {
    if (this.writesOwnLog(p, c)) return;
    this.log(p, c, `Container ${c.name} exited with code ${c.exitCode ?? 0} (${c.reason ?? 'Completed'})\n`);
  }

  /**
   * A run-to-completion pod (restartPolicy Never or OnFailure) whose every
   * container runs a command the simulator runs (or serves, beside one that
   * does: an image with a responder and no command), with no scripted end: each
   * container ends when its command does, with its exit code (`sleep 30`
   * after 30 s, `while true` never), instead of the 1 s run-to-completion.
   */
  private programEnds(p: SimPod): boolean {
    const a = p.pod.metadata?.annotations ?? {};
    if (!this.opts.podLogsDir) return false;
    if ([annotationCompleteAfter, annotationFailAfter, annotationExitCode].some((k) => a[k] !== undefined)) return false;
    const containers = p.pod.spec?.containers ?? [];
    // A server image's container without a command (nginx beside the debian writer of the two-containers page;
    // the pause image of the Debug Running Pods page) runs until stopped, as its entrypoint would.
    const serves = (c: Container) => !c.command?.length && !c.args?.length && (!!imageListener(String(c.image ?? '')) || runsUntilStopped(c.image));
    // An interactive shell on the container's stdin (attach.ts) ends when the shell exits.
    const runs = (c: Container) => runsProgram(c) || !!shellSession(c);
    if (!containers.every((c) => runs(c) || serves(c))) return false;
    // Under Always, a command that ends is restarted with the crash back-off (the termination-demo pod); servers alone keep the old script.
    return runsToCompletion(p.pod) || containers.some(runs);
  }

  /** Keeps a first instance whose command ends it (restartPolicy Never or OnFailure) out of the status until the kubelet would have seen it (relistPeriodMs). */
  private hideUntilRelist(p: SimPod, c: RuntimeContainerStatus): void {
    (p.unobserved ??= new Set()).add(c.id);
    this.after(p, `relist:${c.name}`, relistPeriodMs, () => this.observed(p, c.id));
  }

  /** The kubelet sees the instance now (a relist, its command sleeping or ended); true if it was hidden. */
  private observed(p: SimPod, id: string, emit = true): boolean {
    if (!p.unobserved?.delete(id)) return false;
    if (emit) this.emit(p.uid);
    return true;
  }

  /** A regular container of a programEnds pod whose command ended: it exits with the command's code. */
  private programEnded(p: SimPod, c: RuntimeContainerStatus, id: string, exitCode: number): void {
    // Seen from here on: terminated when the exit below posts it, else as it is now.
    const hidden = this.observed(p, id, false);
    const show = () => { if (hidden) this.emit(p.uid); };
    if (c.id !== id || c.state !== 'running' || p.stopped || p.stopping || p.terminalPhase) { show(); return; }
    const init = p.pod.spec?.initContainers?.find((x) => x.name === c.name);
    if (p.initContainers.includes(c) && init && this.initRunsProgram(init)) {
      this.exitContainer(p, c, exitCode, false);
      // Completed: the next init container, or the containers, start.
      if (exitCode === 0) this.startContainers(p);
      return;
    }
    // An ephemeral container (kubectl debug -- echo hi) ends with its command, whatever its pod's other containers do.
    if (p.ephemeralContainers.includes(c)) { this.ephemeralExited(p, c, exitCode); return; }
    if (!p.containers.includes(c) || !this.programEnds(p)) { show(); return; }
    this.exitContainer(p, c, exitCode, false);
  }

  /** Whether this instance's log is its command's output (program.ts) rather than its lifecycle. */
  private runsProgram(p: SimPod, c: RuntimeContainerStatus): boolean {
    return p.programs.get(c.name) === c.id;
  }

  /**
   * A container instance started: its log gets what its command prints when
   * the simulator runs that command (echo, env, date, cat of its ConfigMap
   * files, loops with sleep: shell.ts), else its simulated lifecycle.
   */
  private started(p: SimPod, c: RuntimeContainerStatus): void {
    const spec = [...(p.pod.spec?.initContainers ?? []), ...(p.pod.spec?.containers ?? []), ...((p.pod.spec?.ephemeralContainers ?? []) as Container[])].find((x) => x.name === c.name);
    if (spec) {
      const live = (id: string) => [...p.initContainers, ...p.containers, ...p.ephemeralContainers].some((x) => x.id === id);
      // The sources the start check read, if it read them for this start (once: a restart reads them again).
      const checked = p.checkedSources?.get(c.name);
      p.checkedSources?.delete(c.name);
      (p.startEnv ??= new StartEnvironments()).capture(c.id, p.pod, spec, this.opts.objects, live, checked);
    }
    // The image's server reads what it reads at start (redis-server its config file: redis-config.ts); only nodes that keep logs run servers' starts.
    const server = this.opts.podLogsDir && spec && c.state === 'running' ? containerListener(spec) : undefined;
    if (server?.start) server.start({ files: () => this.startFiles(p, c, spec!), memory: serverMemory(p, c.id) });
    if (spec?.lifecycle?.postStart?.exec && c.state === 'running') this.postStart(p, c, spec);
    if (this.usage && spec && c.state === 'running') this.armOOMKill(p, c, spec);
    const stdio = this.opts.podLogsDir && spec && c.state === 'running' ? this.openConsole(p, c, spec) : undefined;
    const shell = stdio && spec && !p.initContainers.includes(c) ? shellSession(spec) : undefined;
    if (shell) { p.programs.set(c.name, c.id); this.runShell(p, c, spec!, shell, stdio!); return; }
    if (!this.opts.podLogsDir || !spec || !runsProgram(spec)) {
      // A stress program prints its info line (stress.ts); nodes without logs read no command line.
      const own = (this.opts.podLogsDir && spec ? stressWorkload(spec)?.startLog : undefined) ?? server?.startLog?.(c.startedAt ?? this.timers.now())
        ?? entrypointStartLog(p.pod, spec, c.startedAt ?? this.timers.now());
      this.log(p, c, own ?? `Created container ${c.name}\nStarted container ${c.name}\n`);
      return;
    }
    p.programs.set(c.name, c.id);
    const id = c.id;
    // Pods that run to completion (run --restart=Never, Jobs); under Always an ending command is a crash loop anyway.
    if (p.containers.includes(c) && c.restartCount === 0 && runsToCompletion(p.pod) && this.programEnds(p)) this.hideUntilRelist(p, c);
    // A command that could not be prepared (its objects unreadable) ends at once in a pod that waits for its commands.
    void this.runContainerProgram(p, c, spec).catch(() => this.programEnded(p, c, id, 0));
  }

  /** On nodes that model usage: the OOM killer at the instance's memory limit (oom-kill.ts). */
  private armOOMKill(p: SimPod, c: RuntimeContainerStatus, spec: Container): void {
    const afterMs = oomKillAfterMs(spec);
    if (afterMs === undefined) return;
    const id = c.id;
    this.after(p, `oom:${c.name}`, Math.max(1, afterMs), () => {
      if (c.id !== id || c.state !== 'running' || p.stopping || p.stopped || p.terminalPhase) return;
      const inBackOff = this.crashBackoff.isInBackOffSince(`${p.uid}/${c.name}`, this.timers.now().getTime());
      this.exitContainer(p, c, oomKillExitCode, true, inBackOff ? backoffRequeueMs : firstRestartSyncMs, oomKilledReason);
    });
  }

  /** The container's postStart exec handler, in the simulated shell against this instance's files (lifecycle-hooks.ts). */
  private postStart(p: SimPod, c: RuntimeContainerStatus, spec: Container): void {
    const id = c.id;
    const deps = { objects: this.opts.objects, nodeName: this.opts.nodeName ?? p.pod.spec?.nodeName ?? '', hostIP: this.opts.hostIP, podIP: p.sandbox?.ip };
    void runPostStartHook(spec, {
      // The environment the container started with (start-env.ts), as its exec and commands see it.
      view: async () => withContainerFiles((await containerView(p.pod, spec, { ...deps, sources: await p.startEnv?.of(id) })).context, this.filesDeps(p, spec, id)),
      timers: this.timers,
      running: () => c.id === id && c.state === 'running' && !p.stopped,
    }).catch(() => {});
  }

  private async runContainerProgram(p: SimPod, c: RuntimeContainerStatus, spec: Container): Promise<void> {
    const id = c.id;
    const restartCount = c.restartCount;
    const current = () => c.id === id && !p.stopped;
    const sources = await p.startEnv?.of(id);
    // The container reads what an exec reads, the service account's namespace and ca.crt included (the Init Containers page's `$(cat .../namespace)`).
    const prepared = await prepareProgram(p.pod, spec, { objects: this.opts.objects, nodeName: this.opts.nodeName ?? p.pod.spec?.nodeName ?? '', hostIP: this.opts.hostIP, podIP: p.sandbox?.ip, sources, serviceAccount: true });
    if (!current()) return;
    if (!prepared) {
      // The expanded command is not one the simulator runs after all: the lifecycle, as for any other.
      p.programs.delete(c.name);
      this.log(p, c, `Created container ${c.name}\nStarted container ${c.name}\n`);
      this.programEnded(p, c, id, 0);
      return;
    }
    const files = await withContainerFiles(prepared.context, this.filesDeps(p, spec, id)).catch(() => prepared.context);
    if (!current()) return;
    // Ctrl-C on its terminal ends the command at its next sleep (interrupt.ts).
    let interrupted = false;
    let wake: (() => void) | undefined;
    const unwatch = watchInterrupt(p.consoles?.get(id), spec, () => { interrupted = true; wake?.(); });
    const code = await runProgram(prepared.program, {
      ...files,
      now: () => this.timers.now(),
      write: (stream, text) => {
        if (!current()) return;
        this.logInstance(p, c.name, restartCount, stream, text);
        p.consoles?.get(id)?.write(stream, text);
      },
      // A sleep ends early, and the program with it, once this instance stopped (the pod's timers are cleared then).
      sleep: (ms) => new Promise<boolean>((resolve) => {
        // A command that sleeps runs long enough for the kubelet's next relist to see it Running.
        this.observed(p, id);
        if (interrupted) { resolve(false); return; }
        wake = () => { const h = p.timers.get(`sleep:${c.name}`); if (h) { this.timers.clearTimeout(h); p.timers.delete(`sleep:${c.name}`); } resolve(false); };
        if (ms === Infinity) return;
        this.after(p, `sleep:${c.name}`, ms, () => {
          if (!(current() && c.state === 'running')) { resolve(false); return; }
          prepared.context.refresh().then(() => resolve(current() && c.state === 'running'), () => resolve(current() && c.state === 'running'));
        });
      }),
    });
    unwatch();
    if (code !== undefined) this.programEnded(p, c, id, code);
    else if (interrupted) this.programEnded(p, c, id, interruptedExitCode);
  }

  /** The stdio of a container instance that starts (attach.ts): attaches connect to it until the instance ends. */
  private openConsole(p: SimPod, c: RuntimeContainerStatus, spec: Container): ContainerConsole {
    const stdio = new ContainerConsole({ stdin: !!spec.stdin, stdinOnce: !!spec.stdinOnce, tty: !!spec.tty });
    (p.consoles ??= new Map()).set(c.id, stdio);
    return stdio;
  }

  /** Ends the consoles of instances that no longer run, so their attaches end (kubectl attach returns). */
  private endConsoles(p: SimPod): void {
    const running = new Set([...p.initContainers, ...p.containers, ...p.ephemeralContainers].filter((c) => c.state === 'running' && !p.stopped).map((c) => c.id));
    for (const [id, stdio] of p.consoles ?? []) {
      if (running.has(id)) continue;
      stdio.end();
      p.consoles!.delete(id);
    }
  }

  /**
   * A container whose process is an interactive shell on its stdin
   * (attach.ts): the simulated shell of `kubectl exec -it` reads the
   * container's stdin and writes to its log and attaches; when it exits
   * (`exit N`, EOF) the container exits with its code, and its restart
   * policy applies (an ephemeral container is never restarted).
   */
  private runShell(p: SimPod, c: RuntimeContainerStatus, spec: Container, argv: string[], stdio: ContainerConsole): void {
    const id = c.id;
    const restartCount = c.restartCount;
    const session = openSimulatedExec(argv, { stdin: true, stdout: true, stderr: true, tty: !!spec.tty }, { ...this.execDeps(p, c, spec, true), mainShell: true });
    stdio.stdin.pipe(session.stdin!);
    stdio.onResize = (cols, rows) => session.resize?.(cols, rows);
    const forward = (stream: 'stdout' | 'stderr') => (text: string) => {
      if (c.id !== id || c.state !== 'running') return;
      this.logInstance(p, c.name, restartCount, stream, text);
      stdio.write(stream, text);
    };
    session.stdout.setEncoding('utf8').on('data', forward('stdout'));
    session.stderr?.setEncoding('utf8').on('data', forward('stderr'));
    void session.done.then((code) => this.shellEnded(p, c, id, code), () => this.shellEnded(p, c, id, 1));
  }

  private shellEnded(p: SimPod, c: RuntimeContainerStatus, id: string, exitCode: number): void {
    if (c.id !== id || c.state !== 'running' || p.stopped || p.stopping || p.terminalPhase || this.byUID.get(p.uid) !== p) return;
    if (!p.ephemeralContainers.includes(c)) { this.exitContainer(p, c, exitCode, false); return; }
    this.ephemeralExited(p, c, exitCode);
  }

  /** An ephemeral container whose process ended: terminated for good (never restarted); emit ends its attaches. */
  private ephemeralExited(p: SimPod, c: RuntimeContainerStatus, exitCode: number): void {
    Object.assign(c, { state: 'exited', exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', finishedAt: this.timers.now(), ready: false });
    this.emit(p.uid);
  }

  /** What this instance logged, as text (a FallbackToLogsOnError termination message). */
  private logText(p: SimPod, c: RuntimeContainerStatus): string {
    if (!this.opts.podLogsDir) return '';
    try {
      const raw = readFileSync(containerLogPath(this.opts.podLogsDir, p, c.name, c.restartCount));
      return raw.toString('latin1').split('\n').filter(Boolean).map((l) => parseCRILogLine(Buffer.from(l, 'latin1'))?.content.toString('utf8') ?? '').join('');
    } catch { return ''; }
  }

  private logInstance(p: SimPod, name: string, restartCount: number, stream: 'stdout' | 'stderr', text: string): void {
    if (!this.opts.podLogsDir) return;
    const path = containerLogPath(this.opts.podLogsDir, p, name, restartCount);
    try {
      mkdirSync(dirname(path), { recursive: true });
      appendFileSync(path, formatCRILogLines(this.timers.now(), stream, text));
    } catch { /* the runtime status stays the truth */ }
  }

  private emit(uid: string): void {
    const p = this.byUID.get(uid);
    if (p?.consoles?.size) this.endConsoles(p);
    const watchers = p?.execWatchers;
    if (watchers?.size) for (const w of [...watchers]) w();
    this.events.emit(uid);
  }
}

/** The container runs its image's entrypoint: neither command nor args replace the image's (kubernetes-bootcamp's CMD `node server.js`). */
const entrypointRuns = (spec: Container) => !spec.command?.length && !spec.args?.length;

/** What the image's entrypoint writes when it starts (image-contents.ts), for an image the simulation knows that of. */
function entrypointStartLog(pod: Pod, spec: Container | undefined, startedAt: Date): string | undefined {
  if (!spec || !entrypointRuns(spec)) return undefined;
  return imageContents(String(spec.image ?? ''))?.startLog?.(pod.spec?.hostname ?? pod.metadata?.name ?? '', startedAt);
}
