/**
 * The node lifecycle controller (upstream
 * `pkg/controller/nodelifecycle/node_lifecycle_controller.go`, events from
 * "node-controller"). Three loops:
 *  - monitorNodeHealth every nodeMonitorPeriod: judges each node's heartbeat
 *    (health.ts), sets its conditions to Unknown when it went silent, marks
 *    its pods not Ready, queues it for a NoExecute taint (not-ready or
 *    unreachable) or removes those taints when it is Ready again, records
 *    RegisteredNode / RemovingNode / NodeNotReady, and tracks zone disruption
 *    (when every node of every zone is not Ready, evictions stop).
 *  - the NoExecute tainting pass every 100 ms, rate limited per zone.
 *  - node and pod updates: taint by condition (NoSchedule), beta labels, and
 *    marking newly bound pods on not-Ready nodes not Ready.
 */
import type { Informer, EventRecorder } from '../../client/index.js';
import { WorkQueue, runWorkers, isNotFound } from '../../client/index.js';
import type { Controller, ControllerContext } from '../types.js';
import type { Logger } from '../../util/log.js';
import type { Taint } from '../../api/taints.js';
import {
  computeZoneState, getNodeCondition, getZoneKey, labelNodeDisruptionExclusion, labelsToReconcile, tryUpdateNodeHealth,
} from './health.js';
import type { NodeCondition, NodeHealth, ZoneState } from './health.js';
import {
  NotReadyTaintTemplate, UnreachableTaintTemplate, noScheduleTaintPlan, swapNodeControllerTaint, taintExists,
} from './taints.js';
import { RateLimitedTimedQueue } from './ratelimited-queue.js';
import type { ActionResult, TimedValue } from './ratelimited-queue.js';
import { updatePodCondition } from '../../api/pods.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';

export const controllerName = 'node-lifecycle-controller';
export const eventSource = 'node-controller';
const nodeNameIndex = 'spec.nodeName';
const nodeLeaseNamespace = 'kube-node-lease';
const nodeHealthUpdateRetry = 5;
const retrySleepMs = 20;
const nodeUpdateWorkerSize = 8;

export interface NodeLifecycleOptions {
  /** --node-eviction-rate: nodes per second tainted NoExecute per zone (upstream 0.1). */
  evictionLimiterQPS: number;
  /** --secondary-node-eviction-rate, for partially disrupted large zones (upstream 0.01). */
  secondaryEvictionLimiterQPS: number;
  /** --large-cluster-size-threshold (upstream 50). */
  largeClusterThreshold: number;
  /** --unhealthy-zone-threshold (upstream 0.55). */
  unhealthyZoneThreshold: number;
  /** How often the NoExecute tainting queues are drained (upstream NodeEvictionPeriod, 100 ms). */
  nodeEvictionPeriodMs: number;
}

export const defaultNodeLifecycleOptions: NodeLifecycleOptions = {
  evictionLimiterQPS: 0.1, secondaryEvictionLimiterQPS: 0.01, largeClusterThreshold: 50, unhealthyZoneThreshold: 0.55, nodeEvictionPeriodMs: 100,
};

export class NodeLifecycleController implements Controller {
  readonly name = controllerName;
  private readonly nodes: Informer;
  private readonly leases: Informer;
  private readonly pods: Informer;
  private readonly recorder: EventRecorder;
  private readonly logger: Logger;
  private readonly opts: NodeLifecycleOptions;
  private readonly knownNodes = new Map<string, any>();
  private readonly health = new Map<string, NodeHealth>();
  private readonly zoneStates = new Map<string, ZoneState>();
  private readonly zoneTainters = new Map<string, RateLimitedTimedQueue>();
  private readonly nodesToRetry = new Set<string>();
  private readonly nodeUpdateQueue = new WorkQueue();
  private readonly podUpdateQueue = new WorkQueue();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;
  private tainting = false;

  constructor(private readonly ctx: ControllerContext, opts: Partial<NodeLifecycleOptions> = {}) {
    this.opts = { ...defaultNodeLifecycleOptions, ...opts };
    this.logger = ctx.logger.with(controllerName);
    this.recorder = ctx.recorder(eventSource);
    this.nodes = ctx.informers.informer('nodes');
    this.leases = ctx.informers.informer('leases');
    this.pods = ctx.informers.informer('pods');
    this.pods.addIndex(nodeNameIndex, (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []));
    this.pods.addEventHandler({
      add: (p) => this.podUpdated(undefined, p),
      update: (o, p) => this.podUpdated(o, p),
    });
    this.nodes.addEventHandler({
      add: (n) => this.nodeUpdateQueue.add(n.metadata.name),
      update: (_o, n) => this.nodeUpdateQueue.add(n.metadata.name),
      delete: (n) => this.nodesToRetry.delete(n.metadata.name),
    });
  }

  run(): void {
    this.logger.info('Starting controller', { controller: controllerName });
    const onError = (key: string, err: unknown) => this.logger.warn('sync failed', { key, err });
    void runWorkers(this.nodeUpdateQueue, nodeUpdateWorkerSize, (name) => this.processNode(name), onError);
    void runWorkers(this.podUpdateQueue, 4, (key) => this.processPod(key), onError);
    this.every(this.opts.nodeEvictionPeriodMs, () => this.doNoExecuteTaintingPass());
    this.every(this.ctx.config.nodeMonitorPeriodMs, () => this.monitorNodeHealth());
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.nodeUpdateQueue.shutDown();
    this.podUpdateQueue.shutDown();
  }

  /** wait.Until: run now, then `period` after each run ends. */
  private every(periodMs: number, fn: () => Promise<void>): void {
    const tick = async () => {
      try { await fn(); } catch (e) { this.logger.error('periodic pass failed', { err: e }); }
      if (this.stopped) return;
      const t = setTimeout(() => { this.timers.delete(t); void tick(); }, periodMs);
      this.timers.add(t);
    };
    void tick();
  }

  // ---- node updates: taint by condition and labels ----

  private async processNode(name: string): Promise<void> {
    const node = this.nodes.get(name);
    if (!node) return;
    const plan = noScheduleTaintPlan(node);
    if (plan.add.length || plan.remove.length) {
      if (!await swapNodeControllerTaint(this.ctx.clients, name, plan.add, plan.remove, this.ctx.clock.now())) {
        this.logger.error('Failed to taint NoSchedule on node', { node: name });
      }
    }
    const labels = labelsToReconcile(node.metadata?.labels);
    if (Object.keys(labels).length) {
      try {
        await this.ctx.clients.nodes.patch(undefined, name, { metadata: { labels } }, 'strategic');
      } catch (e) {
        if (!isNotFound(e)) this.logger.error('Failed to reconcile labels for node', { node: name, err: e });
      }
    }
  }

  // ---- pods newly bound to a node ----

  private podUpdated(oldPod: Pod | undefined, newPod: Pod): void {
    const nodeName = newPod?.spec?.nodeName;
    if (nodeName && (!oldPod || oldPod.spec?.nodeName !== nodeName)) this.podUpdateQueue.add(`${newPod.metadata!.namespace}/${newPod.metadata!.name}`);
  }

  private async processPod(key: string): Promise<void> {
    const pod = this.pods.get(key);
    if (!pod) return;
    const nodeName = pod.spec.nodeName;
    const health = this.health.get(nodeName);
    if (!health) return;
    if (!this.nodes.get(nodeName)) throw new Error(`node "${nodeName}" not found`);
    const ready = getNodeCondition(health.status, 'Ready');
    if (!ready || ready.status === 'True') return;
    const errs = await this.markPodsNotReady([pod], nodeName);
    if (errs.length) throw errs[0];
  }

  // ---- health monitoring ----

  private async monitorNodeHealth(): Promise<void> {
    const nodes = this.nodes.list();
    const { added, deleted, newZoneRepresentatives } = this.classifyNodes(nodes);
    for (const n of newZoneRepresentatives) this.addPodEvictorForNewZone(n);
    for (const n of added) {
      this.nodeEvent(n, 'RegisteredNode', `Registered Node ${n.metadata!.name} in Controller`);
      this.knownNodes.set(n.metadata!.name!, n);
      this.addPodEvictorForNewZone(n);
      await this.markNodeAsReachable(n);
    }
    for (const n of deleted) {
      this.nodeEvent(n, 'RemovingNode', `Removing Node ${n.metadata!.name} from Controller`);
      this.knownNodes.delete(n.metadata!.name!);
      this.health.delete(n.metadata!.name!);
    }
    const zoneConditions = new Map<string, (NodeCondition | undefined)[]>();
    await parallelize(nodeUpdateWorkerSize, nodes, (n) => this.updateNode(n, zoneConditions));
    this.handleDisruption(zoneConditions, nodes);
  }

  private classifyNodes(all: Node[]): { added: Node[]; deleted: Node[]; newZoneRepresentatives: Node[] } {
    const added: Node[] = [];
    const newZoneRepresentatives: Node[] = [];
    for (const n of all) {
      if (!this.knownNodes.has(n.metadata!.name!)) added.push(n);
      else if (!this.zoneStates.has(getZoneKey(n))) newZoneRepresentatives.push(n);
    }
    const names = new Set(all.map((n) => n.metadata!.name));
    const deleted = [...this.knownNodes.values()].filter((n) => !names.has(n.metadata.name));
    return { added, deleted, newZoneRepresentatives };
  }

  private nodeEvent(node: Node, reason: string, event: string): void {
    const ref = { apiVersion: 'v1', kind: 'Node', metadata: { name: node.metadata!.name, uid: node.metadata!.uid } };
    this.recorder.event(ref, 'Normal', reason, `Node ${node.metadata!.name} event: ${event}`);
  }

  /** One node's pass of monitorNodeHealth. */
  private async updateNode(cached: Node, zoneConditions: Map<string, (NodeCondition | undefined)[]>): Promise<void> {
    const name = cached.metadata!.name;
    const checked = await this.updateNodeHealth(cached);
    if (!checked) return;
    const { node, observedReady, currentReady } = checked;
    if (!(labelNodeDisruptionExclusion in (node.metadata?.labels ?? {}))) {
      const zone = getZoneKey(node);
      let list = zoneConditions.get(zone);
      if (!list) zoneConditions.set(zone, (list = []));
      list.push(currentReady);
    }
    if (currentReady) {
      await this.processTaintBaseEviction(node, observedReady);
      const needsRetry = this.nodesToRetry.has(name!);
      const becameNotReady = currentReady.status !== 'True' && observedReady.status === 'True';
      if (becameNotReady) {
        this.recorder.event({ apiVersion: 'v1', kind: 'Node', metadata: { name, uid: node.metadata!.uid } }, 'Normal', 'NodeNotReady',
          `Node ${name} status is now: NodeNotReady`);
      }
      if (becameNotReady || (needsRetry && observedReady.status !== 'True')) {
        // Read only when needed (upstream reads them every pass): each read of a node's pods decodes the
        // ones the informer keeps cold (client/cold-objects.ts), every node every 5 s.
        const errs = await this.markPodsNotReady(this.pods.byIndex(nodeNameIndex, name!), name!);
        if (errs.length) {
          this.logger.warn('unable to mark all pods NotReady on node; queuing for retry', { node: name, err: errs[0] });
          this.nodesToRetry.add(name!);
          return;
        }
      }
    }
    this.nodesToRetry.delete(name!);
  }

  /** tryUpdateNodeHealth with upstream's retries: a failed write re-reads the node. */
  private async updateNodeHealth(cached: Node): Promise<{ node: Node; observedReady: NodeCondition; currentReady?: NodeCondition } | undefined> {
    const name = cached.metadata!.name;
    let node = cached;
    const cfg = this.ctx.config;
    for (let attempt = 0; attempt < nodeHealthUpdateRetry && !this.stopped; attempt++) {
      const now = this.ctx.clock.now();
      const lease = this.leases.get(`${nodeLeaseNamespace}/${name}`);
      const r = tryUpdateNodeHealth(node, this.health.get(name!), lease, now, cfg);
      this.health.set(name!, r.health);
      if (!r.update) return { node, observedReady: r.observedReady, currentReady: r.currentReady };
      try {
        const written = await this.ctx.clients.nodes.updateStatus(r.update);
        this.health.set(name!, { status: written.status, probeTimestamp: r.health.probeTimestamp, readyTransitionTimestamp: now.getTime(), lease });
        return { node: written, observedReady: r.observedReady, currentReady: r.currentReady };
      } catch (e) {
        this.logger.warn('Error updating node', { node: name, err: e });
        try {
          node = await this.ctx.clients.nodes.get(undefined, name!);
        } catch {
          this.logger.warn('Failed while getting a Node to retry updating node health. Probably Node was deleted', { node: name });
          return undefined;
        }
        await sleep(retrySleepMs);
      }
    }
    this.logger.warn('Update health of Node from Controller error, Skipping - no pods will be evicted', { node: name });
    return undefined;
  }

  private async processTaintBaseEviction(node: Node, observedReady: NodeCondition): Promise<void> {
    const taints: Taint[] | undefined = node.spec?.taints;
    const now = this.ctx.clock.now();
    switch (observedReady.status) {
      case 'False':
        if (taintExists(taints, UnreachableTaintTemplate)) {
          if (!await swapNodeControllerTaint(this.ctx.clients, node.metadata!.name!, [NotReadyTaintTemplate], [UnreachableTaintTemplate], now)) {
            this.logger.error('Failed to instantly swap UnreachableTaint to NotReadyTaint. Will try again in the next cycle');
          }
        } else if (this.markNodeForTainting(node, 'False')) {
          this.logger.info('Node is NotReady. Adding it to the Taint queue', { node: node.metadata!.name });
        }
        return;
      case 'Unknown':
        if (taintExists(taints, NotReadyTaintTemplate)) {
          if (!await swapNodeControllerTaint(this.ctx.clients, node.metadata!.name!, [UnreachableTaintTemplate], [NotReadyTaintTemplate], now)) {
            this.logger.error('Failed to instantly swap NotReadyTaint to UnreachableTaint. Will try again in the next cycle');
          }
        } else if (this.markNodeForTainting(node, 'Unknown')) {
          this.logger.info('Node is unresponsive. Adding it to the Taint queue', { node: node.metadata!.name });
        }
        return;
      case 'True':
        if (await this.markNodeAsReachable(node)) this.logger.info('Node is healthy again, removed all taints', { node: node.metadata!.name });
    }
  }

  private tainter(node: Node): RateLimitedTimedQueue {
    this.addPodEvictorForNewZone(node);
    return this.zoneTainters.get(getZoneKey(node))!;
  }

  private markNodeForTainting(node: Node, status: 'False' | 'Unknown'): boolean {
    const q = this.tainter(node);
    const taint = status === 'False' ? NotReadyTaintTemplate : UnreachableTaintTemplate;
    if (!taintExists(node.spec?.taints, taint)) q.remove(node.metadata!.name!);
    return q.add(node.metadata!.name!, node.metadata!.uid!);
  }

  /** Removes both NoExecute taints (reading the cached node first) and forgets the node in its zone queue. */
  private async markNodeAsReachable(node: Node): Promise<boolean> {
    const present = [UnreachableTaintTemplate, NotReadyTaintTemplate].filter((t) => taintExists(node.spec?.taints, t));
    if (present.length && !await swapNodeControllerTaint(this.ctx.clients, node.metadata!.name!, [], present, this.ctx.clock.now())) {
      this.logger.error('Failed to remove taints from node', { node: node.metadata!.name });
      return false;
    }
    return this.tainter(node).remove(node.metadata!.name!);
  }

  private addPodEvictorForNewZone(node: Node): void {
    const zone = getZoneKey(node);
    if (this.zoneStates.has(zone)) return;
    this.zoneStates.set(zone, 'Initial');
    this.zoneTainters.set(zone, new RateLimitedTimedQueue(this.opts.evictionLimiterQPS, this.ctx.clock));
  }

  private async doNoExecuteTaintingPass(): Promise<void> {
    if (this.tainting) return;
    this.tainting = true;
    try {
      for (const q of [...this.zoneTainters.values()]) await q.try((v) => this.taintNode(v));
    } finally {
      this.tainting = false;
    }
  }

  private async taintNode(v: TimedValue): Promise<ActionResult> {
    const node = this.nodes.get(v.value);
    if (!node) return [true, 0];
    const ready = getNodeCondition(node.status, 'Ready');
    if (!ready) return [false, 50];
    let add: Taint;
    let opposite: Taint;
    if (ready.status === 'False') { add = NotReadyTaintTemplate; opposite = UnreachableTaintTemplate; }
    else if (ready.status === 'Unknown') { add = UnreachableTaintTemplate; opposite = NotReadyTaintTemplate; }
    else return [true, 0];
    return [await swapNodeControllerTaint(this.ctx.clients, v.value, [add], [opposite], this.ctx.clock.now()), 0];
  }

  /** MarkPodsNotReady: the Ready condition of each pod on the node becomes False, with a NodeNotReady event. */
  private async markPodsNotReady(pods: Pod[], nodeName: string): Promise<unknown[]> {
    const errs: unknown[] = [];
    for (const p of pods) {
      if (p.spec?.nodeName !== nodeName) continue;
      const pod = structuredClone(p);
      const ready = (pod.status?.conditions ?? []).find((c) => c.type === 'Ready');
      if (!ready) continue;
      if (!updatePodCondition(pod.status!, { ...ready, status: 'False' }, this.ctx.clock.now())) continue;
      try {
        await this.ctx.clients.pods.updateStatus(pod);
      } catch (e) {
        if (isNotFound(e)) continue;
        errs.push(e);
      }
      this.recorder.event({ apiVersion: 'v1', kind: 'Pod', metadata: pod.metadata }, 'Warning', 'NodeNotReady', 'Node is not ready');
    }
    return errs;
  }

  // ---- zone disruption ----

  private handleDisruption(zoneConditions: Map<string, (NodeCondition | undefined)[]>, nodes: Node[]): void {
    const newStates = new Map<string, ZoneState>();
    let allAreFullyDisrupted = true;
    for (const [zone, conds] of zoneConditions) {
      const [, state] = computeZoneState(conds, this.opts.unhealthyZoneThreshold);
      if (state !== 'FullDisruption') allAreFullyDisrupted = false;
      newStates.set(zone, state);
      if (!this.zoneStates.has(zone)) this.zoneStates.set(zone, 'Initial');
    }
    let allWasFullyDisrupted = true;
    for (const [zone, state] of [...this.zoneStates]) {
      if (!zoneConditions.has(zone)) { this.zoneStates.delete(zone); continue; }
      if (state !== 'FullDisruption') { allWasFullyDisrupted = false; break; }
    }
    if (allAreFullyDisrupted && allWasFullyDisrupted) return;
    if (allAreFullyDisrupted) {
      this.logger.info('Controller detected that all Nodes are not-Ready. Entering master disruption mode');
      for (const n of nodes) void this.markNodeAsReachable(n);
      for (const zone of this.zoneStates.keys()) this.zoneTainters.get(zone)?.swapLimiter(0);
      for (const zone of this.zoneStates.keys()) this.zoneStates.set(zone, 'FullDisruption');
      return;
    }
    if (allWasFullyDisrupted) {
      this.logger.info('Controller detected that some Nodes are Ready. Exiting master disruption mode');
      const now = this.ctx.clock.now().getTime();
      for (const n of nodes) {
        const h = this.health.get(n.metadata!.name!);
        if (h) this.health.set(n.metadata!.name!, { ...h, probeTimestamp: now, readyTransitionTimestamp: now });
      }
      for (const zone of this.zoneStates.keys()) {
        this.setLimiterInZone(zone, zoneConditions.get(zone)?.length ?? 0, newStates.get(zone)!);
        this.zoneStates.set(zone, newStates.get(zone)!);
      }
      return;
    }
    for (const [zone, state] of this.zoneStates) {
      const next = newStates.get(zone)!;
      if (state === next) continue;
      this.logger.info('Controller detected that zone is now in new state', { zone, newState: next });
      this.setLimiterInZone(zone, zoneConditions.get(zone)?.length ?? 0, next);
      this.zoneStates.set(zone, next);
    }
  }

  private setLimiterInZone(zone: string, zoneSize: number, state: ZoneState): void {
    const q = this.zoneTainters.get(zone);
    if (!q) return;
    const o = this.opts;
    if (state === 'Normal' || state === 'FullDisruption') q.swapLimiter(o.evictionLimiterQPS);
    else if (state === 'PartialDisruption') q.swapLimiter(zoneSize > o.largeClusterThreshold ? o.secondaryEvictionLimiterQPS : 0);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** workqueue.ParallelizeUntil: `workers` loops over the items. */
async function parallelize<T>(workers: number, items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const loop = async () => { while (next < items.length) await fn(items[next++]); };
  await Promise.all(Array.from({ length: Math.min(workers, items.length) }, loop));
}
