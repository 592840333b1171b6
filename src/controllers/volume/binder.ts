/**
 * The binder's decisions (upstream pv_controller.go syncClaim / syncVolume)
 * as pure functions: each returns what to do, the controller does it.
 *
 * Claims (syncUnboundClaim, syncBoundClaim):
 * 1. An unbound claim without spec.volumeName takes a PV pre-bound to it or,
 *    unless its class waits for the first consumer, the smallest matching
 *    Available PV. With none: a claim without any class first gets the
 *    default class; a WaitForFirstConsumer claim without a selected node
 *    waits; a claim with a class is provisioned; a claim without one fails
 *    to bind. It stays Pending meanwhile.
 * 2. An unbound claim naming a PV binds to it when the PV is free (and
 *    satisfies the claim) or already points back at it; it waits while the
 *    PV is missing or taken by someone else.
 * 3. A bound claim whose volumeName is gone, whose PV is gone, or whose PV
 *    points at another claim is Lost; otherwise the binding is re-asserted.
 *
 * Volumes (syncVolume):
 * 4. No claimRef, or a claimRef without UID (pre-bound): Available.
 * 5. The claim is gone (or has another UID): Released, then reclaimed.
 * 6. The claim has not taken the volume yet: let the claim sync finish.
 * 7. The claim took this volume: Bound.
 * 8. The claim took another volume: a provisioned PV with Delete is
 *    released and reclaimed; otherwise the claimRef is undone (fully when
 *    the controller set it, only the UID when a user pre-bound it).
 */
import {
  allObjects, annBindCompleted, annBoundByController, annDynamicallyProvisioned, annSelectedNode, claimClass, claimHasClass,
  findMatchingVolume, isDelayBindingMode, isVolumeBoundToClaim, volumeClass, volumeHasAccessModes,
} from '../../api/volumebinding.js';
import type { ClassLookup, VolumeIndex } from '../../api/volumebinding.js';
import { compareQuantities, parseQuantity } from '../../api/quantity.js';
import type { PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';

export type ClaimAction =
  | { type: 'bind'; pv: PersistentVolume }
  | { type: 'pending' }
  | { type: 'assignDefaultClass'; className: string }
  | { type: 'waitForFirstConsumer' }
  | { type: 'provision'; storageClass: StorageClass }
  | { type: 'provisioningFailed'; message: string }
  | { type: 'failedBinding'; message: string }
  | { type: 'volumeMismatch'; message: string }
  | { type: 'lost'; reason: string; message: string }
  | { type: 'error'; message: string };

export interface ClaimView {
  volumes: VolumeIndex;
  classes: ClassLookup;
  /** The default class's name, when there is one. */
  defaultClass?: string;
}

const noneExcluded: ReadonlySet<string> = new Set();

/** Rules 1 to 3 for one claim. */
export function planClaimSync(claim: PersistentVolumeClaim, view: ClaimView): ClaimAction {
  if (!Object.hasOwn(claim.metadata!.annotations ?? {}, annBindCompleted)) {
    return claim.spec?.volumeName ? planPreboundClaim(claim, view) : planUnboundClaim(claim, view);
  }
  return planBoundClaim(claim, view);
}

function planUnboundClaim(claim: PersistentVolumeClaim, view: ClaimView): ClaimAction {
  const delay = isDelayBindingMode(claim, view.classes);
  const pv = findMatchingVolume(claim, allObjects(view.volumes), undefined, noneExcluded, delay);
  if (pv) return { type: 'bind', pv };
  if (!claimHasClass(claim) && view.defaultClass) return { type: 'assignDefaultClass', className: view.defaultClass };
  if (delay && !claim.metadata!.annotations?.[annSelectedNode]) return { type: 'waitForFirstConsumer' };
  const className = claimClass(claim);
  if (!className) return { type: 'failedBinding', message: 'no persistent volumes available for this claim and no storage class is set' };
  const storageClass = view.classes.get(className);
  if (!storageClass) return { type: 'provisioningFailed', message: `storageclass.storage.k8s.io "${className}" not found` };
  return { type: 'provision', storageClass };
}

function planPreboundClaim(claim: PersistentVolumeClaim, view: ClaimView): ClaimAction {
  const pv = view.volumes.get(claim.spec!.volumeName!);
  if (!pv) return { type: 'pending' };
  if (!pv.spec?.claimRef) {
    const mismatch = volumeSatisfiesClaim(pv, claim);
    return mismatch ? { type: 'volumeMismatch', message: mismatch } : { type: 'bind', pv };
  }
  if (isVolumeBoundToClaim(pv, claim)) return { type: 'bind', pv };
  if (!Object.hasOwn(claim.metadata!.annotations ?? {}, annBoundByController)) return { type: 'pending' };
  const ref = pv.spec.claimRef;
  return {
    type: 'error',
    message: `Invalid binding of claim "${claim.metadata!.namespace}/${claim.metadata!.name}" to volume "${pv.metadata!.name}": volume already claimed by "${ref.namespace}/${ref.name}"`,
  };
}

function planBoundClaim(claim: PersistentVolumeClaim, view: ClaimView): ClaimAction {
  if (!claim.spec?.volumeName) return { type: 'lost', reason: 'ClaimLost', message: 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!' };
  const pv = view.volumes.get(claim.spec.volumeName);
  if (!pv) return { type: 'lost', reason: 'ClaimLost', message: 'Bound claim has lost its PersistentVolume. Data on the volume is lost!' };
  if (!pv.spec?.claimRef || pv.spec.claimRef.uid === claim.metadata!.uid) return { type: 'bind', pv };
  return { type: 'lost', reason: 'ClaimMisbound', message: 'Two claims are bound to the same volume, this one is bound incorrectly' };
}

/** checkVolumeSatisfyClaim: the reason a user-chosen PV cannot serve the claim, or undefined. */
export function volumeSatisfiesClaim(pv: PersistentVolume, claim: PersistentVolumeClaim): string | undefined {
  if (pv.metadata!.deletionTimestamp) return `the volume is marked for deletion "${pv.metadata!.name}"`;
  const requested = parseQuantity(claim.spec?.resources?.requests?.storage ?? '0');
  const size = parseQuantity(pv.spec?.capacity?.storage ?? '0');
  if (requested && size && compareQuantities(size, requested) < 0) return 'requested PV is too small';
  if (volumeClass(pv) !== claimClass(claim)) return 'storageClassName does not match';
  if ((claim.spec?.volumeMode || 'Filesystem') !== (pv.spec?.volumeMode || 'Filesystem')) return 'incompatible volumeMode';
  if (!volumeHasAccessModes(claim, pv)) return 'incompatible accessMode';
  return undefined;
}

export type VolumeAction =
  | { type: 'phase'; phase: 'Available' | 'Bound' }
  | { type: 'syncClaim'; claimKey: string }
  | { type: 'release' }
  | { type: 'unbind'; full: boolean };

/**
 * Rules 4 to 8. `claim` is the claim the claimRef names, if it exists with
 * the same UID.
 */
export function planVolumeSync(pv: PersistentVolume, claim: PersistentVolumeClaim | undefined): VolumeAction {
  const ref = pv.spec?.claimRef;
  if (!ref || !ref.uid) return { type: 'phase', phase: 'Available' };
  if (!claim) return { type: 'release' };
  if (!claim.spec?.volumeName) return { type: 'syncClaim', claimKey: `${claim.metadata!.namespace}/${claim.metadata!.name}` };
  if (claim.spec.volumeName === pv.metadata!.name) return { type: 'phase', phase: 'Bound' };
  if (Object.hasOwn(pv.metadata!.annotations ?? {}, annDynamicallyProvisioned) && pv.spec!.persistentVolumeReclaimPolicy === 'Delete') {
    return { type: 'release' };
  }
  return { type: 'unbind', full: Object.hasOwn(pv.metadata!.annotations ?? {}, annBoundByController) };
}

export type ReclaimAction =
  | { type: 'retain' }
  | { type: 'delete' }
  | { type: 'waitForExternal' }
  | { type: 'fail'; reason: string; message: string };

/** reclaimVolume for a Released PV: what its reclaim policy asks of us (the provisioner named `ours`). */
export function planReclaim(pv: PersistentVolume, ours: string): ReclaimAction {
  switch (pv.spec?.persistentVolumeReclaimPolicy) {
    case 'Retain': return { type: 'retain' };
    case 'Delete': {
      const by = pv.metadata!.annotations?.[annDynamicallyProvisioned];
      if (by === ours) return { type: 'delete' };
      if (by) return { type: 'waitForExternal' };
      return { type: 'fail', reason: 'VolumeFailedDelete', message: `error getting deleter volume plugin for volume "${pv.metadata!.name}": no deletable volume plugin matched` };
    }
    case 'Recycle': return { type: 'fail', reason: 'VolumeFailedRecycle', message: 'No recycler plugin found for the volume!' };
    default: return { type: 'fail', reason: 'VolumeUnknownReclaimPolicy', message: 'Volume has unrecognized PersistentVolumeReclaimPolicy' };
  }
}

// ---- the objects a binding writes ------------------------------------------

/**
 * getBindClaimToVolume: a copy of the claim naming the volume, with
 * bind-completed and (when we set volumeName) bound-by-controller; undefined
 * when nothing changes.
 */
export function claimBoundToVolume(claim: PersistentVolumeClaim, pv: PersistentVolume): PersistentVolumeClaim | undefined {
  const ann = claim.metadata!.annotations ?? {};
  const setName = claim.spec?.volumeName !== pv.metadata!.name;
  if (!setName && ann[annBindCompleted] === 'yes') return undefined;
  const out = structuredClone(claim);
  out.metadata!.annotations = { ...ann, [annBindCompleted]: 'yes' };
  if (setName) {
    out.spec!.volumeName = pv.metadata!.name;
    out.metadata!.annotations[annBoundByController] = 'yes';
  }
  return out;
}

/** updateClaimStatus: phase, and access modes and capacity from the volume (cleared without one). */
export function claimStatusFor(claim: PersistentVolumeClaim, phase: string, pv: PersistentVolume | undefined): PersistentVolumeClaim | undefined {
  const status = { ...(claim.status ?? {}) };
  let dirty = status.phase !== phase;
  status.phase = phase;
  if (!pv) {
    if (status.accessModes !== undefined || status.capacity !== undefined) dirty = true;
    delete status.accessModes;
    delete status.capacity;
  } else {
    if (JSON.stringify(status.accessModes ?? null) !== JSON.stringify(pv.spec?.accessModes ?? null)) {
      status.accessModes = pv.spec?.accessModes;
      dirty = true;
    }
    const want = parseQuantity(pv.spec?.capacity?.storage);
    const have = parseQuantity(status.capacity?.storage);
    if (!want || !have || compareQuantities(want, have) !== 0) {
      status.capacity = pv.spec?.capacity;
      dirty = true;
    }
  }
  return dirty ? { ...claim, status } : undefined;
}

/** updateVolumePhase: status.phase with lastPhaseTransitionTime (GA in 1.31); undefined when unchanged. */
export function volumeWithPhase(pv: PersistentVolume, phase: string, message: string, now: string): PersistentVolume | undefined {
  const status = pv.status ?? {};
  if (status.phase === phase && (status.message ?? '') === message) return undefined;
  const next = { ...status, phase };
  if (message) next.message = message; else delete next.message;
  if (status.phase !== phase) next.lastPhaseTransitionTime = now;
  return { ...pv, status: next };
}

/** unbindVolume: the claimRef undone (or only its UID for a user's pre-binding), phase Available. */
export function volumeUnbound(pv: PersistentVolume, full: boolean): PersistentVolume {
  const out = structuredClone(pv);
  if (full) {
    delete out.spec!.claimRef;
    if (out.metadata!.annotations) delete out.metadata!.annotations[annBoundByController];
  } else {
    delete out.spec!.claimRef!.uid;
    delete out.spec!.claimRef!.resourceVersion;
  }
  return out;
}
