/**
 * The CRI runtime: pods run as sandboxes and containers of a CRI runtime
 * (containerd) reached over its socket (upstream pkg/kubelet/kuberuntime,
 * cut down; v1.32 behaviour):
 *
 *  1. syncPod records the pod and starts a sync, one at a time per pod
 *     (computePodActions + SyncPod): create the sandbox when the pod has none
 *     ready and something should run; run init containers one by one, each to
 *     exit 0 (a sidecar, restartPolicy Always, is started and kept running);
 *     then start every container that has no instance, and restart exited
 *     ones as restartPolicy says (Always; OnFailure when the exit code is not
 *     0), the second restart on waiting out the back-off (CrashLoopBackOff,
 *     10 s doubling to 5 min).
 *  2. Starting a container: ensure its image (images.ts), mount its volumes
 *     (volumes.ts), CreateContainer with the config of config.ts, then
 *     StartContainer; a failure holds the container back with upstream's
 *     reason (ErrImagePull, ImagePullBackOff, CreateContainerConfigError,
 *     CreateContainerError, RunContainerError) until the next sync tries
 *     again. Older dead instances beyond the last one are removed.
 *  3. Every relistPeriod (1 s, as the PLEG) the sandboxes and containers
 *     labeled with this node are listed; new or changed ones are inspected,
 *     the pod's listener is called and the pod synced (a container that
 *     exited is restarted or put in back-off). A pod is also synced when its
 *     spec, labels, annotations or deletion change (not on status-only
 *     updates, as upstream's pod config), 10-15 s after a sync that left a
 *     container held back (upstream's workerBackOffPeriod with its jitter),
 *     and every 60-90 s otherwise (syncFrequency).
 *  4. At start the same listing adopts what an earlier kubelet left running:
 *     the agent's next syncPod finds the sandbox and containers there and
 *     keeps them (same container IDs).
 *  5. killPod stops the containers with the grace period (StopContainer's
 *     timeout, at least upstream's 2 s minimum) then the sandbox; removePod
 *     removes the sandbox (and with it the containers) and the pod's emptyDirs.
 *  6. close() only stops listening: the containers keep running.
 *  7. Lifecycle hooks (hooks.ts): postStart after StartContainer (a failure
 *     kills the instance), preStop before StopContainer within the grace period.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import type { Logger } from '../../../util/log.js';
import type { PodRuntime, RuntimeContainerStats, RuntimePodStatus, StreamRequest } from '../runtime.js';
import type { Timers } from '../../timers.js';
import { CRIClient, grpcDeadlineExceeded } from './client.js';
import { criContainerStats } from './stats.js';
import type { Readable } from 'node:stream';
import { containerLogPath as criLogPath, readCRILog, type ContainerLogOptions } from '../../logs/index.js';
import { containerConfig, hostAllocatable, labelNodeName, labelPodName, labelPodNamespace, labelPodUID, podLogDirectory, podSandboxConfig, type PodContext } from './config.js';
import { ImageManager, goGRPCError } from './images.js';
import { removePodDir } from './volumes.js';
import { holdReason, prepareContainer } from './prepare.js';
import type { PodObjectGetter } from '../../volumes/objects.js';
import { setUpProjectedVolumes } from '../../volumes/setup.js';
import { Backoff } from './backoff.js';
import { PodSyncLoop, crashLoopWait } from './podsync.js';
import { computePodActions, type ContainerStart } from './actions.js';
import { instances, latestSandbox, newPodEntry, nsToDate, podStatus, type ContainerRecord, type PodEntry } from './podstate.js';
import type * as cri from './types.js';
import { PodEventEmitter } from '../pod-events.js';
import { runLifecycleHandler, runPreStopHook, type HookTarget } from './hooks.js';
import { podDNSConfig, type KubeletDNSOptions } from '../../dns.js';
import { KernelOOMLog } from './kernel-oom.js';
import { hostsMount } from './hosts-mount.js';

/**
 * The ephemeral container's target for its PID namespace: the newest instance
 * of targetContainerName (kuberuntime's startContainer looks it up in the pod
 * status, newest first); none when it has no instance or no target was named.
 */
function pidTarget(p: PodEntry, s: ContainerStart): string | undefined {
  const target = s.ephemeral?.targetContainerName;
  return target ? instances(p, target)[0]?.id : undefined;
}

export interface CRIRuntimeOptions {
  /** unix:///run/containerd/containerd.sock */
  endpoint: string;
  nodeName: string;
  hostIP: string;
  /** Where container logs go (/var/log/pods). */
  podLogsDir: string;
  /** The kubelet's directory (/var/lib/kubelet): emptyDir volumes live under it. */
  rootDir: string;
  /** Claims and volumes for persistentVolumeClaim volumes (absent: such pods wait). */
  volumes?: PodObjectGetter;
  logger: Logger;
  timers: Timers;
  /** PLEG relist period (1 s). */
  relistPeriodMs?: number;
  /** The kubelet's service-account token cache: a removed pod's tokens are dropped. */
  tokens?: { forgetPod(uid: string): void };
  /** The pods' resolv.conf (--cluster-dns, --cluster-domain, --resolv-conf); absent: the host's, as the runtime copies it. */
  dns?: KubeletDNSOptions;
  /** Records the lifecycle hooks' events (FailedPostStartHook, FailedPreStopHook) and DNS warnings (MissingClusterDNS, DNSConfigForming). */
  recorder?: { event(obj: unknown, type: 'Normal' | 'Warning', reason: string, message: string): void };
}

/** Upstream minimumGracePeriodInSeconds: StopContainer never gets less. */
const minimumGracePeriodSeconds = 2;

export class CRIRuntime implements PodRuntime {
  readonly type: string;
  readonly version: string;
  private readonly byUID = new Map<string, PodEntry>();
  /** Pods being removed: a relist must not adopt them again. */
  private readonly removing = new Set<string>();
  private readonly events = new PodEventEmitter();
  private readonly images: ImageManager;
  private readonly crashBackoff: Backoff;
  private readonly syncLoop: PodSyncLoop;
  private readonly ctx: PodContext;
  private readonly kernelOOM = new KernelOOMLog();
  private relistTimer?: ReturnType<Timers['setTimeout']>;
  private relisting?: Promise<void>;
  private closed = false;

  /** Connects, reads the runtime's version and adopts what it already runs for this node. */
  static async connect(opts: CRIRuntimeOptions): Promise<CRIRuntime> {
    const client = new CRIClient(opts.endpoint);
    try {
      const v = await client.version();
      const rt = new CRIRuntime(client, v, opts);
      await rt.relist();
      rt.scheduleRelist();
      return rt;
    } catch (e) {
      client.close();
      throw e;
    }
  }

  private constructor(readonly client: CRIClient, v: cri.VersionResponse, private readonly opts: CRIRuntimeOptions) {
    this.type = v.runtimeName;
    this.version = `${v.runtimeName}://${v.runtimeVersion}`;
    const now = () => opts.timers.now().getTime();
    this.images = new ImageManager(client, now);
    this.syncLoop = new PodSyncLoop({
      timers: opts.timers, logger: opts.logger, closed: () => this.closed, current: (p) => this.byUID.get(p.uid) === p,
      syncOnce: (p) => this.syncOnce(p), describe: goGRPCError,
    });
    this.crashBackoff = new Backoff(now);
    this.ctx = { nodeName: opts.nodeName, podLogsDir: opts.podLogsDir, hostIP: opts.hostIP, dns: opts.dns };
  }

  async updatePodCIDR(podCIDRs: string[]): Promise<void> {
    await this.client.updateRuntimeConfig(podCIDRs.join(','));
  }

  syncPod(pod: Pod): void { this.syncLoop.podChanged(this.byUID, pod); }

  killPod(uid: string, gracePeriodMs: number): Promise<void> {
    const p = this.byUID.get(uid);
    if (!p) return Promise.resolve();
    p.terminating = true;
    p.killing ??= this.stopPod(p, Math.max(minimumGracePeriodSeconds, Math.ceil(gracePeriodMs / 1000)));
    return p.killing;
  }

  removePod(uid: string): void {
    const p = this.byUID.get(uid);
    if (!p) return;
    this.byUID.delete(uid);
    this.syncLoop.clear(p);
    this.removing.add(uid);
    this.images.forget(uid);
    this.crashBackoff.forget(`${uid}/`);
    this.opts.tokens?.forgetPod(uid);
    void (async () => {
      try {
        for (const sb of p.sandboxes) await this.ignoreNotFound(this.client.removePodSandbox(sb.id));
        for (const c of p.containers) await this.ignoreNotFound(this.client.removeContainer(c.id));
        removePodDir(this.opts.rootDir, uid);
      } catch (e) {
        this.opts.logger.warn('failed to remove pod', { pod: `${p.namespace}/${p.name}`, err: e });
      } finally {
        this.removing.delete(uid);
      }
    })();
  }

  status(uid: string): RuntimePodStatus | undefined {
    const p = this.byUID.get(uid);
    return p && podStatus(p, this.type, this.opts.hostIP);
  }

  pods(): string[] { return [...this.byUID.keys()]; }

  /** The instance's CRI log file, which containerd writes and the shared reader serves. */
  readLogs(uid: string, containerID: string, opts: ContainerLogOptions): Readable {
    const p = this.byUID.get(uid);
    const id = containerID.slice(containerID.indexOf('://') + 3);
    const find = () => p?.containers.find((c) => c.id === id);
    const c = find();
    if (!p || !c) throw new Error(`container ${containerID} of pod ${uid} is not known to the runtime`);
    return readCRILog(criLogPath(this.opts.podLogsDir, p, c.name, c.attempt), opts, { isRunning: () => find()?.state === 'CONTAINER_RUNNING' });
  }

  onPodEvent(listener: (uid: string) => void): void { this.events.on(listener); }

  /** The image manager records the pull events (Pulling, Pulled, Failed, BackOff) of this runtime's pods. */
  recordsImageEvents(): boolean { return true; }

  /** A probe's exec: CRI ExecSync with the probe's timeout (whole seconds, at least 1). */
  async execSync(containerID: string, cmd: string[], timeoutMs: number): Promise<{ exitCode: number; output: string; timedOut?: boolean }> {
    const id = containerID.slice(containerID.indexOf('://') + 3);
    try {
      const r = await this.client.execSync(id, cmd, Math.max(1, Math.ceil(timeoutMs / 1000)));
      return { exitCode: r.exitCode, output: Buffer.concat([Buffer.from(r.stdout ?? []), Buffer.from(r.stderr ?? [])]).toString('utf8') };
    } catch (e) {
      // containerd answers DEADLINE_EXCEEDED when the command outlives the timeout.
      if ((e as { code?: number }).code === grpcDeadlineExceeded) return { exitCode: -1, output: '', timedOut: true };
      throw e;
    }
  }

  /** Stops one instance (a failed liveness or startup probe); the next sync restarts it per the restart policy. */
  async killContainer(uid: string, containerID: string, gracePeriodMs: number): Promise<void> {
    const p = this.byUID.get(uid);
    const id = containerID.slice(containerID.indexOf('://') + 3);
    const rec = p?.containers.find((c) => c.id === id);
    if (!p || !rec) throw new Error(`container ${containerID} of pod ${uid} is not known to the runtime`);
    await this.stopContainer(p, rec, Math.max(minimumGracePeriodSeconds, Math.ceil(gracePeriodMs / 1000)));
    if (this.closed || this.byUID.get(uid) !== p) return;
    await this.refreshPod(p);
    this.emit(uid);
    if (p.pod && !p.terminating) this.syncLoop.request(p);
  }

  /** CRI Exec or Attach: the runtime's streaming server URL for it. */
  async streamURL(uid: string, containerID: string, req: StreamRequest): Promise<string> {
    const p = this.byUID.get(uid);
    const id = containerID.slice(containerID.indexOf('://') + 3);
    if (!p || !p.containers.some((c) => c.id === id)) throw new Error(`container ${containerID} of pod ${uid} is not known to the runtime`);
    const streams = { stdin: req.stdin, stdout: req.stdout, stderr: req.stderr, tty: req.tty };
    return req.cmd ? this.client.exec(id, req.cmd, streams) : this.client.attach(id, streams);
  }

  /** CRI PortForward into the pod's newest sandbox, which must be ready. */
  async portForwardURL(uid: string, ports: number[]): Promise<string> {
    const p = this.byUID.get(uid);
    const sandbox = p && latestSandbox(p);
    if (!sandbox || sandbox.state !== 'SANDBOX_READY') throw new Error(`pod sandbox of pod ${uid} is not ready`);
    return this.client.portForward(sandbox.id, ports);
  }

  containerStats(): Promise<RuntimeContainerStats[]> { return criContainerStats(this.client, this.opts.nodeName); }


  async close(): Promise<void> {
    this.closed = true;
    if (this.relistTimer) this.opts.timers.clearTimeout(this.relistTimer);
    for (const p of this.byUID.values()) this.syncLoop.clear(p);
    await this.relisting?.catch(() => {});
    this.client.close();
    this.kernelOOM.close();
  }

  // --- sync ---------------------------------------------------------------

  private async syncOnce(p: PodEntry): Promise<void> {
    const { work, starts } = computePodActions(p, p.pod!);
    let sb = latestSandbox(p);
    if (!sb || sb.state !== 'SANDBOX_READY') {
      if (!work) return;
      sb = await this.createSandbox(p, sb ? sb.attempt + 1 : 0);
    } else {
      await this.refreshVolumes(p);
    }
    for (const s of starts) await this.startWithBackoff(p, sb.id, s);
  }

  /**
   * Every sync of a running pod sets up its running containers' projected
   * volumes again, as upstream's volume manager remounts them: service
   * account tokens rotate (the token cache decides when) and ConfigMap and
   * Secret changes show. A failure keeps the files as they are.
   */
  private async refreshVolumes(p: PodEntry): Promise<void> {
    const pod = p.pod!;
    const running = [...(pod.spec!.initContainers ?? []), ...pod.spec!.containers].filter((c) => instances(p, c.name)[0]?.state === 'CONTAINER_RUNNING');
    if (!running.length) return;
    const all = { name: '', volumeMounts: running.flatMap((c) => c.volumeMounts ?? []) };
    try {
      await setUpProjectedVolumes(pod, all, { get: this.opts.volumes, rootDir: this.opts.rootDir, node: this.ctx.allocatable ?? hostAllocatable() });
    } catch (e) {
      this.opts.logger.warn('failed to refresh volumes', { pod: `${p.namespace}/${p.name}`, err: (e as Error).message });
    }
  }

  /** Restarts honour the crash back-off (upstream doBackOff); the first start does not wait. */
  private async startWithBackoff(p: PodEntry, sandboxId: string, s: ContainerStart): Promise<void> {
    const { container: c, latest } = s;
    const wait = crashLoopWait(this.crashBackoff, p, c.name, latest);
    if (wait) { this.setWaiting(p, c.name, 'CrashLoopBackOff', wait); return; }
    await this.startContainer(p, sandboxId, c, s.restartCount, pidTarget(p, s));
  }

  private async createSandbox(p: PodEntry, attempt: number) {
    const pod = p.pod!;
    const config = podSandboxConfig(pod, this.ctx, attempt);
    mkdirSync(config.logDirectory!, { recursive: true, mode: 0o755 });
    // Upstream reports these from GetPodDNS each time it builds the sandbox config; once per sandbox says the same.
    if (this.ctx.dns) for (const w of podDNSConfig(pod, this.ctx.dns).warnings) this.opts.recorder?.event({ apiVersion: 'v1', kind: 'Pod', metadata: pod.metadata }, 'Warning', w.reason, w.message);
    const started = Date.now();
    let id: string;
    try {
      id = await this.client.runPodSandbox(config);
    } catch (e) {
      // Upstream: CreatePodSandboxError and a FailedCreatePodSandBox event; the containers stay
      // ContainerCreating. The sync fails, so the next one comes after the 10-15 s back-off
      // (it used to end quietly and wait for the 60-90 s resync).
      const message = `Failed to create pod sandbox: ${goGRPCError(e)}`;
      this.opts.recorder?.event({ apiVersion: 'v1', kind: 'Pod', metadata: pod.metadata }, 'Warning', 'FailedCreatePodSandBox', message);
      throw new Error(message);
    }
    const st = await this.client.podSandboxStatus(id);
    const sb = { id, attempt, state: st.state, createdAt: nsToDate(st.createdAt), ip: st.network?.ip || undefined };
    p.sandboxes.push(sb);
    p.epoch++;
    this.opts.logger.debug('pod sandbox started', { pod: `${p.namespace}/${p.name}`, sandbox: id, ip: sb.ip, durationMs: Date.now() - started });
    this.emit(p.uid);
    return sb;
  }

  private setWaiting(p: PodEntry, name: string, reason: string, message?: string): void {
    const old = p.waiting.get(name);
    if (old?.reason === reason && old.message === message) return;
    p.waiting.set(name, { reason, message });
    p.epoch++;
    this.emit(p.uid);
  }

  private async startContainer(p: PodEntry, sandboxId: string, c: Container, restartCount: number, pidTargetId?: string): Promise<void> {
    const pod = p.pod!;
    const sandboxConfig = podSandboxConfig(pod, this.ctx, latestSandbox(p)?.attempt ?? 0);
    const ref = this.containerRef(p, c.name);
    const image = await this.images.ensureImageExists(p.uid, c, sandboxConfig, (type, reason, message) => this.opts.recorder?.event(ref, type, reason, message));
    if ('reason' in image) {
      // kuberuntime's startContainer: a failed EnsureImageExists is also a Failed "Error: <reason>" event.
      this.opts.recorder?.event(ref, 'Warning', 'Failed', `Error: ${image.reason}`);
      this.setWaiting(p, c.name, image.reason, image.message);
      return;
    }
    let config: cri.ContainerConfig;
    try {
      const { mounts, envSources } = await prepareContainer(pod, c, { volumes: this.opts.volumes, rootDir: this.opts.rootDir, node: this.ctx.allocatable ?? hostAllocatable() });
      const podIP = latestSandbox(p)?.ip;
      const hosts = hostsMount(pod, c, { podIP, rootDir: this.opts.rootDir, clusterDomain: this.ctx.dns?.clusterDomain ?? 'cluster.local' });
      config = containerConfig({ pod, container: c, imageRef: image.imageRef, restartCount, mounts: hosts ? [...mounts, hosts] : mounts, podIP, envSources, pidTargetId }, this.ctx);
    } catch (e) {
      const reason = holdReason(e);
      if (reason) { this.setWaiting(p, c.name, reason, (e as Error).message); return; }
      throw e;
    }
    mkdirSync(join(podLogDirectory(this.opts.podLogsDir, pod), c.name), { recursive: true, mode: 0o755 });
    const started = Date.now();
    let id: string;
    try {
      id = await this.client.createContainer(sandboxId, config, sandboxConfig);
    } catch (e) {
      this.setWaiting(p, c.name, 'CreateContainerError', goGRPCError(e));
      return;
    }
    const now = this.opts.timers.now();
    const rec: ContainerRecord = {
      id, name: c.name, attempt: restartCount, sandboxId, state: 'CONTAINER_CREATED', image: c.image ?? '', imageRef: image.imageRef, createdAt: now,
    };
    p.containers.push(rec);
    p.epoch++;
    try {
      await this.client.startContainer(id);
    } catch (e) {
      this.setWaiting(p, c.name, 'RunContainerError', goGRPCError(e));
      return;
    }
    Object.assign(rec, { state: 'CONTAINER_RUNNING', startedAt: this.opts.timers.now() });
    this.opts.logger.debug('container started', { pod: `${p.namespace}/${p.name}`, container: c.name, restartCount, durationMs: Date.now() - started });
    p.waiting.delete(c.name);
    p.epoch++;
    this.emit(p.uid);
    if (c.lifecycle?.postStart) await this.runPostStart(p, c, rec);
    await this.pruneDeadInstances(p, c.name);
  }

  private hookTarget(p: PodEntry, c: Container, rec: ContainerRecord): HookTarget {
    return {
      pod: p.pod!, container: c, podIP: latestSandbox(p)?.ip,
      exec: async (cmd) => {
        const r = await this.client.execSync(rec.id, cmd, 0);
        return { exitCode: r.exitCode, output: Buffer.concat([Buffer.from(r.stdout ?? []), Buffer.from(r.stderr ?? [])]).toString('utf8') };
      },
    };
  }

  /** The event's object: the pod, narrowed to the container (upstream's container reference). */
  private containerRef(p: PodEntry, name: string) {
    const spec = p.pod?.spec;
    const list = (spec?.initContainers ?? []).some((x) => x.name === name) ? 'initContainers'
      : (spec?.ephemeralContainers ?? []).some((x) => x.name === name) ? 'ephemeralContainers' : 'containers';
    return { apiVersion: 'v1', kind: 'Pod', metadata: p.pod?.metadata, fieldPath: `spec.${list}{${name}}` };
  }

  /** Upstream startContainer step 4: a failed postStart hook kills the instance (restarted per the restart policy). */
  private async runPostStart(p: PodEntry, c: Container, rec: ContainerRecord): Promise<void> {
    const failure = await runLifecycleHandler(c.lifecycle!.postStart!, this.hookTarget(p, c, rec));
    if (!failure) return;
    this.opts.recorder?.event(this.containerRef(p, c.name), 'Warning', 'FailedPostStartHook', failure);
    this.opts.logger.info('postStart hook failed, killing the container', { pod: `${p.namespace}/${p.name}`, container: c.name });
    const grace = Math.max(minimumGracePeriodSeconds, p.pod?.spec?.terminationGracePeriodSeconds ?? 30);
    // The next relist (after this sync) sees the instance exited and restarts it per the restart policy.
    await this.ignoreNotFound(this.client.stopContainer(rec.id, grace));
  }

  /** Upstream killContainer: the preStop hook within the grace period, then StopContainer with what is left (at least 2 s). */
  private async stopContainer(p: PodEntry, rec: ContainerRecord, gracePeriodSeconds: number): Promise<void> {
    const c = [...(p.pod?.spec?.initContainers ?? []), ...(p.pod?.spec?.containers ?? [])].find((x) => x.name === rec.name);
    let grace = gracePeriodSeconds;
    if (c?.lifecycle?.preStop && rec.state === 'CONTAINER_RUNNING') {
      const started = Date.now();
      const failure = await runPreStopHook(c.lifecycle.preStop, this.hookTarget(p, c, rec), gracePeriodSeconds);
      if (failure && failure !== 'timeout') this.opts.recorder?.event(this.containerRef(p, c.name), 'Warning', 'FailedPreStopHook', failure);
      grace = Math.max(minimumGracePeriodSeconds, gracePeriodSeconds - Math.floor((Date.now() - started) / 1000));
    }
    await this.ignoreNotFound(this.client.stopContainer(rec.id, grace));
  }

  /** Upstream container GC keeps one dead instance per container (for lastState and `logs --previous`). */
  private async pruneDeadInstances(p: PodEntry, name: string): Promise<void> {
    const dead = instances(p, name).slice(2).filter((c) => c.state === 'CONTAINER_EXITED');
    for (const c of dead) {
      await this.ignoreNotFound(this.client.removeContainer(c.id));
      p.containers = p.containers.filter((x) => x.id !== c.id);
      p.epoch++;
    }
  }

  private async stopPod(p: PodEntry, timeoutSeconds: number): Promise<void> {
    // Let an in-flight sync finish first: it may be creating a container this stop must see.
    while (p.syncing) await new Promise((r) => setTimeout(r, 20));
    const running = p.containers.filter((c) => c.state === 'CONTAINER_RUNNING' || c.state === 'CONTAINER_CREATED');
    await Promise.all(running.map((c) => this.stopContainer(p, c, timeoutSeconds)));
    for (const sb of p.sandboxes) if (sb.state === 'SANDBOX_READY') await this.ignoreNotFound(this.client.stopPodSandbox(sb.id));
    await this.refreshPod(p);
    this.emit(p.uid);
  }

  private async ignoreNotFound(call: Promise<unknown>): Promise<void> {
    try { await call; } catch (e) { if ((e as { code?: number }).code !== 5) throw e; }
  }

  // --- relist (PLEG) ------------------------------------------------------

  private scheduleRelist(): void {
    if (this.closed) return;
    this.relistTimer = this.opts.timers.setTimeout(() => {
      this.relisting = this.relist()
        .catch((e) => this.opts.logger.warn('relist failed', { err: goGRPCError(e) }))
        .finally(() => { this.relisting = undefined; this.scheduleRelist(); });
    }, this.opts.relistPeriodMs ?? 1000);
  }

  /** One PLEG relist: list this node's sandboxes and containers, inspect changes, sync every pod. */
  async relist(): Promise<void> {
    const selector = { labelSelector: { [labelNodeName]: this.opts.nodeName } };
    const epochs = new Map([...this.byUID].map(([uid, p]) => [uid, p.epoch]));
    const [sandboxes, containers] = await Promise.all([this.client.listPodSandbox(selector), this.client.listContainers(selector)]);
    const byPod = new Map<string, { sandboxes: cri.PodSandbox[]; containers: cri.Container[]; labels: Record<string, string> }>();
    const group = (labels: Record<string, string>) => {
      const uid = labels[labelPodUID];
      if (!byPod.has(uid)) byPod.set(uid, { sandboxes: [], containers: [], labels });
      return byPod.get(uid)!;
    };
    for (const s of sandboxes) group(s.labels).sandboxes.push(s);
    for (const c of containers) group(c.labels).containers.push(c);
    for (const uid of new Set([...byPod.keys(), ...this.byUID.keys()])) {
      if (this.removing.has(uid) || this.closed) continue;
      const listed = byPod.get(uid) ?? { sandboxes: [], containers: [], labels: {} };
      let p = this.byUID.get(uid);
      if (!p) {
        p = newPodEntry(uid, listed.labels[labelPodNamespace], listed.labels[labelPodName]);
        this.byUID.set(uid, p);
        this.opts.logger.info('adopted pod from the container runtime', { pod: `${p.namespace}/${p.name}`, sandboxes: listed.sandboxes.length, containers: listed.containers.length });
      }
      if (p.syncing || p.epoch !== (epochs.get(uid) ?? 0)) continue;
      if (!(await this.applyListing(p, listed.sandboxes, listed.containers))) continue;
      this.emit(uid);
      if (p.pod && !p.terminating) this.syncLoop.request(p);
    }
  }

  /** Updates p from a listing; returns whether anything changed. Skips the update if p changed meanwhile. */
  private async applyListing(p: PodEntry, sandboxes: cri.PodSandbox[], containers: cri.Container[]): Promise<boolean> {
    const epoch = p.epoch;
    const sbChanged = sandboxes.filter((s) => p.sandboxes.find((x) => x.id === s.id)?.state !== s.state);
    const cChanged = containers.filter((c) => p.containers.find((x) => x.id === c.id)?.state !== c.state);
    const gone = p.sandboxes.length + p.containers.length !== sandboxes.length + containers.length;
    if (!sbChanged.length && !cChanged.length && !gone) return false;
    const sbStatus = new Map<string, cri.PodSandboxStatus>();
    const cStatus = new Map<string, cri.ContainerStatus>();
    // A sandbox or container removed meanwhile answers NOT_FOUND: it is simply left without details.
    await Promise.all([
      ...sbChanged.map((s) => this.client.podSandboxStatus(s.id).then((st) => { sbStatus.set(s.id, st); }, () => undefined)),
      ...cChanged.map((c) => this.client.containerStatus(c.id).then((st) => { cStatus.set(c.id, st); }, () => undefined)),
    ]);
    if (p.epoch !== epoch || p.syncing) return false;
    p.sandboxes = sandboxes.map((s) => {
      const old = p.sandboxes.find((x) => x.id === s.id);
      const st = sbStatus.get(s.id);
      return { id: s.id, attempt: s.metadata.attempt, state: s.state, createdAt: nsToDate(s.createdAt), ip: st?.network?.ip || old?.ip };
    });
    p.containers = containers.map((c) => {
      const old = p.containers.find((x) => x.id === c.id);
      const st = cStatus.get(c.id);
      if (!st) return old ? { ...old, state: c.state } : this.containerRecord(c);
      const exitCode = st.state === 'CONTAINER_EXITED' ? st.exitCode : undefined;
      return {
        ...this.containerRecord(c), image: st.image?.image || old?.image || c.image?.image || '', imageRef: st.imageRef || c.imageRef,
        startedAt: st.startedAt ? nsToDate(st.startedAt) : undefined, finishedAt: st.finishedAt ? nsToDate(st.finishedAt) : undefined,
        exitCode, reason: this.exitReason(c.id, exitCode, st.reason) || undefined, message: st.message || undefined,
      };
    });
    return true;
  }

  /** The runtime's reason, except a SIGKILL exit (137) it calls `Error` that the kernel's log shows was an OOM kill (kernel-oom.ts). */
  private exitReason(id: string, exitCode: number | undefined, reason: string): string {
    if (exitCode !== 137 || (reason !== '' && reason !== 'Error') || !this.kernelOOM.oomKilled(id)) return reason;
    this.opts.logger.info('the kernel OOM-killed a container the runtime reports as exited with an error', { container: id, runtimeReason: reason });
    return 'OOMKilled';
  }

  private containerRecord(c: cri.Container): ContainerRecord {
    return {
      id: c.id, name: c.metadata.name, attempt: c.metadata.attempt, sandboxId: c.podSandboxId, state: c.state,
      image: c.image?.userSpecifiedImage || c.image?.image || '', imageRef: c.imageRef, createdAt: nsToDate(c.createdAt),
    };
  }

  /** Re-reads one pod's sandboxes and containers now (after stopping it). */
  private async refreshPod(p: PodEntry): Promise<void> {
    const selector = { labelSelector: { [labelPodUID]: p.uid, [labelNodeName]: this.opts.nodeName } };
    const [sandboxes, containers] = await Promise.all([this.client.listPodSandbox(selector), this.client.listContainers(selector)]);
    p.epoch++;
    await this.applyListing(p, sandboxes, containers);
  }

  private emit(uid: string): void { this.events.emit(uid); }
}
