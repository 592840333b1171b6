/**
 * The pvc-protection controller (upstream pkg/controller/volume/pvcprotection):
 * removes kubernetes.io/pvc-protection from a claim being deleted once no
 * pod uses it, and adds it to claims that lack it. Claim events enqueue
 * the claims it has work for; pod events enqueue the claims of a pod that
 * was deleted, terminated or is unscheduled (plan.ts). A sync asks the pod
 * cache first (an index by claim) and, when no cached pod uses the claim,
 * lists the namespace's pods from the API server before letting it go: a
 * pod created a moment ago may not be in the cache yet.
 */
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { Controller, ControllerContext, ControllerFactory } from '../types.js';
import type { Informer } from '../../client/index.js';
import { WorkQueue, runWorkers, metaKey, isConflict } from '../../client/index.js';
import type { Logger } from '../../util/log.js';
import { needsProtectionSync, pvcProtectionFinalizer } from '../../api/storage-protection.js';
import { updateProtectionFinalizer } from '../protection-finalizer.js';
import { claimKeysToSync, planClaim, podClaimNames, podUsesPVC } from './plan.js';

export const controllerName = 'persistentvolumeclaim-protection-controller';
const podPVCIndex = 'pod-pvc';

export class PVCProtectionController implements Controller {
  readonly name = controllerName;
  private readonly queue = new WorkQueue();
  private readonly claims: Informer;
  private readonly pods: Informer;
  private readonly logger: Logger;

  constructor(private readonly ctx: ControllerContext) {
    this.logger = ctx.logger.with(controllerName);
    this.claims = ctx.informers.informer('persistentvolumeclaims');
    this.pods = ctx.informers.informer('pods');
    this.pods.addIndex(podPVCIndex, (p: Pod) => podClaimNames(p).map((n) => `${p.metadata!.namespace}/${n}`));
    const onClaim = (c: PersistentVolumeClaim) => { if (needsProtectionSync(c, pvcProtectionFinalizer)) this.queue.add(metaKey(c)); };
    const onPod = (p: Pod, deleted: boolean) => { for (const k of claimKeysToSync(p, deleted)) this.queue.add(k); };
    this.claims.addEventHandler({ add: onClaim, update: (_o, c) => onClaim(c) });
    this.pods.addEventHandler({
      add: (p) => onPod(p, false),
      // An update may hide the deletion of pod X and the creation of a pod Y of the same name: X's claims count as released.
      update: (o: Pod, p: Pod) => { onPod(p, false); if (o.metadata?.uid !== p.metadata?.uid) onPod(o, true); },
      delete: (p) => onPod(p, true),
    });
  }

  run(): void {
    this.logger.info('Starting controller', { controller: controllerName });
    void runWorkers(this.queue, this.ctx.config.workers, (key) => this.sync(key),
      (key, err) => (isConflict(err) ? this.logger.debug : this.logger.error)('PVC sync failed', { pvc: key, err }));
  }

  stop(): void { this.queue.shutDown(); }

  async sync(key: string): Promise<void> {
    const pvc: PersistentVolumeClaim | undefined = this.claims.get(key);
    if (!pvc) return;
    const action = await planClaim(pvc, () => this.isBeingUsed(pvc));
    if (action === 'keep') this.logger.info('Keeping PVC because it is being used', { pvc: key });
    if (action !== 'addFinalizer' && action !== 'removeFinalizer') return;
    const add = action === 'addFinalizer';
    if (!await updateProtectionFinalizer(this.ctx.clients.resource('persistentvolumeclaims'), pvc, pvcProtectionFinalizer, add)) return;
    this.logger.info(add ? 'Added protection finalizer to PVC' : 'Removed protection finalizer from PVC', { pvc: key });
  }

  /** isBeingUsed: the cache first; when it knows no user, a live list of the namespace's pods. */
  private async isBeingUsed(pvc: PersistentVolumeClaim): Promise<boolean> {
    const cached: Pod[] = this.pods.byIndex(podPVCIndex, metaKey(pvc));
    if (cached.some((p) => podUsesPVC(p, pvc))) return true;
    const live = await this.ctx.clients.pods.list(pvc.metadata!.namespace);
    return (live.items as Pod[]).some((p) => podUsesPVC(p, pvc));
  }
}

export const pvcProtectionController: ControllerFactory = (ctx) => new PVCProtectionController(ctx);
