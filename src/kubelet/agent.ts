/**
 * NodeAgent: one node's kubelet, talking to the API only through the client.
 *
 *  1. start(): register the Node (create it, or reconcile the default labels
 *     of an existing one and post its status), create/renew the Lease at
 *     once, then run the pods bound to the node and heartbeat.
 *  2. Every beat (the lease renew interval, 10 s) renews the Lease from the
 *     cached copy and recomputes the node status from the Node as last seen;
 *     the status is posted (strategic merge patch on nodes/status) when it
 *     changed or nodeStatusReportFrequency (5 min) has passed.
 *  3. Pods are handled by PodWorkers over the runtime (podworkers.ts).
 *  4. If the Node object is deleted while the agent runs, the agent does not
 *     re-register it (upstream registers only at start): it stops posting
 *     status, the Lease is not recreated once collected, and its pods keep
 *     running until the API deletes them (pod GC). Restarting the agent
 *     registers the node again.
 *  5. stop() stops heartbeats (so the node lifecycle controller sees the
 *     node go Unknown), stops the runtime's pods without touching the API,
 *     and closes what the agent owns; with deleteNode it also deletes the
 *     Node and its Lease (a node leaving for good).
 *
 * Agents in one process share the pod and node informers, the heartbeat
 * loop and a write limiter (NodeSimulator); a lone agent makes its own.
 */
import { arch as hostArch, release } from 'node:os';
import { createHash } from 'node:crypto';
import type { Clientset } from '../client/index.js';
import { EventRecorder, isAlreadyExists, isNotFound } from '../client/index.js';
import { ensureCSINode } from './csinode.js';
import type { Taint } from '../api/taints.js';
import { createLogger, type Logger } from '../util/log.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { PodRuntime } from './runtime/runtime.js';
import { realTimers, type Timers } from './timers.js';
import { HeartbeatScheduler } from './heartbeat.js';
import type { HousekeepingWheel } from './housekeeping.js';
import { PodSource } from './podsource.js';
import { NodeSource } from './nodesource.js';
import { Semaphore } from './semaphore.js';
import { NodeLease, defaultLeaseDurationSeconds } from './nodelease.js';
import { PodStatusManager } from './status/manager.js';
import { PodWorkers } from './podworkers.js';
import { StaticPods, type StaticPodsOptions } from './staticpods/manager.js';
import { isMirrorPod } from './staticpods/manifest.js';
import { isMirrorPodOf } from './staticpods/mirror.js';
import type { KubeletMetrics } from './metrics.js';
import type { KubeletHost } from './server/host.js';
import { procMachine, simulatedMachine, SummaryProvider } from './stats/provider.js';
import { generatePodStatus } from './status/generate.js';
import { PressureTracker, type NodeMeasurements } from './pressure.js';
import type { SysctlAllowlist } from './sysctl.js';
import {
  annotationSimulated, controlPlaneTaint, initialNode, kubeletVersion, labelControlPlane, labelExcludeFromLB,
  nodeStatus, nodeStatusHasChanged, nodeStatusPatch, reconcileDefaultLabels, type NodeConfig, type NodeHealth, type RecordNodeEvent,
} from './nodestatus.js';

export interface NodeAgentOptions {
  nodeName: string;
  /** --node-labels: extra labels, applied when the Node is created. */
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** --register-with-taints: applied when the Node is created. */
  taints?: Taint[];
  /** A control-plane node: label node-role.kubernetes.io/control-plane="" and its NoSchedule taint, as kubeadm marks it. */
  controlPlane?: boolean;
  /** node.kubernetes.io/instance-type. */
  instanceType?: string;
  cpu?: string;
  memory?: string;
  /** --max-pods (default 110). */
  pods?: number;
  ephemeralStorage?: string;
  /** Allocatable where it differs from capacity (a real node: capacity minus eviction thresholds). */
  allocatable?: Record<string, string>;
  /** The InternalIP address (and hostIP of its pods). */
  internalIP: string;
  /** spec.podCIDR set at registration (the simulated node IPAM). */
  podCIDR?: string;
  osImage?: string;
  kernelVersion?: string;
  /** Lease spec.leaseDurationSeconds (40). */
  leaseDurationSeconds?: number;
  /** Lease renew interval when the agent runs its own heartbeat loop (10 s). */
  renewIntervalMs?: number;
  /** Post the node status even when unchanged after this long (5 min). */
  nodeStatusReportFrequencyMs?: number;
  /** Stopping a pod takes min(its grace period, this) (default 200 ms). */
  deleteDelayMs?: number;
  /** Record kubelet events (Starting, NodeReady, Pulled, Created, Started, Killing...). Default true. */
  events?: boolean;
  /** Mark the Node as simulated (annotation k8ts.io/simulated=true). Default true. */
  simulated?: boolean;
  /** The kubelet server's port, reported in status.daemonEndpoints (default 10250). */
  kubeletPort?: number;
  /** The safe sysctls and --allowed-unsafe-sysctls (sysctl.ts nodeSysctlAllowlist); default: the safe ones. */
  sysctls?: SysctlAllowlist;
  /** A real node's measurements behind MemoryPressure and DiskPressure (hostpressure.ts); absent: never under pressure. */
  measurePressure?: () => NodeMeasurements;
  /**
   * Lease renewals and pod status writes through the client's undici pool (a simulator of
   * thousands of nodes: about half the client CPU a request); default: Node's http client, so a
   * process that writes little never loads undici.
   */
  lightWrites?: boolean;
  /** Static pods from a manifest directory (--pod-manifest-path); see staticpods/manager.ts. */
  staticPods?: Omit<StaticPodsOptions, 'nodeName' | 'deleteDelayMs'>;
}

export interface NodeAgentDeps {
  clients: Clientset;
  runtime: PodRuntime;
  logger?: Logger;
  timers?: Timers;
  /** Shared sources and loop; the agent makes (and owns) its own when absent. */
  pods?: PodSource;
  nodes?: NodeSource;
  heartbeats?: HeartbeatScheduler;
  /** Shared housekeeping timer (PodWorkers.startHousekeeping); absent: the node's own. */
  housekeeping?: HousekeepingWheel;
  writeLimiter?: Semaphore;
  metrics?: KubeletMetrics;
}

export const defaultNodeStatusReportFrequencyMs = 5 * 60_000;
export const defaultRenewIntervalMs = 10_000;

const hexDigest = (s: string) => createHash('sha256').update(s).digest('hex');
const goArch = (a: string) => (a === 'x64' ? 'amd64' : a === 'ia32' ? '386' : a);

/** The NodeConfig (labels, capacity, nodeInfo) an agent registers with. */
export function nodeConfigFor(opts: NodeAgentOptions, runtimeVersion: string): NodeConfig {
  const labels = { ...(opts.labels ?? {}) };
  const taints = [...(opts.taints ?? [])];
  if (opts.controlPlane) {
    labels[labelControlPlane] = '';
    labels[labelExcludeFromLB] = '';
    if (!taints.some((t) => t.key === controlPlaneTaint.key && t.effect === controlPlaneTaint.effect)) taints.push({ ...controlPlaneTaint });
  }
  const annotations = { ...(opts.simulated ?? true ? { [annotationSimulated]: 'true' } : {}), ...(opts.annotations ?? {}) };
  const id = hexDigest(opts.nodeName);
  const arch = goArch(hostArch());
  return {
    nodeName: opts.nodeName, labels, annotations, taints, instanceType: opts.instanceType, os: 'linux', arch: arch === 'arm64' ? 'arm64' : 'amd64',
    internalIP: opts.internalIP, podCIDR: opts.podCIDR,
    capacity: {
      cpu: opts.cpu ?? '4', 'ephemeral-storage': opts.ephemeralStorage ?? '100Gi', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0',
      memory: opts.memory ?? '8Gi', pods: String(opts.pods ?? 110),
    },
    ...(opts.allocatable ? {
      allocatable: {
        cpu: opts.cpu ?? '4', 'ephemeral-storage': opts.ephemeralStorage ?? '100Gi', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0',
        memory: opts.memory ?? '8Gi', pods: String(opts.pods ?? 110), ...opts.allocatable,
      },
    } : {}),
    nodeInfo: {
      machineID: id.slice(0, 32), systemUUID: `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20, 32)}`,
      bootID: hexDigest(`${opts.nodeName}/${Date.now()}`).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12}).*$/, '$1-$2-$3-$4-$5'),
      kernelVersion: opts.kernelVersion ?? release(), osImage: opts.osImage ?? 'k8ts simulated node', containerRuntimeVersion: runtimeVersion,
      kubeletVersion, kubeProxyVersion: kubeletVersion, operatingSystem: 'linux', architecture: arch === 'arm64' ? 'arm64' : 'amd64',
    },
    kubeletPort: opts.kubeletPort ?? 10250,
  };
}

export class NodeAgent {
  readonly nodeName: string;
  readonly config: NodeConfig;
  private readonly clients: Clientset;
  private readonly runtime: PodRuntime;
  private readonly logger: Logger;
  private readonly timers: Timers;
  private readonly pods: PodSource;
  private readonly nodes: NodeSource;
  private readonly heartbeats: HeartbeatScheduler;
  private readonly owns: { pods: boolean; nodes: boolean; heartbeats: boolean };
  private readonly lease: NodeLease;
  private readonly statusManager: PodStatusManager;
  private readonly workers: PodWorkers;
  private readonly staticPods?: StaticPods;
  private readonly recorder?: EventRecorder;
  private readonly stats: SummaryProvider;
  private readonly metrics?: KubeletMetrics;
  private readonly reportFrequencyMs: number;
  private health: NodeHealth = { errors: [] };
  private readonly pressure = new PressureTracker();
  /** The newest Node we know: from the informer or from our own writes. */
  private node?: Node;
  private nodeDeleted = false;
  private lastReportMs = 0;
  /** The Node was created by this agent (not found registered), so its Lease is most likely absent. */
  private freshNode = false;
  private statusInFlight?: Promise<void>;
  private unsubscribe: (() => void)[] = [];
  /** The pod CIDRs last handed to the runtime. */
  private podCIDRPassed?: string;
  private state: 'new' | 'running' | 'stopped' = 'new';
  private heartbeating = false;

  constructor(deps: NodeAgentDeps, private readonly opts: NodeAgentOptions) {
    this.nodeName = opts.nodeName;
    this.clients = deps.clients;
    this.runtime = deps.runtime;
    this.logger = (deps.logger ?? createLogger('kubelet')).with(opts.nodeName);
    this.timers = deps.timers ?? realTimers;
    this.metrics = deps.metrics;
    this.config = nodeConfigFor(opts, deps.runtime.version);
    this.reportFrequencyMs = opts.nodeStatusReportFrequencyMs ?? defaultNodeStatusReportFrequencyMs;
    this.owns = { pods: !deps.pods, nodes: !deps.nodes, heartbeats: !deps.heartbeats };
    this.pods = deps.pods ?? new PodSource(deps.clients, { fieldSelector: `spec.nodeName=${opts.nodeName}`, logger: this.logger });
    this.nodes = deps.nodes ?? new NodeSource(deps.clients, { fieldSelector: `metadata.name=${opts.nodeName}`, logger: this.logger });
    this.heartbeats = deps.heartbeats ?? new HeartbeatScheduler({ periodMs: opts.renewIntervalMs ?? defaultRenewIntervalMs, logger: this.logger, timers: this.timers });
    if (opts.events ?? true) this.recorder = new EventRecorder(deps.clients, 'kubelet', this.logger, opts.nodeName);
    this.lease = new NodeLease(deps.clients, {
      nodeName: opts.nodeName, leaseDurationSeconds: opts.leaseDurationSeconds ?? defaultLeaseDurationSeconds, nodeUID: () => this.nodeUID(), light: opts.lightWrites,
    });
    this.statusManager = new PodStatusManager({
      clients: deps.clients, cached: (key) => this.pods.get(key), limiter: deps.writeLimiter ?? new Semaphore(16), logger: this.logger,
      onWrite: (r) => this.metrics?.podStatusUpdates.inc({ result: r }), light: opts.lightWrites,
    });
    // Static pods: their status is kept locally and written to their mirror pods.
    this.staticPods = opts.staticPods && new StaticPods(
      { runtime: deps.runtime, logger: this.logger, timers: this.timers, apiStatus: this.statusManager, recorder: this.recorder },
      { ...opts.staticPods, nodeName: opts.nodeName, deleteDelayMs: opts.deleteDelayMs ?? 200 },
    );
    this.workers = new PodWorkers({
      nodeName: opts.nodeName, runtime: deps.runtime, status: this.staticPods?.status ?? this.statusManager, clients: deps.clients,
      node: () => this.node ?? initialNode(this.config, this.health, this.timers.now()),
      hostIP: opts.internalIP, timers: this.timers, logger: this.logger, recorder: this.recorder,
      deleteDelayMs: opts.deleteDelayMs ?? 200, metrics: deps.metrics, housekeeping: deps.housekeeping, sysctls: opts.sysctls,
    });
    this.staticPods?.attach(this.workers);
    this.stats = new SummaryProvider({
      nodeName: opts.nodeName, runtime: deps.runtime, timers: this.timers, logger: this.logger,
      machine: opts.simulated === false ? procMachine : simulatedMachine(deps.runtime), pods: () => this.podsForStats(),
    });
  }

  /** API pods and static pods (the runtime runs the static pod, by its own UID), each once. */
  private podsForStats(): Pod[] {
    const byUID = new Map<string | undefined, Pod>();
    for (const p of [...this.pods.podsOn(this.nodeName), ...(this.staticPods?.pods() ?? [])]) byUID.set(p.metadata?.uid, p);
    return [...byUID.values()];
  }

  /** Registers the node, takes its first heartbeat, and starts running its pods. */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`node agent ${this.nodeName} already started`);
    this.state = 'running';
    this.stats.start();
    if (this.owns.nodes) this.nodes.start();
    if (this.owns.pods) this.pods.start();
    if (this.staticPods) {
      // Static pods run before registration and whether or not the API server answers (upstream kubelet).
      await this.staticPods.start();
      if (!(await this.tryRegister())) { void this.registerInBackground(); return; }
    } else {
      await this.register();
    }
    await this.joined();
  }

  /** After registration: follow the Node, take the first heartbeat, run the node's API pods. */
  private async joined(): Promise<void> {
    if (this.state !== 'running') return;
    this.unsubscribe.push(this.nodes.subscribe(this.nodeName, { update: (n) => this.onNode(n), deleted: (n) => this.onNodeDeleted(n) }));
    if (this.staticPods) await this.renewLease().catch(() => { /* logged; the heartbeat retries */ });
    else await this.renewLease();
    this.unsubscribe.push(this.pods.subscribe(this.nodeName, this.staticPods?.apiPodHandler(this.workers) ?? this.workers));
    this.staticPods?.connect({
      clients: this.clients, nodeUID: () => this.nodeUID(), apiPod: (key) => this.pods.get(key),
      apiPodsOnNode: () => this.pods.podsOn(this.nodeName), apiSynced: () => this.pods.informer.hasSynced(),
    }, { nodeName: this.nodeName });
    this.workers.startHousekeeping(() => this.pods.informer.hasSynced() && (this.staticPods?.synced ?? true));
    this.resumeHeartbeats(false);
    if (this.owns.heartbeats) this.heartbeats.start();
    // Off the registration path, as upstream's CSI node-info manager: one create, retried until it lands.
    void this.registerCSINode();
    this.metrics?.nodes.inc();
    this.logger.debug('node registered', { node: this.nodeName, podCIDR: this.config.podCIDR, internalIP: this.config.internalIP });
  }

  /** One registration attempt; false when the API server could not be reached or refused. */
  private async tryRegister(): Promise<boolean> {
    try {
      await this.register();
      return true;
    } catch (e) {
      this.logger.warn('unable to register node with API server; static pods keep running', { node: this.nodeName, err: e });
      return false;
    }
  }

  /** Upstream registerWithAPIServer: retry with a delay doubling from 100 ms to 7 s until registered. */
  private async registerInBackground(): Promise<void> {
    for (let delay = 100; this.state === 'running'; delay = Math.min(delay * 2, 7000)) {
      await new Promise((r) => this.timers.setTimeout(() => r(undefined), delay));
      if (this.state !== 'running') return;
      if (await this.tryRegister()) { await this.joined(); return; }
    }
  }

  /** The node's CSINode (csinode.ts); retried with a delay doubling from 100 ms to 7 s while the agent runs. */
  private async registerCSINode(): Promise<void> {
    for (let delay = 100; this.state === 'running' && this.node; delay = Math.min(delay * 2, 7000)) {
      try {
        await ensureCSINode(this.clients, this.node);
        return;
      } catch (e) {
        this.logger.debug('unable to create the CSINode; retrying', { node: this.nodeName, err: e });
      }
      await new Promise((r) => this.timers.setTimeout(() => r(undefined), delay));
    }
  }

  /** Stops renewing the Lease and posting status; pods keep running (the node looks dead to the control plane). */
  pauseHeartbeats(): void {
    this.heartbeating = false;
    this.heartbeats.remove(this.nodeName);
  }

  /** Heartbeats again, beating at once (a restarted kubelet). */
  resumeHeartbeats(beatNow = true): void {
    if (this.state !== 'running') return;
    this.heartbeating = true;
    this.heartbeats.add({ key: this.nodeName, beat: () => this.beat() });
    if (beatNow) void this.beat().catch((e) => this.logger.debug('heartbeat failed', { err: e }));
  }

  get isHeartbeating(): boolean { return this.heartbeating; }

  /** Stops acting on pods (a crashed or partitioned kubelet) until thawPods. */
  freezePods(): void { this.workers.freeze(); }
  thawPods(): void { this.workers.thaw(); }

  /** Reports Ready=False (KubeletNotReady, with the message) or True again; posted at once. */
  async setReady(ready: boolean, message = 'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady'): Promise<void> {
    this.health = { errors: ready ? [] : [message] };
    await this.syncNodeStatus(true);
  }

  /** The Node as the agent last saw it. */
  get currentNode(): Node | undefined { return this.node; }
  /** Pods this agent admitted and runs. */
  get podCount(): number { return this.workers.activePods().length; }

  // --- kubelet server (src/kubelet/server): what it reads of this agent ---
  /** The pods bound to this node and their status as computed now from the runtime. */
  kubeletHost(): KubeletHost {
    const podStatus = (pod: Pod) => {
      const rs = this.workers.runtimeStatus(pod.metadata!.uid!);
      return rs ? generatePodStatus(pod, rs, { hostIP: this.opts.internalIP, now: this.timers.now() }) : pod.status;
    };
    return {
      nodeName: this.nodeName, runtime: this.runtime, podStatus, summary: () => this.stats.summary(),
      pods: () => this.pods.podsOn(this.nodeName).map((p) => ({ ...p, status: podStatus(p) })),
      podByName: (namespace, name) => {
        const pod = this.pods.get(`${namespace}/${name}`);
        if (pod?.spec?.nodeName !== this.nodeName) return undefined;
        // A mirror stands for its static pod, which is what the runtime runs (upstream GetPodByName → static pod).
        return (isMirrorPod(pod) && this.staticPods?.pods().find((p) => isMirrorPodOf(pod, p))) || pod;
      },
    };
  }
  // --- end kubelet server ---

  async stop(opts: { deleteNode?: boolean } = {}): Promise<void> {
    if (this.state === 'stopped') return;
    const wasRunning = this.state === 'running';
    this.state = 'stopped';
    this.pauseHeartbeats();
    for (const u of this.unsubscribe.splice(0)) u();
    this.stats.close();
    this.staticPods?.stop();
    this.workers.close();
    this.statusManager.close();
    await this.runtime.close();
    if (this.owns.heartbeats) this.heartbeats.stop();
    if (this.owns.pods) this.pods.stop();
    if (this.owns.nodes) this.nodes.stop();
    if (wasRunning) this.metrics?.nodes.dec();
    if (opts.deleteNode) {
      try { await this.clients.nodes.delete(undefined, this.nodeName); } catch (e) { if (!isNotFound(e)) throw e; }
      await this.lease.delete();
    }
  }

  private recordNodeEvent: RecordNodeEvent = (type, reason) => {
    this.recorder?.event({ apiVersion: 'v1', kind: 'Node', metadata: { name: this.nodeName, uid: this.nodeName } }, type, reason,
      `Node ${this.nodeName} status is now: ${reason}`);
  };

  private async register(): Promise<void> {
    const now = this.timers.now();
    this.recorder?.event({ apiVersion: 'v1', kind: 'Node', metadata: { name: this.nodeName, uid: this.nodeName } }, 'Normal', 'Starting', 'Starting kubelet.');
    try {
      this.node = await this.clients.nodes.create(undefined, initialNode(this.config, this.currentHealth(now), now, this.recordNodeEvent));
      this.freshNode = true;
      this.lastReportMs = now.getTime();
      this.metrics?.nodeStatusUpdates.inc({ result: 'ok' });
      return;
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
    // Already registered (a restart): reconcile the default labels, then post the status.
    let existing = await this.clients.nodes.get(undefined, this.nodeName);
    const labels = reconcileDefaultLabels(existing, this.config);
    const spec = !existing.spec?.podCIDR && this.config.podCIDR ? { podCIDR: this.config.podCIDR, podCIDRs: [this.config.podCIDR] } : undefined;
    if (labels || spec) existing = await this.clients.nodes.patch(undefined, this.nodeName, { metadata: labels ? { labels } : undefined, spec }, 'merge');
    if (existing.spec?.podCIDR && this.config.podCIDR && existing.spec.podCIDR !== this.config.podCIDR) {
      this.logger.warn('node already has a different pod CIDR; pods get addresses from the configured one', { existing: existing.spec.podCIDR, configured: this.config.podCIDR });
    }
    this.node = existing;
    await this.syncNodeStatus(true);
  }

  private onNode(n: Node): void {
    if (this.node && this.node.metadata!.uid === n.metadata!.uid && Number(n.metadata!.resourceVersion) < Number(this.node.metadata!.resourceVersion)) return;
    this.node = n;
    this.nodeDeleted = false;
    this.passPodCIDR(n);
  }

  /** Hands the node's pod CIDRs (set by the node IPAM controller) to the runtime once per change; a failure is retried on the next node update. */
  private passPodCIDR(n: Node): void {
    const cidrs = n.spec?.podCIDRs?.length ? n.spec.podCIDRs : n.spec?.podCIDR ? [n.spec.podCIDR] : [];
    const key = cidrs.join(',');
    if (!this.runtime.updatePodCIDR || !key || key === this.podCIDRPassed) return;
    this.podCIDRPassed = key;
    this.runtime.updatePodCIDR(cidrs).then(
      () => this.logger.info('updated the runtime\'s pod CIDR', { podCIDR: key }),
      (e) => { this.podCIDRPassed = undefined; this.logger.warn('failed to update the runtime\'s pod CIDR', { podCIDR: key, err: e }); },
    );
  }

  private onNodeDeleted(n: Node): void {
    if (this.node && n.metadata!.uid !== this.node.metadata!.uid) return;
    this.nodeDeleted = true;
    this.logger.warn('node object deleted; the agent does not re-register it until it restarts (as upstream kubelet)', { node: this.nodeName });
  }

  private async nodeUID(): Promise<string | undefined> {
    if (!this.nodeDeleted && this.node?.metadata?.uid) return this.node.metadata.uid;
    try {
      return (await this.clients.nodes.get(undefined, this.nodeName)).metadata.uid;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /** One heartbeat: renew the Lease, then post the node status if due. */
  private async beat(): Promise<void> {
    if (this.state !== 'running') return;
    await this.renewLease();
    await this.syncNodeStatus(false);
  }

  private async renewLease(): Promise<void> {
    const started = process.hrtime.bigint();
    try {
      const result = await this.lease.renew(this.timers.now(), { createFirst: this.freshNode });
      this.freshNode = false;
      this.metrics?.leaseRenewals.inc({ result });
    } catch (e) {
      this.metrics?.leaseRenewals.inc({ result: 'error' });
      this.logger.debug('lease renewal failed', { err: e });
      throw e;
    } finally {
      this.metrics?.leaseRenewLatency.observe(Number(process.hrtime.bigint() - started) / 1e9);
    }
  }

  /** The reported errors plus, on a real node, the pressure measured now. */
  private currentHealth(now: Date): NodeHealth {
    const measure = this.opts.measurePressure;
    return measure ? { ...this.health, pressure: this.pressure.observe(measure(), now.getTime()) } : this.health;
  }

  /** Upstream tryUpdateNodeStatus: recompute from the Node as seen; post if changed or the report is due. */
  private async syncNodeStatus(force: boolean): Promise<void> {
    if (this.statusInFlight) await this.statusInFlight;
    if (this.nodeDeleted || !this.node || this.state !== 'running') return;
    const now = this.timers.now();
    const base = this.node;
    const status = nodeStatus(base, this.config, this.currentHealth(now), now, this.recordNodeEvent);
    const due = now.getTime() - this.lastReportMs >= this.reportFrequencyMs;
    if (!force && !due && !nodeStatusHasChanged(base.status, status)) return;
    this.statusInFlight = (async () => {
      try {
        const res = await this.clients.nodes.patch(undefined, this.nodeName, nodeStatusPatch(status, base.status), 'strategic', 'status');
        if (!this.node || Number(res.metadata.resourceVersion) >= Number(this.node.metadata!.resourceVersion)) this.node = res;
        this.lastReportMs = now.getTime();
        this.metrics?.nodeStatusUpdates.inc({ result: 'ok' });
      } catch (e) {
        this.metrics?.nodeStatusUpdates.inc({ result: 'error' });
        if (isNotFound(e)) { this.nodeDeleted = true; return; }
        this.logger.warn('failed to update node status', { err: e });
      } finally {
        this.statusInFlight = undefined;
      }
    })();
    await this.statusInFlight;
  }
}
