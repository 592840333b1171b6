/**
 * The persistent-volume controller (upstream "persistentvolume-binder" in
 * kube-controller-manager) together with the built-in local-path provisioner
 * (what an external provisioner does for its StorageClasses).
 *
 * Two queues, as upstream: claims (`namespace/name`) and volumes (name).
 * Handlers only enqueue; each sync reads the caches (overlaid with our own
 * latest writes), asks binder.ts what to do, and does it. Every object is
 * also re-synced periodically (upstream's 15 s pvClaimBinderSyncPeriod), so
 * a claim that waits for a class, a node or a volume gets another look.
 */
import { hostname } from 'node:os';
import type { EventRecorder, Informer } from '../../client/index.js';
import { WorkQueue, isAlreadyExists, isNotFound, metaKey, runWorkers } from '../../client/index.js';
import type { Controller, ControllerContext } from '../types.js';
import type { Logger } from '../../util/log.js';
import { rfc3339 } from '../../util/clock.js';
import {
  annBetaStorageProvisioner, annSelectedNode, annStorageProvisioner, claimClass, classAllowsNode, defaultStorageClass,
  podClaimNames, volumeBoundToClaim, volumeClass,
} from '../../api/volumebinding.js';
import { ClaimAction, claimBoundToVolume, claimStatusFor, planClaimSync, planReclaim, planVolumeSync, volumeUnbound, volumeWithPhase } from './binder.js';
import {
  LocalPathDirectories, buildLocalPathVolume, localPathStorageClass, pickNodeForImmediateClaim,
  provisioningRefusal, volumeNameForClaim, volumeNodeName, volumePath,
} from './provisioner.js';
import type { PersistentVolumeControllerOptions } from './options.js';
import { LatestStore } from './latest.js';
import type { Node, PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';

export const controllerName = 'persistentvolume-binder-controller';
const eventComponent = 'persistentvolume-controller';
const claimRefIndex = 'spec.claimRef';
const volumeNameIndex = 'spec.volumeName';
const podClaimIndex = 'spec.volumes.claim';

const ref = (kind: string, obj: any) => ({ apiVersion: 'v1', kind, metadata: obj.metadata });
const claimRefKey = (pv: PersistentVolume) => (pv.spec?.claimRef ? `${pv.spec.claimRef.namespace}/${pv.spec.claimRef.name}` : undefined);

export class PersistentVolumeController implements Controller {
  readonly name = controllerName;
  private readonly logger: Logger;
  private readonly recorder: EventRecorder;
  private readonly provisionerRecorder: EventRecorder;
  private readonly claimInformer: Informer;
  private readonly volumeInformer: Informer;
  private readonly classes: Informer;
  private readonly nodes: Informer;
  private readonly pods: Informer;
  private readonly claims: LatestStore<PersistentVolumeClaim>;
  private readonly volumes: LatestStore<PersistentVolume>;
  private readonly claimQueue = new WorkQueue();
  private readonly volumeQueue = new WorkQueue();
  private readonly dirs: LocalPathDirectories;
  private resyncTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly ctx: ControllerContext, private readonly opts: PersistentVolumeControllerOptions) {
    this.logger = ctx.logger.with(controllerName);
    this.recorder = ctx.recorder(eventComponent);
    this.provisionerRecorder = ctx.recorder(`${opts.provisionerName}_${hostname()}`);
    this.dirs = new LocalPathDirectories(opts.basePath, (node) =>
      opts.createDirectories === 'all' || (opts.createDirectories === 'local' && node === opts.localNodeName));
    this.claimInformer = ctx.informers.informer('persistentvolumeclaims');
    this.volumeInformer = ctx.informers.informer('persistentvolumes');
    this.classes = ctx.informers.informer('storageclasses');
    this.nodes = ctx.informers.informer('nodes');
    this.pods = ctx.informers.informer('pods');
    this.volumeInformer.addIndex(claimRefIndex, (pv) => { const k = claimRefKey(pv); return k ? [k] : []; });
    this.claimInformer.addIndex(volumeNameIndex, (c) => (c.spec?.volumeName ? [c.spec.volumeName] : []));
    this.pods.addIndex(podClaimIndex, (p) => podClaimNames(p).map((c) => `${p.metadata.namespace}/${c.name}`));
    this.claims = new LatestStore(this.claimInformer);
    this.volumes = new LatestStore(this.volumeInformer);
    this.registerHandlers();
  }

  private registerHandlers(): void {
    this.claimInformer.addEventHandler({
      add: (c) => this.claimQueue.add(metaKey(c)),
      update: (_o, c) => this.claimQueue.add(metaKey(c)),
      delete: (c) => {
        this.claims.forget(metaKey(c));
        if (c.spec?.volumeName) this.volumeQueue.add(c.spec.volumeName);
        for (const pv of this.volumeInformer.byIndex(claimRefIndex, metaKey(c))) this.volumeQueue.add(pv.metadata.name);
      },
    });
    this.volumeInformer.addEventHandler({
      add: (pv) => this.volumeChanged(pv),
      update: (_o, pv) => this.volumeChanged(pv),
      delete: (pv) => {
        this.volumes.forget(pv.metadata.name);
        const k = claimRefKey(pv);
        if (k) this.claimQueue.add(k);
      },
    });
    // A class that appears or changes may unblock claims waiting for it.
    const classChanged = (sc: StorageClass) => {
      for (const c of this.claimInformer.list()) if (!c.spec?.volumeName && claimClass(c) === sc.metadata!.name) this.claimQueue.add(metaKey(c));
    };
    this.classes.addEventHandler({ add: classChanged, update: (_o, sc) => classChanged(sc) });
  }

  /**
   * Besides the volume itself: claims that name it (pre-bound by a user) and,
   * for a free volume, unbound claims of its class that may now match, so
   * they need not wait for the periodic re-sync.
   */
  private volumeChanged(pv: PersistentVolume): void {
    this.volumeQueue.add(pv.metadata!.name!);
    for (const c of this.claimInformer.byIndex(volumeNameIndex, pv.metadata!.name!)) this.claimQueue.add(metaKey(c));
    if (pv.spec?.claimRef || pv.status?.phase !== 'Available') return;
    const cls = volumeClass(pv);
    for (const c of this.claimInformer.list()) if (!c.spec?.volumeName && claimClass(c) === cls) this.claimQueue.add(metaKey(c));
  }

  run(): void {
    this.logger.info('Starting controller', { controller: controllerName });
    if (this.opts.ensureDefaultStorageClass) void this.ensureDefaultStorageClass();
    const onError = (kind: string) => (key: string, err: unknown) => this.logger.warn(`error syncing ${kind}`, { key, err });
    void runWorkers(this.claimQueue, this.ctx.config.workers, (k) => this.syncClaim(k), onError('claim'));
    void runWorkers(this.volumeQueue, this.ctx.config.workers, (k) => this.syncVolume(k), onError('volume'));
    if (this.opts.resyncPeriodMs > 0) {
      this.resyncTimer = setInterval(() => {
        for (const c of this.claimInformer.list()) this.claimQueue.add(metaKey(c));
        for (const pv of this.volumeInformer.list()) this.volumeQueue.add(pv.metadata.name);
      }, this.opts.resyncPeriodMs);
      this.resyncTimer.unref();
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    this.claimQueue.shutDown();
    this.volumeQueue.shutDown();
  }

  /** The default StorageClass k3s and kind ship, created when absent (kept if a user changed it). */
  private async ensureDefaultStorageClass(): Promise<void> {
    const name = this.opts.defaultStorageClassName;
    if (this.ctx.config.defaultStorageClass === false) return;
    for (let delay = 200; !this.stopped; delay = Math.min(delay * 2, 10_000)) {
      if (this.classes.get(name)) return;
      try {
        await this.ctx.clients.resource('storageclasses').create(undefined, localPathStorageClass(this.opts.provisionerName, name));
        this.logger.info('created default StorageClass', { name });
        return;
      } catch (e) {
        if (isAlreadyExists(e)) return;
        this.logger.warn('cannot create default StorageClass', { name, err: e });
      }
      await new Promise((r) => setTimeout(r, delay).unref());
    }
  }

  // ---- claims ---------------------------------------------------------------

  private async syncClaim(key: string): Promise<void> {
    const claim = this.claims.get(key);
    if (!claim) return;
    const action = planClaimSync(claim, {
      volumes: this.volumes, classes: this.classes, defaultClass: defaultStorageClass(this.classes.list())?.metadata?.name,
    });
    await this.doClaimAction(claim, action);
  }

  private async doClaimAction(claim: PersistentVolumeClaim, action: ClaimAction): Promise<void> {
    switch (action.type) {
      case 'bind': return this.bind(action.pv, claim);
      case 'pending': return this.updateClaimStatus(claim, 'Pending');
      case 'assignDefaultClass': return this.assignDefaultClass(claim, action.className);
      case 'waitForFirstConsumer':
        this.emitWaitForFirstConsumer(claim);
        return this.updateClaimStatus(claim, 'Pending');
      case 'provision': return this.provisionClaim(claim, action.storageClass);
      case 'provisioningFailed':
        this.recorder.event(ref('PersistentVolumeClaim', claim), 'Warning', 'ProvisioningFailed', action.message);
        return this.updateClaimStatus(claim, 'Pending');
      case 'failedBinding':
        this.recorder.event(ref('PersistentVolumeClaim', claim), 'Normal', 'FailedBinding', action.message);
        return this.updateClaimStatus(claim, 'Pending');
      case 'volumeMismatch':
        this.recorder.event(ref('PersistentVolumeClaim', claim), 'Warning', 'VolumeMismatch', action.message);
        return this.updateClaimStatus(claim, 'Pending');
      case 'lost':
        if (claim.status?.phase === 'Lost') return;
        await this.updateClaimStatus(claim, 'Lost');
        this.recorder.event(ref('PersistentVolumeClaim', claim), 'Warning', action.reason, action.message);
        return;
      case 'error': throw new Error(action.message);
    }
  }

  /** bind(): PV claimRef, PV phase, claim volumeName and annotations, claim status, in upstream's order. */
  private async bind(pv: PersistentVolume, claim: PersistentVolumeClaim): Promise<void> {
    const api = this.ctx.clients;
    const boundPV = volumeBoundToClaim(pv, claim);
    if (boundPV) pv = this.volumes.note(await api.resource('persistentvolumes').update(boundPV));
    const phased = volumeWithPhase(pv, 'Bound', '', rfc3339(this.ctx.clock.now()));
    if (phased) pv = this.volumes.note(await api.resource('persistentvolumes').updateStatus(phased));
    const boundClaim = claimBoundToVolume(claim, pv);
    if (boundClaim) claim = this.claims.note(await api.resource('persistentvolumeclaims').update(boundClaim));
    await this.updateClaimStatus(claim, 'Bound', pv);
  }

  private async updateClaimStatus(claim: PersistentVolumeClaim, phase: string, pv?: PersistentVolume): Promise<void> {
    const next = claimStatusFor(claim, phase, pv);
    if (!next) return;
    this.claims.note(await this.ctx.clients.resource('persistentvolumeclaims').updateStatus(next));
    if (claim.status?.phase !== phase) this.logger.debug('claim entered phase', { claim: metaKey(claim), phase });
  }

  /**
   * Retroactive default StorageClass assignment (GA in 1.28): a claim
   * without a class gets the default one. An API server whose validation
   * still forbids setting the class after creation refuses; the claim then
   * waits (DefaultStorageClass admission does it on create instead).
   */
  private async assignDefaultClass(claim: PersistentVolumeClaim, className: string): Promise<void> {
    const next = structuredClone(claim);
    next.spec!.storageClassName = className;
    try {
      this.claims.note(await this.ctx.clients.resource('persistentvolumeclaims').update(next));
    } catch (e: any) {
      if (e?.code !== 422) throw e;
      this.logger.debug('cannot assign the default StorageClass', { claim: metaKey(claim), err: e });
      await this.updateClaimStatus(claim, 'Pending');
    }
  }

  /** emitEventForUnboundDelayBindingClaim. */
  private emitWaitForFirstConsumer(claim: PersistentVolumeClaim): void {
    const names = this.pods.byIndex(podClaimIndex, metaKey(claim)).filter((p) => !p.spec?.nodeName).map((p) => p.metadata.name).sort();
    let reason = 'WaitForFirstConsumer';
    let message = 'waiting for first consumer to be created before binding';
    if (names.length) {
      reason = 'WaitForPodScheduled';
      message = names.length > 1 ? `waiting for pods ${names.join(',')} to be scheduled` : `waiting for pod ${names[0]} to be scheduled`;
    }
    this.recorder.event(ref('PersistentVolumeClaim', claim), 'Normal', reason, message);
  }

  /**
   * provisionClaim: the binder hands the claim to the class's provisioner
   * (annotations and an ExternalProvisioning event); when that is ours, we
   * provision at once. No in-tree (`kubernetes.io/...`) provisioner is
   * built in, so such classes fail as upstream's do without the plugin.
   */
  private async provisionClaim(claim: PersistentVolumeClaim, sc: StorageClass): Promise<void> {
    const provisioner: string = sc.provisioner;
    if (provisioner !== this.opts.provisionerName && provisioner.startsWith('kubernetes.io/')) {
      // An in-tree provisioner name (kubernetes.io/no-provisioner too): none is built in.
      this.recorder.event(ref('PersistentVolumeClaim', claim), 'Warning', 'ProvisioningFailed', `no volume plugin matched name: ${provisioner}`);
      return this.updateClaimStatus(claim, 'Pending');
    }
    if (claim.metadata!.annotations?.[annStorageProvisioner] !== provisioner) {
      const next = structuredClone(claim);
      next.metadata!.annotations = { ...(next.metadata!.annotations ?? {}), [annBetaStorageProvisioner]: provisioner, [annStorageProvisioner]: provisioner };
      claim = this.claims.note(await this.ctx.clients.resource('persistentvolumeclaims').update(next));
      this.recorder.event(ref('PersistentVolumeClaim', claim), 'Normal', 'ExternalProvisioning',
        `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. `
        + 'If volume creation is delayed, please verify that the provisioner is running and correctly registered.');
    }
    await this.updateClaimStatus(claim, 'Pending');
    if (provisioner !== this.opts.provisionerName) return;
    if (this.volumes.get(volumeNameForClaim(claim))) return;
    await this.provisionLocalPath(claim, sc);
  }

  private provisioningFailed(claim: PersistentVolumeClaim, sc: StorageClass, message: string): void {
    this.provisionerRecorder.event(ref('PersistentVolumeClaim', claim), 'Warning', 'ProvisioningFailed',
      `failed to provision volume with StorageClass "${sc.metadata!.name}": ${message}`);
  }

  /** The provisioner's part: pick the node, make the directory, create the pre-bound PV. */
  private async provisionLocalPath(claim: PersistentVolumeClaim, sc: StorageClass): Promise<void> {
    const refusal = provisioningRefusal(claim, this.opts.provisionerName);
    if (refusal) { this.provisioningFailed(claim, sc, refusal); return; }
    const node = await this.targetNode(claim, sc);
    if (!node) return;
    const key = metaKey(claim);
    this.provisionerRecorder.event(ref('PersistentVolumeClaim', claim), 'Normal', 'Provisioning', `External provisioner is provisioning volume for claim "${key}"`);
    const pv = buildLocalPathVolume({ claim, storageClass: sc, node, base: this.opts.basePath, provisioner: this.opts.provisionerName });
    try {
      await this.dirs.create(node.metadata!.name!, volumePath(pv)!);
    } catch (e) {
      this.provisioningFailed(claim, sc, (e as Error).message);
      throw e;
    }
    try {
      this.volumes.note(await this.ctx.clients.resource('persistentvolumes').create(undefined, pv));
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
    this.logger.info('provisioned volume', { claim: key, volume: pv.metadata!.name, node: node.metadata!.name });
    this.provisionerRecorder.event(ref('PersistentVolumeClaim', claim), 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${pv.metadata!.name}`);
    this.claimQueue.add(key);
  }

  /**
   * The selected node (looked up through the API when the cache lacks it;
   * a deleted node hands the claim back to the scheduler by dropping the
   * annotation), or for Immediate classes one we pick.
   */
  private async targetNode(claim: PersistentVolumeClaim, sc: StorageClass): Promise<Node | undefined> {
    const selected = claim.metadata!.annotations?.[annSelectedNode];
    if (selected) {
      let node = this.nodes.get(selected);
      if (!node) {
        try { node = await this.ctx.clients.nodes.get(undefined, selected); } catch (e) { if (!isNotFound(e)) throw e; }
      }
      if (node) return node;
      this.provisioningFailed(claim, sc, `failed to get target node: nodes "${selected}" not found`);
      await this.ctx.clients.resource('persistentvolumeclaims').patch(claim.metadata!.namespace, claim.metadata!.name!,
        { metadata: { annotations: { [annSelectedNode]: null } } });
      return undefined;
    }
    if (sc.volumeBindingMode === 'WaitForFirstConsumer') return undefined;
    const ours = this.volumes.values().filter((pv) => volumeNodeName(pv) !== undefined);
    const node = pickNodeForImmediateClaim(this.nodes.list(), ours, (n) => classAllowsNode(sc, n.metadata!.labels));
    if (!node) this.provisioningFailed(claim, sc, 'configuration error, no node was specified');
    return node;
  }

  // ---- volumes --------------------------------------------------------------

  private async syncVolume(name: string): Promise<void> {
    const pv = this.volumes.get(name);
    if (!pv) return;
    const claim = await this.claimOfVolume(pv);
    const action = planVolumeSync(pv, claim);
    switch (action.type) {
      case 'phase': await this.updateVolumePhase(pv, action.phase); return;
      case 'syncClaim': this.claimQueue.add(action.claimKey); return;
      case 'release': return this.releaseAndReclaim(pv);
      case 'unbind': {
        const updated = this.volumes.note(await this.ctx.clients.resource('persistentvolumes').update(volumeUnbound(pv, action.full)));
        await this.updateVolumePhase(updated, 'Available');
        return;
      }
    }
  }

  /**
   * The claim the PV's claimRef names, with its UID. A claim missing from the
   * cache is looked up through the API before the PV is released, so a
   * claim the watch has not delivered yet never loses its new volume.
   */
  private async claimOfVolume(pv: PersistentVolume): Promise<PersistentVolumeClaim | undefined> {
    const r = pv.spec?.claimRef;
    if (!r?.uid) return undefined;
    let claim = this.claims.get(`${r.namespace}/${r.name}`);
    if (!claim && pv.status?.phase !== 'Released' && pv.status?.phase !== 'Failed') {
      try { claim = await this.ctx.clients.resource('persistentvolumeclaims').get(r.namespace, r.name!); } catch (e) { if (!isNotFound(e)) throw e; }
    }
    return claim && claim.metadata?.uid === r.uid ? claim : undefined;
  }

  private async updateVolumePhase(pv: PersistentVolume, phase: string, message = ''): Promise<PersistentVolume> {
    const next = volumeWithPhase(pv, phase, message, rfc3339(this.ctx.clock.now()));
    if (!next) return pv;
    return this.volumes.note(await this.ctx.clients.resource('persistentvolumes').updateStatus(next));
  }

  /** Released, then the reclaim policy: Retain keeps it, Delete removes directory and PV (ours only). */
  private async releaseAndReclaim(pv: PersistentVolume): Promise<void> {
    if (pv.status?.phase !== 'Released' && pv.status?.phase !== 'Failed') {
      this.logger.info('volume is released and reclaim policy will be executed', { volume: pv.metadata!.name, policy: pv.spec?.persistentVolumeReclaimPolicy });
      pv = await this.updateVolumePhase(pv, 'Released');
    }
    const plan = planReclaim(pv, this.opts.provisionerName);
    switch (plan.type) {
      case 'retain': case 'waitForExternal': return;
      case 'fail':
        if (pv.status?.phase !== 'Failed') {
          await this.updateVolumePhase(pv, 'Failed', plan.message);
          this.recorder.event(ref('PersistentVolume', pv), 'Warning', plan.reason, plan.message);
        }
        return;
      case 'delete': return this.deleteVolume(pv);
    }
  }

  private async deleteVolume(pv: PersistentVolume): Promise<void> {
    try {
      await this.dirs.remove(volumeNodeName(pv), volumePath(pv));
    } catch (e) {
      this.provisionerRecorder.event(ref('PersistentVolume', pv), 'Warning', 'VolumeFailedDelete', `failed to delete volume ${pv.metadata!.name}: ${(e as Error).message}`);
      throw e;
    }
    try {
      await this.ctx.clients.resource('persistentvolumes').delete(undefined, pv.metadata!.name!, { preconditions: { uid: pv.metadata!.uid } });
      this.logger.info('deleted volume', { volume: pv.metadata!.name });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    this.volumes.forget(pv.metadata!.name!);
  }
}

