/**
 * The taint-eviction controller (upstream `pkg/controller/tainteviction`,
 * "taint-eviction-controller"): evicts pods from nodes with NoExecute taints
 * they do not tolerate, at once or after their tolerationSeconds, and cancels
 * a pending eviction when the taint goes or the pod comes to tolerate it.
 *
 * Handlers only enqueue node names and pod keys; node updates are handled
 * before pod updates. The per-pod decision is `planPodEviction`; the timers
 * live in a TimedWorkerQueue whose work adds the DisruptionTarget condition
 * and deletes the pod.
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { Informer, EventRecorder } from '../../client/index.js';
import { WorkQueue, isNotFound } from '../../client/index.js';
import type { Controller, ControllerContext } from '../types.js';
import type { Logger } from '../../util/log.js';
import type { Taint, Toleration } from '../../api/tolerations.js';
import { getNoExecuteTaints, planPodEviction, taintsEqual, tolerationsEqual } from './eviction.js';
import { TimedWorkerQueue } from './timed-queue.js';
import { updatePodCondition } from '../../api/pods.js';

export const controllerName = 'taint-eviction-controller';
export const nodeNameIndex = 'spec.nodeName';
const retries = 5;

export interface TaintEvictionOptions {
  /** Pause between failed delete attempts (upstream 10 ms). */
  retryDelayMs: number;
}

export class TaintEvictionController implements Controller {
  readonly name = controllerName;
  private readonly pods: Informer;
  private readonly nodes: Informer;
  private readonly recorder: EventRecorder;
  private readonly logger: Logger;
  /** NoExecute taints per node, only for nodes that have some. */
  private readonly taintedNodes = new Map<string, Taint[]>();
  private readonly nodeQueue = new WorkQueue();
  private readonly podQueue = new WorkQueue();
  private readonly evictions: TimedWorkerQueue;
  private readonly opts: TaintEvictionOptions;
  private stopped = false;

  constructor(private readonly ctx: ControllerContext, opts: Partial<TaintEvictionOptions> = {}) {
    this.opts = { retryDelayMs: 10, ...opts };
    this.logger = ctx.logger.with(controllerName);
    this.recorder = ctx.recorder(controllerName);
    this.pods = ctx.informers.informer('pods');
    this.nodes = ctx.informers.informer('nodes');
    this.pods.addIndex(nodeNameIndex, (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []));
    this.evictions = new TimedWorkerQueue((key, fireAt) => this.deletePod(key, fireAt), ctx.clock);
    this.pods.addEventHandler({
      add: (p) => this.podUpdated(undefined, p),
      update: (o, p) => this.podUpdated(o, p),
      delete: (p) => this.podUpdated(p, undefined),
    });
    this.nodes.addEventHandler({
      add: (n) => this.nodeUpdated(undefined, n),
      update: (o, n) => this.nodeUpdated(o, n),
      delete: (n) => this.nodeUpdated(n, undefined),
    });
  }

  run(): void {
    this.logger.info('Starting controller', { controller: controllerName });
    void this.loop(this.nodeQueue, (k) => this.handleNodeUpdate(k));
    void this.loop(this.podQueue, (k) => this.handlePodUpdate(k));
  }

  stop(): void {
    this.stopped = true;
    this.nodeQueue.shutDown();
    this.podQueue.shutDown();
    this.evictions.cancelAll();
  }

  /** One worker per queue; handling is synchronous, so the two never interleave mid-decision. */
  private async loop(queue: WorkQueue, handle: (key: string) => void): Promise<void> {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try { handle(key); } catch (e) { this.logger.error('taint eviction failed', { key, err: e }); } finally { queue.done(key); }
    }
  }

  private podUpdated(oldPod: Pod | undefined, newPod: Pod | undefined): void {
    const pod = (newPod ?? oldPod)!;
    if (oldPod && newPod && tolerationsEqual(oldPod.spec?.tolerations, newPod.spec?.tolerations)
      && (oldPod.spec?.nodeName ?? '') === (newPod.spec?.nodeName ?? '')) return;
    this.podQueue.add(`${pod.metadata!.namespace}/${pod.metadata!.name}`);
  }

  private nodeUpdated(oldNode: Node | undefined, newNode: Node | undefined): void {
    const node = (newNode ?? oldNode)!;
    if (oldNode && newNode && taintsEqual(getNoExecuteTaints(oldNode.spec?.taints), getNoExecuteTaints(newNode.spec?.taints))) return;
    this.nodeQueue.add(node.metadata!.name!);
  }

  private handlePodUpdate(key: string): void {
    const pod = this.pods.get(key);
    if (!pod) { this.cancelWorkWithEvent(key); return; }
    const nodeName = pod.spec?.nodeName;
    if (!nodeName) return;
    const taints = this.taintedNodes.get(nodeName);
    // The node is gone or untainted: that already cancelled what was pending.
    if (!taints) return;
    this.processPodOnNode(key, pod.spec?.tolerations, taints, this.ctx.clock.now());
  }

  private handleNodeUpdate(nodeName: string): void {
    const node = this.nodes.get(nodeName);
    if (!node) { this.taintedNodes.delete(nodeName); return; }
    const taints = getNoExecuteTaints(node.spec?.taints);
    const wasTainted = this.taintedNodes.has(nodeName);
    if (taints.length) this.taintedNodes.set(nodeName, taints); else this.taintedNodes.delete(nodeName);
    // Untainted before and after: no work of its pods can be pending (work is only scheduled under a
    // taint), and reading them would decode those the informer keeps cold at every node update.
    if (!taints.length && !wasTainted) return;
    const pods = this.pods.byIndex(nodeNameIndex, nodeName);
    const now = this.ctx.clock.now();
    for (const pod of pods) {
      const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
      if (!taints.length) this.cancelWorkWithEvent(key);
      else this.processPodOnNode(key, pod.spec?.tolerations, taints, now);
    }
  }

  private processPodOnNode(key: string, tolerations: Toleration[] | undefined, taints: Taint[], now: Date): void {
    const plan = planPodEviction(taints, tolerations, now, this.evictions.getWorker(key));
    switch (plan.action) {
      case 'keep': return;
      case 'cancel': this.cancelWorkWithEvent(key); return;
      case 'evictNow':
        this.cancelWorkWithEvent(key);
        this.evictions.addWork(key, now, now);
        return;
      case 'schedule':
        if (plan.replace) this.cancelWorkWithEvent(key);
        this.evictions.addWork(key, plan.createdAt, plan.fireAt);
    }
  }

  private cancelWorkWithEvent(key: string): void {
    if (this.evictions.cancelWork(key)) this.podEvent(key, `Cancelling deletion of Pod ${key}`);
  }

  private podEvent(key: string, message: string): void {
    const [namespace, name] = key.split('/');
    this.recorder.event({ apiVersion: 'v1', kind: 'Pod', metadata: { namespace, name } }, 'Normal', 'TaintManagerEviction', message);
  }

  /** deletePodHandler: the event, then up to five attempts to mark and delete the pod. */
  private async deletePod(key: string, _fireAt: Date): Promise<void> {
    if (this.stopped) return;
    this.logger.info('Deleting pod', { controller: controllerName, pod: key });
    this.podEvent(key, `Marking for deletion Pod ${key}`);
    const [namespace, name] = key.split('/');
    let last: unknown;
    for (let i = 0; i < retries && !this.stopped; i++) {
      try {
        await this.addConditionAndDeletePod(namespace, name);
        return;
      } catch (e) {
        last = e;
        if (isNotFound(e)) return;
        await new Promise((r) => setTimeout(r, this.opts.retryDelayMs));
      }
    }
    if (last) this.logger.error('TaintEvictionController: timed worker failed', { pod: key, err: last });
  }

  private async addConditionAndDeletePod(namespace: string, name: string): Promise<void> {
    const pods = this.ctx.clients.pods;
    const pod: Pod = await pods.get(namespace, name);
    const status = structuredClone(pod.status ?? {});
    const changed = updatePodCondition(status, {
      type: 'DisruptionTarget', status: 'True', reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint',
    }, this.ctx.clock.now());
    if (changed) {
      const cond = status.conditions!.find((c) => c.type === 'DisruptionTarget');
      await pods.patch(namespace, name, { metadata: { uid: pod.metadata!.uid }, status: { conditions: [cond] } }, 'strategic', 'status');
    }
    await pods.delete(namespace, name, { preconditions: { uid: pod.metadata!.uid } });
  }
}
