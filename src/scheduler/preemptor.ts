/**
 * The writes of a preemption (upstream Evaluator.prepareCandidate and the
 * nomination in handleSchedulingFailure): each victim gets the
 * DisruptionTarget condition (reason PreemptionByScheduler) through
 * pods/status, then is deleted with its default grace period, with a
 * `Preempted` event; then the preemptor's status.nominatedNodeName names the
 * node, which `kubectl get pods -o wide` shows as NOMINATED NODE.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Clientset } from '../client/index.js';
import { isNotFound, metaKey } from '../client/index.js';
import { disruptionTargetCondition } from '../api/disruptionbudget.js';
import { rfc3339, type Clock } from '../util/clock.js';
import type { Logger } from '../util/log.js';
import { asPod, type EventSink } from './events.js';
import type { Nomination } from './framework.js';
import type { NominatedPods } from './runtime.js';

export interface PreemptorContext {
  clients: Clientset;
  events: () => EventSink;
  logger: Logger;
  clock: Clock;
  schedulerName: string;
}

export class Preemptor {
  constructor(private readonly ctx: PreemptorContext) {}

  async prepareCandidate(preemptor: Pod, nomination: Nomination): Promise<void> {
    await Promise.all(nomination.victims.map((v) => this.evict(v, preemptor, nomination.nodeName)));
    await this.ignoreNotFound(metaKey(preemptor), () => this.ctx.clients.pods.patch(preemptor.metadata!.namespace!, preemptor.metadata!.name!,
      { status: { nominatedNodeName: nomination.nodeName } }, 'merge', 'status'));
  }

  private async evict(victim: Pod, preemptor: Pod, nodeName: string): Promise<void> {
    const namespace = victim.metadata!.namespace!;
    const name = victim.metadata!.name!;
    const condition = {
      type: disruptionTargetCondition, status: 'True', reason: 'PreemptionByScheduler',
      message: `${this.ctx.schedulerName}: preempting to accommodate a higher priority pod`, lastTransitionTime: rfc3339(this.ctx.clock.now()),
    };
    await this.ignoreNotFound(metaKey(victim), async () => {
      await this.ctx.clients.pods.patch(namespace, name, { status: { conditions: [condition] } }, 'strategic', 'status');
      await this.ctx.clients.pods.delete(namespace, name, { preconditions: { uid: victim.metadata!.uid } });
      this.ctx.events().event(asPod(victim), 'Normal', 'Preempted', `Preempted by pod ${preemptor.metadata!.uid} on node ${nodeName}`);
    });
  }

  private async ignoreNotFound(key: string, write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (e) {
      if (!isNotFound(e)) this.ctx.logger.warn('preemption write failed', { pod: key, err: e });
    }
  }
}

/**
 * The pending pods nominated to each node (upstream's nominator): a pod is
 * listed while it is unassigned, not terminating, and its
 * status.nominatedNodeName names the node.
 */
export class Nominator implements NominatedPods {
  private readonly byNode = new Map<string, Map<string, any>>();
  private readonly nodeOf = new Map<string, string>();

  update(pod: Pod): void {
    const key = metaKey(pod);
    const node = !pod.spec?.nodeName && !pod.metadata?.deletionTimestamp ? pod.status?.nominatedNodeName : undefined;
    const old = this.nodeOf.get(key);
    if (old && old !== node) this.byNode.get(old)?.delete(key);
    if (!node) { this.nodeOf.delete(key); return; }
    this.nodeOf.set(key, node);
    let pods = this.byNode.get(node);
    if (!pods) { pods = new Map(); this.byNode.set(node, pods); }
    pods.set(key, pod);
  }

  delete(pod: Pod): void {
    const key = metaKey(pod);
    const node = this.nodeOf.get(key);
    if (node) this.byNode.get(node)?.delete(key);
    this.nodeOf.delete(key);
  }

  /** How many pods are nominated. */
  get size(): number { return this.nodeOf.size; }

  podsOn(nodeName: string): Pod[] {
    const pods = this.byNode.get(nodeName);
    return pods ? [...pods.values()] : [];
  }
}
