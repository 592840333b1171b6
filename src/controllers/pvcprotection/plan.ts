/**
 * The pvc-protection controller's decisions (upstream
 * pkg/controller/volume/pvcprotection), pure functions over a claim and pods:
 *  1. A claim being deleted that still holds kubernetes.io/pvc-protection
 *     keeps it while a pod uses it, and loses it when none does.
 *  2. A claim not being deleted and without the finalizer gets it (claims
 *     made before the admission plugin ran).
 * A pod uses a claim when it is scheduled (spec.nodeName set: the kubelet
 *  starts no pod whose claim is being deleted, the scheduler binds none) and
 *  one of its volumes names the claim, or, for a generic ephemeral volume,
 *  the claim `<pod>-<volume>` is the one the pod controls and the pod is not
 *  shut down (deleted with grace 0, which breaks a pod-finalizer cycle).
 *  A scheduled pod that finished still uses its claim, as upstream.
 */
import type { PersistentVolumeClaim, Pod, Volume } from 'kubernetes-types/core/v1.js';
import { isDeletionCandidate, needToAddFinalizer, pvcProtectionFinalizer } from '../../api/storage-protection.js';

export type ClaimAction = 'removeFinalizer' | 'addFinalizer' | 'keep' | 'none';

/** Rules 1 and 2; `inUse` is asked only for a deletion candidate (it may cost a live list). */
export async function planClaim(pvc: PersistentVolumeClaim, inUse: () => Promise<boolean>): Promise<ClaimAction> {
  if (isDeletionCandidate(pvc, pvcProtectionFinalizer)) return (await inUse()) ? 'keep' : 'removeFinalizer';
  return needToAddFinalizer(pvc, pvcProtectionFinalizer) ? 'addFinalizer' : 'none';
}

/** ephemeral.VolumeClaimName: the claim a generic ephemeral volume gets. */
export const ephemeralClaimName = (pod: Pod, volume: Volume): string => `${pod.metadata?.name}-${volume.name}`;

/** The claim names a pod's volumes refer to (upstream's PodPVCIndex, without the namespace). */
export function podClaimNames(pod: Pod): string[] {
  const out: string[] = [];
  for (const v of pod.spec?.volumes ?? []) {
    if (v.persistentVolumeClaim) out.push(v.persistentVolumeClaim.claimName);
    else if (v.ephemeral) out.push(ephemeralClaimName(pod, v));
  }
  return out;
}

/** podIsShutDown: deleted with grace 0 (the kubelet is done with it, or it was force-deleted). */
export const podIsShutDown = (pod: Pod): boolean =>
  !!pod.metadata?.deletionTimestamp && pod.metadata.deletionGracePeriodSeconds === 0;

/** ephemeral.VolumeIsForPod: the claim's controller is this pod. */
const claimControlledBy = (pvc: PersistentVolumeClaim, pod: Pod): boolean =>
  (pvc.metadata?.ownerReferences ?? []).some((r) => r.controller && r.uid === pod.metadata?.uid);

export function podUsesPVC(pod: Pod, pvc: PersistentVolumeClaim): boolean {
  if (!pod.spec?.nodeName || pod.metadata?.namespace !== pvc.metadata?.namespace) return false;
  const name = pvc.metadata?.name;
  return (pod.spec.volumes ?? []).some((v) => (v.persistentVolumeClaim?.claimName === name)
    || (!!v.ephemeral && !podIsShutDown(pod) && ephemeralClaimName(pod, v) === name && claimControlledBy(pvc, pod)));
}

/** volumeutil.IsPodTerminated: Succeeded or Failed, or deleted with every container terminated or waiting. */
export function isPodTerminated(pod: Pod): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return true;
  if (!pod.metadata?.deletionTimestamp) return false;
  const s = pod.status;
  // notRunning: every container is terminated or waiting.
  return [s?.initContainerStatuses, s?.containerStatuses, s?.ephemeralContainerStatuses]
    .every((l) => (l ?? []).every((c) => !!c.state?.terminated || !!c.state?.waiting));
}

/**
 * enqueuePVCs: the claim keys a pod event may unblock. Only a deleted,
 * terminated or unscheduled pod can let a claim go; others enqueue nothing.
 */
export function claimKeysToSync(pod: Pod, deleted: boolean): string[] {
  if (!deleted && !isPodTerminated(pod) && pod.spec?.nodeName) return [];
  return podClaimNames(pod).map((n) => `${pod.metadata?.namespace}/${n}`);
}
