/**
 * NodeSimulator: many simulated nodes in one process (the KWOK idea, built
 * in), cheap enough for thousands:
 *
 *  - one Clientset (its qps/burst limit everything), one pod informer over
 *    all scheduled pods indexed by nodeName, one node informer;
 *  - one heartbeat loop that spreads the Lease renewals evenly over the
 *    renew interval, with a bounded number in flight; renewals are UPDATEs
 *    from the cached Lease, no GET; node status is re-posted only when it
 *    changed or every 5 minutes;
 *  - one housekeeping wheel (housekeeping.ts): every node's 2 s orphan check on one timer;
 *  - one limiter on pod status writes across all nodes;
 *  - each node a NodeAgent over its own SimulatedRuntime, with pod CIDR
 *    10.244.<i>.0/24 and node IP from 172.16.0.0/12 by its index;
 *  - with `kubelet`, each node also serves the kubelet API (logs of its
 *    simulated lifecycle, /pods, /healthz; exec in the simulated shell,
 *    port-forward to the simulated images' responders; attach answers that
 *    no process runs) on its own port of a loopback address, which it
 *    advertises as its InternalIP, so `kubectl logs`, exec, port-forward
 *    and the API server's pods/services proxy work on `k8ts up`. Without it a node
 *    advertises kubelet port 0: it has no kubelet API, and the API server,
 *    seeing a simulated node, says so instead of dialling its made-up
 *    172.16.x address (which nobody on this machine may send to).
 *
 * Joining and leaving: addNode / removeNode (optionally deleting the Node
 * and its Lease); stopNode stops a node's heartbeats (optionally freezing
 * its pods, like a dead kubelet) and startNode brings it back.
 */
import { EventRecorder, type Clientset } from '../client/index.js';
import type { Taint } from '../api/taints.js';
import { createLogger, type Logger } from '../util/log.js';
import { NodeAgent, defaultRenewIntervalMs, type NodeAgentOptions } from './agent.js';
import { HeartbeatScheduler } from './heartbeat.js';
import { HousekeepingWheel } from './housekeeping.js';
import { housekeepingPeriodMs } from './podworkers.js';
import { PodSource } from './podsource.js';
import { NodeSource } from './nodesource.js';
import { Semaphore } from './semaphore.js';
import { realTimers, type Timers } from './timers.js';
import { SimulatedRuntime } from './runtime/simulated/runtime.js';
import { nodeIPForIndex, podCIDRForIndex } from './runtime/simulated/ipam.js';
import { ServiceObjects } from './runtime/simulated/service-objects.js';
import type { KubeletMetrics } from './metrics.js';
import type { SysctlAllowlist } from './sysctl.js';
import { createKubeletAuth, createKubeletServer, persistedServingCertificate, reviewerFor, selfSignedServingCertificate, type KubeletAuth, type KubeletReviewer, type KubeletServer } from './server/index.js';
import type { PodObjectGetter } from './volumes/objects.js';
import { ServiceAccountTokenManager } from './token/manager.js';

export interface SimulatedNodeOptions {
  cpu?: string;
  memory?: string;
  pods?: number;
  ephemeralStorage?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  taints?: Taint[];
  controlPlane?: boolean;
  instanceType?: string;
  /** Pod on the node → containers running (default 0). */
  startDelayMs?: number;
  /** Containers running → ready (default 0). */
  readyDelayMs?: number;
  /** Upper bound of a pod's stop time on deletion (default 200 ms). */
  deleteDelayMs?: number;
  /** Index for the pod CIDR and node IP; default: the next free one. */
  index?: number;
  /** The sysctls its pods may set (--allowed-unsafe-sysctls, sysctl.ts); default: the safe ones. */
  sysctls?: SysctlAllowlist;
}

export interface NodeSimulatorOptions extends Omit<SimulatedNodeOptions, 'controlPlane' | 'index'> {
  /** Nodes start() registers (default 0). */
  count?: number;
  /** Node names: `${namePrefix}${index}` (default "sim-node-"). */
  namePrefix?: string;
  /** First index (default 0). */
  startIndex?: number;
  /** The first `controlPlane` of the `count` nodes are control-plane nodes (label + NoSchedule taint, as kubeadm marks them). */
  controlPlane?: number;
  /** Lease renew interval (default 10 s; upstream: a quarter of the 40 s lease). */
  renewIntervalMs?: number;
  leaseDurationSeconds?: number;
  /** Node status re-post period when unchanged (default 5 min). */
  nodeStatusReportFrequencyMs?: number;
  /** Heartbeats in flight at once (default 64). */
  heartbeatConcurrency?: number;
  /** Pod status writes in flight at once, all nodes together (default 64). */
  statusConcurrency?: number;
  /** Node registrations in flight at once during start() (default 64). */
  registerConcurrency?: number;
  /** Lease renewals and pod status writes through the client's undici pool (NodeAgentOptions.lightWrites; default false). */
  lightWrites?: boolean;
  /** Record kubelet events (default true; benchmarks at thousands of nodes turn them off). */
  events?: boolean;
  logger?: Logger;
  timers?: Timers;
  metrics?: KubeletMetrics;
  /** Give every node a kubelet API on `address` (a loopback address), callers authenticated by `clientCAPem`. */
  kubelet?: SimulatedKubeletOptions;
}

export interface SimulatedKubeletOptions {
  address: string;
  clientCAPem: string;
  /** Container logs of node N go to `${podLogsDir}/N`. */
  podLogsDir: string;
  /** Where the kubelet API's TokenReviews and SubjectAccessReviews go (default: the simulator's clientset). */
  reviewer?: KubeletReviewer;
  /** The cluster DNS addresses pods are given (the kubelet's --cluster-dns): their /etc/resolv.conf. */
  clusterDNS?: string[];
  /** The API server as the nodes' kubelet reaches it (https://HOST:PORT): where a pod's https to the `kubernetes` Service goes. */
  apiServer?: string;
  /** Keep each node's self-signed serving certificate here and reuse it on the next start (upstream's --cert-dir); default: made anew each start. */
  certDir?: string;
}

export class NodeSimulator {
  private readonly agents = new Map<string, NodeAgent>();
  private readonly kubeletServers = new Map<string, KubeletServer>();
  private kubeletAuth?: KubeletAuth;
  private readonly indexOf = new Map<string, number>();
  private readonly usedIndexes = new Set<number>();
  private readonly pods: PodSource;
  private readonly nodes: NodeSource;
  private readonly heartbeats: HeartbeatScheduler;
  private readonly housekeeping: HousekeepingWheel;
  private readonly writeLimiter: Semaphore;
  private readonly logger: Logger;
  private readonly timers: Timers;
  private readonly serviceObjects: ServiceObjects;
  /** The service-account tokens execs read (podObjects), made at the first node with logs. */
  private tokens?: ServiceAccountTokenManager;
  private nextIndex: number;
  private started?: Promise<void>;
  private closed = false;

  constructor(private readonly clients: Clientset, private readonly opts: NodeSimulatorOptions = {}) {
    this.logger = opts.logger ?? createLogger('sim');
    this.timers = opts.timers ?? realTimers;
    this.nextIndex = opts.startIndex ?? 0;
    this.pods = new PodSource(clients, { logger: this.logger, withoutManagedFields: true });
    this.nodes = new NodeSource(clients, { logger: this.logger });
    this.heartbeats = new HeartbeatScheduler({
      periodMs: opts.renewIntervalMs ?? defaultRenewIntervalMs, concurrency: opts.heartbeatConcurrency ?? 64, logger: this.logger, timers: this.timers,
    });
    this.housekeeping = new HousekeepingWheel({ periodMs: housekeepingPeriodMs, logger: this.logger, timers: this.timers });
    this.writeLimiter = new Semaphore(opts.statusConcurrency ?? 64);
    this.serviceObjects = new ServiceObjects(clients, this.logger);
  }

  /** Starts the informers and the heartbeat loop, then registers `count` nodes. Resolves when they are registered. */
  start(): Promise<void> {
    this.started ??= (async () => {
      this.pods.start();
      this.nodes.start();
      await Promise.all([this.pods.waitForSync(), this.nodes.waitForSync()]);
      this.heartbeats.start();
      const count = this.opts.count ?? 0;
      const prefix = this.opts.namePrefix ?? 'sim-node-';
      const first = this.opts.startIndex ?? 0;
      const names = Array.from({ length: count }, (_, i) => ({ name: `${prefix}${first + i}`, index: first + i, cp: i < (this.opts.controlPlane ?? 0) }));
      const began = Date.now();
      await forEachLimit(names, this.opts.registerConcurrency ?? 64, ({ name, index, cp }) => this.addNode(name, { index, controlPlane: cp }));
      if (count) this.logger.info('simulated nodes registered', { count, ms: Date.now() - began });
    })();
    return this.started;
  }

  /** ConfigMaps, Secrets and Services through the simulator's clients, for the commands its runtimes run (runtime/simulated/program.ts). */
  private podObjects(): PodObjectGetter {
    const c = this.clients;
    // One token cache for the nodes of this process, as each kubelet has its own; a token is asked for when an exec reads it.
    const tokens = (this.tokens ??= new ServiceAccountTokenManager((ns, name, tr) =>
      c.resource('serviceaccounts').createSub(ns, name, 'token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', ...tr })));
    return {
      serviceAccountToken: (ns, name, tr) => tokens.getServiceAccountToken(ns, name, tr),
      forgetPodTokens: (uid) => tokens.forgetPod(uid),
      claim: (ns, name) => c.resource('persistentvolumeclaims').get(ns, name), volume: (name) => c.resource('persistentvolumes').get(undefined, name),
      configMap: (ns, name) => c.resource('configmaps').get(ns, name), secret: (ns, name) => c.resource('secrets').get(ns, name),
      // From one watch of each per process (service-objects.ts), not a read per connection.
      service: (ns, name) => this.serviceObjects.service(ns, name),
      services: (ns) => this.serviceObjects.namespaceServices(ns),
      endpointSlices: (ns, svc) => this.serviceObjects.endpointSlices(ns, svc),
      networkPolicies: () => this.serviceObjects.networkPolicies(),
    };
  }

  /** Registers one more simulated node (a node joining). */
  async addNode(name: string, nodeOpts: SimulatedNodeOptions = {}): Promise<NodeAgent> {
    if (this.closed) throw closedError();
    if (this.agents.has(name)) throw new Error(`simulated node "${name}" already exists`);
    if (!this.started) await this.start();
    const index = nodeOpts.index ?? this.freeIndex();
    if (this.usedIndexes.has(index)) throw new Error(`simulated node index ${index} is in use`);
    const o: SimulatedNodeOptions = { ...this.opts, controlPlane: undefined, ...nodeOpts };
    const timers = this.timers;
    const podCIDR = podCIDRForIndex(index);
    const kubelet = this.opts.kubelet ? await this.startKubeletServer(name) : undefined;
    const internalIP = kubelet ? this.opts.kubelet!.address : nodeIPForIndex(index);
    const podLogsDir = kubelet ? `${this.opts.kubelet!.podLogsDir}/${name}` : undefined;
    // Nodes with logs run the tutorials' commands (echo, env, cat of a ConfigMap file) for them: that needs the objects they name.
    const objects = podLogsDir ? this.podObjects() : undefined;
    // Nodes that serve the kubelet API also model their containers' usage (its /stats/summary, so kubectl top and the HPA).
    const usage = kubelet ? { cpu: o.cpu, memory: o.memory } : undefined;
    const runtime = new SimulatedRuntime({ podCIDR, hostIP: internalIP, startDelayMs: o.startDelayMs, readyDelayMs: o.readyDelayMs, timers, podLogsDir, objects, nodeName: name, usage,
      clusterDNS: this.opts.kubelet?.clusterDNS, apiServer: this.opts.kubelet?.apiServer,
      // What the runtime reports itself (a failed preStop hook) is the node's kubelet's event.
      recorder: kubelet && (this.opts.events ?? true) ? new EventRecorder(this.clients, 'kubelet', this.logger, name) : undefined });
    const agentOpts: NodeAgentOptions = {
      nodeName: name, labels: o.labels, annotations: o.annotations, taints: o.taints, controlPlane: o.controlPlane, instanceType: o.instanceType,
      cpu: o.cpu, memory: o.memory, pods: o.pods, ephemeralStorage: o.ephemeralStorage, internalIP, podCIDR,
      leaseDurationSeconds: this.opts.leaseDurationSeconds, nodeStatusReportFrequencyMs: this.opts.nodeStatusReportFrequencyMs,
      deleteDelayMs: o.deleteDelayMs, events: this.opts.events ?? true, kubeletPort: kubelet?.port ?? 0, lightWrites: this.opts.lightWrites, sysctls: o.sysctls,
    };
    const agent = new NodeAgent({
      clients: this.clients, runtime, logger: this.logger, timers, pods: this.pods, nodes: this.nodes, heartbeats: this.heartbeats, housekeeping: this.housekeeping,
      writeLimiter: this.writeLimiter, metrics: this.opts.metrics,
    }, agentOpts);
    this.agents.set(name, agent);
    this.indexOf.set(name, index);
    this.usedIndexes.add(index);
    kubelet?.server.setHost(agent.kubeletHost());
    try {
      await agent.start();
      // close() ran while this node registered (a SIGTERM as `k8ts up` adds its nodes): it stopped
      // the agents it knew, not this one, whose timers and kubelet port would keep the process alive.
      if (this.closed) throw closedError();
    } catch (e) {
      this.forget(name);
      await agent.stop().catch(() => {});
      throw e;
    }
    return agent;
  }

  /** A node leaving: stops its agent (pods stop without API writes); deleteNodeObject also deletes the Node and its Lease. */
  async removeNode(name: string, opts: { deleteNodeObject?: boolean } = {}): Promise<void> {
    const agent = this.agents.get(name);
    if (!agent) throw new Error(`simulated node "${name}" not found`);
    this.forget(name);
    await agent.stop({ deleteNode: opts.deleteNodeObject });
  }

  /** Stops the node's heartbeats (Lease and status freeze; the control plane will see it go Unknown). freezePods also stops acting on its pods. */
  stopNode(name: string, opts: { freezePods?: boolean } = {}): void {
    const agent = this.mustGet(name);
    agent.pauseHeartbeats();
    if (opts.freezePods) agent.freezePods();
  }

  /** Resumes a stopped node: heartbeats at once and acts on its pods again. */
  startNode(name: string): void {
    const agent = this.mustGet(name);
    agent.thawPods();
    agent.resumeHeartbeats();
  }

  /** Reports the node Ready=False (or True again) through its status, as a kubelet with a broken runtime would. */
  setNodeReady(name: string, ready: boolean, message?: string): Promise<void> {
    return this.mustGet(name).setReady(ready, message);
  }

  node(name: string): NodeAgent | undefined { return this.agents.get(name); }
  get nodeNames(): string[] { return [...this.agents.keys()]; }
  get size(): number { return this.agents.size; }
  heartbeatStats() { return this.heartbeats.stats(); }

  /** Stops every agent and the shared loops; deleteNodes also deletes their Nodes and Leases (k8ts sim --cleanup). */
  async close(opts: { deleteNodes?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.heartbeats.stop();
    const agents = [...this.agents.values()];
    this.agents.clear();
    const servers = [...this.kubeletServers.values()];
    this.kubeletServers.clear();
    await Promise.all(servers.map((srv) => srv.close().catch(() => undefined)));
    await forEachLimit(agents, 32, (a) => a.stop({ deleteNode: opts.deleteNodes }).catch((e) => this.logger.warn('node cleanup failed', { node: a.nodeName, err: e })));
    this.pods.stop();
    this.nodes.stop();
    this.serviceObjects.stop();
  }

  private mustGet(name: string): NodeAgent {
    const agent = this.agents.get(name);
    if (!agent) throw new Error(`simulated node "${name}" not found`);
    return agent;
  }

  /** The node's kubelet API: a self-signed serving certificate for its name and address, a port of the kernel's choice. */
  private async startKubeletServer(name: string): Promise<{ server: KubeletServer; port: number }> {
    const k = this.opts.kubelet!;
    const serving = k.certDir ? await persistedServingCertificate(name, [k.address], k.certDir) : await selfSignedServingCertificate(name, [k.address]);
    // One authenticator and authorizer for all nodes: their caches are shared, and a review names its node.
    this.kubeletAuth ??= createKubeletAuth(k.clientCAPem, k.reviewer ?? reviewerFor(this.clients));
    const server = createKubeletServer({ nodeName: name, clientCAPem: k.clientCAPem, auth: this.kubeletAuth, ...serving, logger: this.logger.with('server') });
    const addr = await server.listen(0, k.address);
    if (this.closed) {
      await server.close().catch(() => undefined);
      throw closedError();
    }
    this.kubeletServers.set(name, server);
    return { server, port: addr.port };
  }

  private forget(name: string): void {
    this.agents.delete(name);
    const server = this.kubeletServers.get(name);
    this.kubeletServers.delete(name);
    server?.close().catch((e) => this.logger.warn('kubelet server close failed', { node: name, err: e }));
    const i = this.indexOf.get(name);
    if (i !== undefined) this.usedIndexes.delete(i);
    this.indexOf.delete(name);
  }

  private freeIndex(): number {
    while (this.usedIndexes.has(this.nextIndex)) this.nextIndex++;
    return this.nextIndex++;
  }
}

/** Runs fn over items with at most `limit` at once; rejects with the first error after all settle. */
async function forEachLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  let firstError: unknown;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++];
      try { await fn(item); } catch (e) { firstError ??= e; }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (firstError) throw firstError;
}

const closedError = () => new Error('node simulator is closed');
