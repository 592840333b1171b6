/**
 * The pv-protection controller's decisions (upstream
 * pkg/controller/volume/pvprotection):
 *  1. A volume being deleted that still holds kubernetes.io/pv-protection
 *     keeps it while its status.phase is Bound (the persistent-volume
 *     controller moves it to Released when its claim goes), and loses it
 *     in any other phase.
 *  2. A volume not being deleted and without the finalizer gets it.
 */
import type { PersistentVolume } from 'kubernetes-types/core/v1.js';
import { isDeletionCandidate, needToAddFinalizer, pvProtectionFinalizer } from '../../api/storage-protection.js';

export type VolumeAction = 'removeFinalizer' | 'addFinalizer' | 'keep' | 'none';

/** isBeingUsed: the status the persistent-volume controller keeps says whether a claim holds it. */
export const volumeIsBeingUsed = (pv: PersistentVolume): boolean => pv.status?.phase === 'Bound';

export function planVolume(pv: PersistentVolume): VolumeAction {
  if (isDeletionCandidate(pv, pvProtectionFinalizer)) return volumeIsBeingUsed(pv) ? 'keep' : 'removeFinalizer';
  return needToAddFinalizer(pv, pvProtectionFinalizer) ? 'addFinalizer' : 'none';
}
