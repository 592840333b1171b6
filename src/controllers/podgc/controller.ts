/**
 * The pod garbage collector (upstream `pkg/controller/podgc`, "pod-garbage-
 * collector"): every gcCheckPeriod, force-deletes (grace 0) the pods plan.ts
 * selects. A pod still Pending or Running is first marked Failed (orphans
 * also get DisruptionTarget DeletionByPodGC "PodGC: node no longer exists"),
 * since no kubelet will ever do it.
 */
import type { Informer } from '../../client/index.js';
import { isNotFound } from '../../client/index.js';
import type { Controller, ControllerContext } from '../types.js';
import type { Logger } from '../../util/log.js';
import {
  isPodTerminated, Quarantine, terminatedPodsToDelete, terminatingPodsOnOutOfServiceNodes, unscheduledTerminatingPods,
} from './plan.js';
import { updatePodCondition } from '../../api/pods.js';
import type { PodCondition } from '../../api/pods.js';
import type { Pod, PodStatus } from 'kubernetes-types/core/v1.js';

export const controllerName = 'pod-garbage-collector';

export interface PodGCOptions {
  /** How often the collector runs (upstream gcCheckPeriod, 20 s). */
  gcCheckPeriodMs: number;
  /** How long a node must be missing from the cache before a GET confirms it is gone (upstream 40 s). */
  quarantineTimeMs: number;
}

export const defaultPodGCOptions: PodGCOptions = { gcCheckPeriodMs: 20_000, quarantineTimeMs: 40_000 };

/**
 * The pods a pass may act on, indexed as their events arrive: terminated ones (rule 1) and
 * terminating ones (rules 2 and 4); with the node names pods are bound to (rule 3), a pass reads
 * those instead of listing every pod every 20 s as upstream does. At 150,000 pods the list decoded
 * every pod the informer keeps cold (client/cold-objects.ts) at each pass.
 */
const podGCIndex = 'podgc:state';
const podGCState = (p: Pod): string[] => {
  const out: string[] = [];
  if (isPodTerminated(p)) out.push('terminated');
  if (p.metadata?.deletionTimestamp) out.push('terminating');
  return out;
};
/** The same index as the node lifecycle and taint eviction controllers' (one index, by its name). */
const nodeNameIndex = 'spec.nodeName';

export class PodGCController implements Controller {
  readonly name = controllerName;
  private readonly pods: Informer;
  private readonly nodes: Informer;
  private readonly logger: Logger;
  private readonly opts: PodGCOptions;
  private readonly quarantine: Quarantine;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly ctx: ControllerContext, opts: Partial<PodGCOptions> = {}) {
    this.opts = { ...defaultPodGCOptions, ...opts };
    this.logger = ctx.logger.with(controllerName);
    this.pods = ctx.informers.informer('pods');
    this.pods.addIndex(podGCIndex, podGCState);
    this.pods.addIndex(nodeNameIndex, (p: Pod) => (p.spec?.nodeName ? [p.spec.nodeName] : []));
    this.nodes = ctx.informers.informer('nodes');
    this.quarantine = new Quarantine(this.opts.quarantineTimeMs);
  }

  run(): void {
    this.logger.info('Starting controller', { controller: controllerName });
    const tick = async () => {
      try { await this.gc(); } catch (e) { this.logger.error('pod GC failed', { err: e }); }
      if (!this.stopped) this.timer = setTimeout(() => void tick(), this.opts.gcCheckPeriodMs);
    };
    void tick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** One pass, in upstream's order. */
  async gc(): Promise<void> {
    const nodes = this.nodes.list();
    const terminated = terminatedPodsToDelete(this.pods.byIndex(podGCIndex, 'terminated'), this.ctx.config.terminatedPodGCThreshold);
    if (terminated.length) this.logger.info('Garbage collecting pods', { numPods: terminated.length });
    await this.deleteAll(terminated);
    await this.deleteAll(terminatingPodsOnOutOfServiceNodes(this.pods.byIndex(podGCIndex, 'terminating'), (n) => this.nodes.get(n)));
    await this.gcOrphaned(new Set(nodes.map((n) => n.metadata.name)));
    await this.deleteAll(unscheduledTerminatingPods(this.pods.byIndex(podGCIndex, 'terminating')));
  }

  private async gcOrphaned(existing: Set<string>): Promise<void> {
    const now = this.ctx.clock.now().getTime();
    // plan.ts unknownNodeNames over the index's node names: the names pods are bound to, less the known ones.
    for (const name of this.pods.indexValues(nodeNameIndex)) if (!existing.has(name)) this.quarantine.add(name, now);
    const deleted = new Set<string>();
    for (const name of this.quarantine.takeDue(now)) {
      if (existing.has(name)) continue;
      try {
        await this.ctx.clients.nodes.get(undefined, name);
      } catch (e) {
        if (isNotFound(e)) deleted.add(name);
        else this.logger.error('Error while getting node', { node: name, err: e });
      }
    }
    if (!deleted.size) return;
    const orphans = [...deleted].flatMap((name) => this.pods.byIndex(nodeNameIndex, name) as Pod[]);
    await Promise.all(orphans.map(async (pod) => {
      this.logger.info('Found orphaned Pod assigned to the Node, deleting', { pod: podKey(pod), node: pod.spec!.nodeName });
      const condition = { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' };
      if (await this.markFailedAndDeletePod(pod, condition)) this.logger.info('Forced deletion of orphaned Pod succeeded', { pod: podKey(pod) });
    }));
  }

  private async deleteAll(pods: Pod[]): Promise<void> {
    await Promise.all(pods.map((p) => this.markFailedAndDeletePod(p)));
  }

  /** markFailedAndDeletePodWithCondition; false (logged) on failure. */
  private async markFailedAndDeletePod(pod: Pod, condition?: PodCondition): Promise<boolean> {
    const { namespace, name, uid } = pod.metadata!;
    this.logger.info('PodGC is force deleting Pod', { pod: podKey(pod) });
    try {
      const phase = pod.status?.phase;
      if (phase !== 'Succeeded' && phase !== 'Failed') {
        const status: PodStatus = structuredClone(pod.status ?? {});
        status.phase = 'Failed';
        const patch: PodStatus = { phase: 'Failed' };
        if (condition && updatePodCondition(status, condition, this.ctx.clock.now())) {
          patch.conditions = [status.conditions!.find((c) => c.type === condition.type)!];
        }
        await this.ctx.clients.pods.patch(namespace, name!, { metadata: { uid }, status: patch }, 'strategic', 'status');
      }
      await this.ctx.clients.pods.delete(namespace, name!, { gracePeriodSeconds: 0, preconditions: { uid } });
      return true;
    } catch (e) {
      if (!isNotFound(e)) this.logger.error('failed to delete pod', { pod: podKey(pod), err: e });
      return false;
    }
  }
}

const podKey = (p: Pod) => `${p.metadata!.namespace}/${p.metadata!.name}`;
