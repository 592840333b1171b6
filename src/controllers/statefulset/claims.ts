/**
 * PersistentVolumeClaims of StatefulSet pods and the owner references of
 * persistentVolumeClaimRetentionPolicy (upstream stateful_set_utils.go:
 * isClaimOwnerUpToDate, updateClaimOwnerRefForSetAndPod; stateful_pod_control.go:
 * createPersistentVolumeClaims, PodClaimIsStale). Pure: claims are read
 * through a lookup over the informer cache.
 *
 * The owner references each policy wants on a claim:
 *   whenScaled Retain, whenDeleted Retain: none of ours;
 *   whenScaled Retain, whenDeleted Delete: the set (controller);
 *   whenScaled Delete, whenDeleted Retain: the pod, once it is scaled down;
 *   whenScaled Delete, whenDeleted Delete: the pod once scaled down, else the set.
 * Claims that reference a previous set or pod of the same name (stale UID),
 * or have another controller, are left alone; a claim with a stale pod
 * reference blocks creating that pod while whenScaled is Delete.
 */
import { newControllerRef } from '../../api/history.js';
import { claimName, getOrdinal, getPersistentVolumeClaims, podInOrdinalRange, podKind, statefulSetKind } from './identity.js';
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';

export type ClaimLookup = (name: string) => PersistentVolumeClaim | undefined;
/** Anything with object metadata: a set or a pod as an owner. */
type Owned = { metadata?: ObjectMeta };
type Kind = { apiVersion: string; kind: string };

export function retentionPolicy(set: StatefulSet): { whenDeleted: string; whenScaled: string } {
  const p = set.spec?.persistentVolumeClaimRetentionPolicy ?? {};
  return { whenDeleted: p.whenDeleted ?? 'Retain', whenScaled: p.whenScaled ?? 'Retain' };
}

const refs = (claim: PersistentVolumeClaim): OwnerReference[] => claim.metadata?.ownerReferences ?? [];
const uidOf = (obj: Owned): string => obj.metadata?.uid ?? '';

/** matchesRef: same name, kind and group/version. */
function matchesRef(ref: OwnerReference, obj: Owned, kind: Kind): boolean {
  return ref.apiVersion === kind.apiVersion && ref.kind === kind.kind && ref.name === obj.metadata!.name;
}

export function hasOwnerRef(target: PersistentVolumeClaim, owner: Owned): boolean {
  const uid = uidOf(owner);
  return refs(target).some((r) => r.uid === uid);
}

/** The first reference to obj's name and kind carries another UID. */
export function hasStaleOwnerRef(target: PersistentVolumeClaim, obj: Owned, kind: Kind): boolean {
  const ref = refs(target).find((r) => matchesRef(r, obj, kind));
  return !!ref && ref.uid !== uidOf(obj);
}

/** With a Delete policy, a controller other than this set and pod (or a stale one of theirs). */
export function hasUnexpectedController(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): boolean {
  const policy = retentionPolicy(set);
  if (policy.whenScaled === 'Retain' && policy.whenDeleted === 'Retain') return false;
  for (const ref of refs(claim)) {
    if (matchesRef(ref, set, statefulSetKind)) {
      if (ref.uid !== uidOf(set)) return true;
      continue;
    }
    if (matchesRef(ref, pod, podKind)) {
      if (ref.uid !== uidOf(pod)) return true;
      continue;
    }
    if (ref.controller) return true;
  }
  return false;
}

function hasNonControllerOwner(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): boolean {
  return refs(claim).some((r) => (r.uid === uidOf(set) || r.uid === uidOf(pod)) && !r.controller);
}

/** isClaimOwnerUpToDate: the claim's references agree with the policy (or must not be touched). */
export function isClaimOwnerUpToDate(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): boolean {
  if (hasStaleOwnerRef(claim, set, statefulSetKind) || hasStaleOwnerRef(claim, pod, podKind)) return true;
  if (hasUnexpectedController(claim, set, pod)) return !(hasOwnerRef(claim, set) || hasOwnerRef(claim, pod));
  if (hasNonControllerOwner(claim, set, pod)) return false;
  const policy = retentionPolicy(set);
  const scaledDown = !podInOrdinalRange(pod, set);
  const setRef = hasOwnerRef(claim, set);
  const podRef = hasOwnerRef(claim, pod);
  if (policy.whenScaled === 'Delete' && policy.whenDeleted === 'Delete') return scaledDown !== setRef && scaledDown === podRef;
  if (policy.whenScaled === 'Delete') return !setRef && scaledDown === podRef;
  if (policy.whenDeleted === 'Delete') return setRef && !podRef;
  return !setRef && !podRef;
}

/** updateClaimOwnerRefForSetAndPod: the claim's references with ours rewritten for the policy. */
export function claimOwnerRefsForPolicy(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): OwnerReference[] {
  const unexpected = hasUnexpectedController(claim, set, pod);
  let out = refs(claim).filter((r) => !(matchesRef(r, set, statefulSetKind) || matchesRef(r, pod, podKind)));
  if (unexpected) return out;
  const add = (owner: Owned, kind: Kind) => {
    if (!out.some((r) => r.uid === uidOf(owner))) out = [...out, newControllerRef(owner, kind)];
  };
  const policy = retentionPolicy(set);
  const scaledDown = !podInOrdinalRange(pod, set);
  if (policy.whenScaled === 'Delete' && scaledDown) add(pod, podKind);
  if (policy.whenDeleted === 'Delete' && (policy.whenScaled !== 'Delete' || !scaledDown)) add(set, statefulSetKind);
  return out;
}

/** The claim-side work of one pod-control call, decided from the cache. */
export interface ClaimWork {
  /** Claims to create (absent from the cache). */
  create: PersistentVolumeClaim[];
  /** Claims being deleted: an error ("pvc x is being deleted"). */
  deleting: string[];
  /** Claims whose owner references must be rewritten (full objects, new references set). */
  refUpdates: PersistentVolumeClaim[];
  /** Claims with a conflicting controller (a ConflictingController warning each time). */
  conflicting: string[];
}

export const emptyClaimWork = (): ClaimWork => ({ create: [], deleting: [], refUpdates: [], conflicting: [] });
export const hasClaimWork = (w: ClaimWork): boolean => !!(w.create.length || w.deleting.length || w.refUpdates.length || w.conflicting.length);

/** createPersistentVolumeClaims' decisions: create the absent claims, fail on ones being deleted. */
export function claimsToCreate(set: StatefulSet, pod: Pod, lookup: ClaimLookup, work: ClaimWork = emptyClaimWork()): ClaimWork {
  for (const { claim } of getPersistentVolumeClaims(set, pod)) {
    const existing = lookup(claim.metadata!.name!);
    if (!existing) work.create.push(claim);
    else if (existing.metadata?.deletionTimestamp) work.deleting.push(claim.metadata!.name!);
  }
  return work;
}

function existingClaims(set: StatefulSet, pod: Pod, lookup: ClaimLookup): PersistentVolumeClaim[] {
  const ordinal = getOrdinal(pod);
  return (set.spec?.volumeClaimTemplates ?? []).map((t) => lookup(claimName(set, t, ordinal))).filter((c): c is PersistentVolumeClaim => !!c);
}

/** UpdatePodClaimForRetentionPolicy's decisions over the claims the cache has. */
export function retentionWork(set: StatefulSet, pod: Pod, lookup: ClaimLookup, work: ClaimWork = emptyClaimWork()): ClaimWork {
  for (const claim of existingClaims(set, pod, lookup)) {
    if (hasUnexpectedController(claim, set, pod)) work.conflicting.push(claim.metadata!.name!);
    if (isClaimOwnerUpToDate(claim, set, pod)) continue;
    work.refUpdates.push({ ...claim, metadata: { ...claim.metadata, ownerReferences: claimOwnerRefsForPolicy(claim, set, pod) } });
  }
  return work;
}

/** ClaimsMatchRetentionPolicy: every claim the cache has is up to date (missing ones come later). */
export function claimsMatchRetentionPolicy(set: StatefulSet, pod: Pod, lookup: ClaimLookup): boolean {
  return existingClaims(set, pod, lookup).every((c) => isClaimOwnerUpToDate(c, set, pod));
}

/** PodClaimIsStale: with whenScaled Delete, a claim still referencing an earlier pod of this name. */
export function podClaimIsStale(set: StatefulSet, pod: Pod, lookup: ClaimLookup): boolean {
  if (retentionPolicy(set).whenScaled === 'Retain') return false;
  return getPersistentVolumeClaims(set, pod).some(({ claim }) => {
    const existing = lookup(claim.metadata!.name!);
    return !!existing && hasStaleOwnerRef(existing, pod, podKind);
  });
}
