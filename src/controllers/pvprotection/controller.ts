/**
 * The pv-protection controller (upstream pkg/controller/volume/pvprotection):
 * removes kubernetes.io/pv-protection from a volume being deleted once it is
 * no longer Bound, and adds it to volumes that lack it. Only volume events
 * drive it: the phase change that frees a volume is an update of the volume.
 */
import type { PersistentVolume } from 'kubernetes-types/core/v1.js';
import type { Controller, ControllerContext, ControllerFactory } from '../types.js';
import type { Informer } from '../../client/index.js';
import { WorkQueue, runWorkers, metaKey, isConflict } from '../../client/index.js';
import type { Logger } from '../../util/log.js';
import { needsProtectionSync, pvProtectionFinalizer } from '../../api/storage-protection.js';
import { updateProtectionFinalizer } from '../protection-finalizer.js';
import { planVolume } from './plan.js';

export const controllerName = 'persistentvolume-protection-controller';

export class PVProtectionController implements Controller {
  readonly name = controllerName;
  private readonly queue = new WorkQueue();
  private readonly volumes: Informer;
  private readonly logger: Logger;

  constructor(private readonly ctx: ControllerContext) {
    this.logger = ctx.logger.with(controllerName);
    this.volumes = ctx.informers.informer('persistentvolumes');
    const onVolume = (pv: PersistentVolume) => { if (needsProtectionSync(pv, pvProtectionFinalizer)) this.queue.add(metaKey(pv)); };
    this.volumes.addEventHandler({ add: onVolume, update: (_o, pv) => onVolume(pv) });
  }

  run(): void {
    this.logger.info('Starting controller', { controller: controllerName });
    void runWorkers(this.queue, this.ctx.config.workers, (key) => this.sync(key),
      (key, err) => (isConflict(err) ? this.logger.debug : this.logger.error)('PV sync failed', { pv: key, err }));
  }

  stop(): void { this.queue.shutDown(); }

  async sync(name: string): Promise<void> {
    const pv: PersistentVolume | undefined = this.volumes.get(name);
    if (!pv) return;
    const action = planVolume(pv);
    if (action === 'keep') this.logger.info('Keeping PV because it is being used', { pv: name });
    if (action !== 'addFinalizer' && action !== 'removeFinalizer') return;
    const add = action === 'addFinalizer';
    if (!await updateProtectionFinalizer(this.ctx.clients.resource('persistentvolumes'), pv, pvProtectionFinalizer, add)) return;
    this.logger.info(add ? 'Added protection finalizer to PV' : 'Removed protection finalizer from PV', { pv: name });
  }
}

export const pvProtectionController: ControllerFactory = (ctx) => new PVProtectionController(ctx);
