/**
 * The disruption controller (upstream "disruption"): keeps each
 * PodDisruptionBudget's status current — currentHealthy, desiredHealthy,
 * expectedPods, disruptionsAllowed, disruptedPods, observedGeneration and
 * the DisruptionAllowed condition (budget.ts has the rules).
 *
 * The queue holds budget keys. A pod change enqueues the budgets of its
 * namespace that select the old or the new pod; a scale change of a
 * ReplicaSet, Deployment or StatefulSet enqueues its namespace's budgets.
 * A sync that fails for any reason but a conflict writes the fail-safe
 * status (no disruptions, DisruptionAllowed False/SyncFailed), so the
 * eviction subresource refuses while the numbers are unknown. Pending
 * disruptedPods entries are looked at again when they expire. A second
 * queue resets stale DisruptionTarget conditions of pods (stale.ts).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { PodDisruptionBudget, PodDisruptionBudgetStatus } from 'kubernetes-types/policy/v1.js';
import type { Informer } from '../../client/index.js';
import { WorkQueue, isConflict, isNotFound, metaKey, runWorkers } from '../../client/index.js';
import type { EventRecorder } from '../../client/index.js';
import { podsSelectedByBudget } from '../../api/disruptionbudget.js';
import type { Controller, ControllerContext } from '../types.js';
import type { Logger } from '../../util/log.js';
import { budgetStatus, buildDisruptedPodMap, countHealthyPods, expectedPodCount, failSafeStatus, type ScaleOf } from './budget.js';
import { scaleFinder } from './scale.js';
import { staleDisruptionWait, withDisruptionTargetCleared } from './stale.js';
import { rfc3339 } from '../../util/clock.js';

export const controllerName = 'disruption-controller';
const namespaceIndex = 'metadata.namespace';
const byNamespace = (o: { metadata?: ObjectMeta }) => [o.metadata?.namespace ?? ''];
/** A scalable owner as the informers hold it (ReplicaSet, Deployment, StatefulSet). */
type Scalable = { metadata?: ObjectMeta; spec?: { replicas?: number } };

export class DisruptionController implements Controller {
  readonly name = controllerName;
  private readonly logger: Logger;
  private readonly recorder: EventRecorder;
  private readonly pdbs: Informer;
  private readonly pods: Informer;
  private readonly queue = new WorkQueue();
  /** Pods whose DisruptionTarget condition may go stale (stale.ts). */
  private readonly staleQueue = new WorkQueue();
  private readonly scaleOf: ScaleOf;

  constructor(private readonly ctx: ControllerContext) {
    this.logger = ctx.logger.with(controllerName);
    this.recorder = ctx.recorder('controllermanager');
    this.pdbs = ctx.informers.informer('poddisruptionbudgets');
    this.pods = ctx.informers.informer('pods');
    this.pdbs.addIndex(namespaceIndex, byNamespace);
    this.pods.addIndex(namespaceIndex, byNamespace);
    const [replicasets, deployments, statefulsets] = (['replicasets', 'deployments', 'statefulsets'] as const).map((r) => ctx.informers.informer(r));
    this.scaleOf = scaleFinder({ clients: ctx.clients, replicasets, deployments, statefulsets });
    const enqueue = (p: PodDisruptionBudget) => this.queue.add(metaKey(p));
    this.pdbs.addEventHandler({ add: enqueue, update: (_o, p: PodDisruptionBudget) => enqueue(p) });
    this.pods.addEventHandler({
      add: (p: Pod) => { this.enqueueBudgetsOf(p); this.enqueueStale(p); },
      update: (o: Pod, p: Pod) => { this.enqueueBudgetsOf(p, o); this.enqueueStale(p); },
      delete: (p: Pod) => this.enqueueBudgetsOf(p),
    });
    for (const inf of [replicasets, deployments, statefulsets]) {
      inf.addEventHandler({
        update: (o: Scalable, n: Scalable) => { if (o.spec?.replicas !== n.spec?.replicas) this.enqueueNamespace(n.metadata!.namespace!); },
        delete: (o: Scalable) => this.enqueueNamespace(o.metadata!.namespace!),
      });
    }
  }

  run(): void {
    this.logger.info('Starting controller', { controller: controllerName });
    void runWorkers(this.queue, this.ctx.config.workers, (k) => this.sync(k),
      (key, err) => this.logger.warn('Error syncing PodDisruptionBudget, requeuing', { pdb: key, err }));
    void runWorkers(this.staleQueue, 1, (k) => this.syncStalePodDisruption(k),
      (key, err) => this.logger.warn('error syncing Pod to clear DisruptionTarget condition, requeueing', { pod: key, err }));
  }

  stop(): void { this.queue.shutDown(); this.staleQueue.shutDown(); }

  private enqueueStale(pod: Pod): void {
    const wait = staleDisruptionWait(pod, this.ctx.clock.now());
    if (wait !== undefined) this.staleQueue.addAfter(metaKey(pod), wait);
  }

  private async syncStalePodDisruption(key: string): Promise<void | { requeueAfterMs?: number }> {
    const pod: Pod | undefined = this.pods.get(key);
    if (!pod) return;
    const wait = staleDisruptionWait(pod, this.ctx.clock.now());
    if (wait === undefined) return;
    if (wait > 0) return { requeueAfterMs: wait };
    await this.ctx.clients.pods.updateStatus(withDisruptionTargetCleared(pod, rfc3339(this.ctx.clock.now())));
  }

  private enqueueNamespace(namespace: string): void {
    for (const pdb of this.pdbs.byIndex(namespaceIndex, namespace)) this.queue.add(metaKey(pdb));
  }

  private enqueueBudgetsOf(pod: Pod, oldPod?: Pod): void {
    for (const pdb of this.pdbs.byIndex(namespaceIndex, pod.metadata!.namespace!)) {
      const selected = podsSelectedByBudget(pdb, oldPod ? [pod, oldPod] : [pod]);
      if (selected.length > 0) this.queue.add(metaKey(pdb));
    }
  }

  private async sync(key: string): Promise<void | { requeueAfterMs?: number }> {
    const pdb: PodDisruptionBudget | undefined = this.pdbs.get(key);
    if (!pdb) return;
    try {
      return await this.trySync(pdb);
    } catch (e) {
      if (isConflict(e) || isNotFound(e)) throw e;
      this.logger.warn('Failed to sync PDB', { pdb: key, err: e });
      await this.writeStatus(pdb, failSafeStatus(pdb, e as Error, this.ctx.clock.now()));
    }
  }

  private async trySync(pdb: PodDisruptionBudget): Promise<void | { requeueAfterMs?: number }> {
    const pods: Pod[] = podsSelectedByBudget(pdb, this.pods.byIndex(namespaceIndex, pdb.metadata!.namespace!));
    if (pods.length === 0) this.recorder.event(asPDB(pdb), 'Normal', 'NoPods', 'No matching pods found');
    let counts;
    try {
      counts = await expectedPodCount(pdb, pods, this.scaleOf);
    } catch (e) {
      this.recorder.event(asPDB(pdb), 'Warning', 'CalculateExpectedPodCountFailed', `Failed to calculate the number of expected pods: ${(e as Error).message}`);
      throw e;
    }
    const now = this.ctx.clock.now();
    const { disruptedPods, recheckAt } = buildDisruptedPodMap(pods, pdb, now);
    const currentHealthy = countHealthyPods(pods, disruptedPods, now);
    const status = budgetStatus(pdb, { currentHealthy, desiredHealthy: counts.desiredHealthy, expectedCount: counts.expectedCount, disruptedPods }, now);
    if (status) await this.writeStatus(pdb, status);
    return recheckAt === undefined ? undefined : { requeueAfterMs: Math.max(0, recheckAt - now.getTime()) };
  }

  private async writeStatus(pdb: PodDisruptionBudget, status: PodDisruptionBudgetStatus): Promise<void> {
    await this.ctx.clients.resource('poddisruptionbudgets').updateStatus({ ...asPDB(pdb), status });
  }
}

/** Informer objects may lack kind and apiVersion; events and PUTs carry them. */
const asPDB = (pdb: PodDisruptionBudget): PodDisruptionBudget => ({ ...pdb, kind: 'PodDisruptionBudget', apiVersion: 'policy/v1' });
